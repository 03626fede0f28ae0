// Checks a trace written with ACS_TRACE against what a GPU test expects.
//
//   acs_trace_check TRACE.json CHECK...
//     --kernel NAME          a kernel whose name contains NAME was recorded
//     --dispatched NAME      ... and acs dispatched it (args.acs == "dispatched")
//     --overlap A B          the longest kernels named A and B ran together for at
//                            least a quarter of the shorter one
//     --no-overlap A B       ... did not run together at all (B after A)
//     --flow A B             a dependency flow goes from a slice of A to one of B
//     --cat CAT              at least one event of category CAT (memcpy, memset)
//     --pool-lanes N         at least N lanes named "pool stream ..."
// Prints what it found; exits 0 if every check holds, 1 otherwise, 2 on usage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "json_reader.hpp"

namespace {

using acs::test_json::value;

struct slice {
  std::string name;
  double start = 0, end = 0, pid = 0, tid = 0;
  bool dispatched = false;
};

struct trace {
  std::vector<slice> kernels;
  std::map<std::string, int> categories;
  std::map<std::pair<double, double>, std::string> lanes;
  std::map<double, std::pair<const value*, const value*>> flows;  // id -> (s, f)
};

// The longest kernel of that name: programs warm their kernels up with short
// launches first (lazy module loading), and the long one is the one measured.
const slice* find(const trace& t, const std::string& name) {
  const slice* best = nullptr;
  for (const slice& k : t.kernels)
    if (k.name.find(name) != std::string::npos && (best == nullptr || k.end - k.start > best->end - best->start))
      best = &k;
  return best;
}

// The kernel slice on the flow end's lane that encloses its timestamp.
const slice* enclosing(const trace& t, const value& e) {
  const double ts = e.num("ts");
  for (const slice& k : t.kernels)
    if (k.pid == e.num("pid") && k.tid == e.num("tid") && k.start <= ts && ts <= k.end) return &k;
  return nullptr;
}

int failures = 0;
void report(bool ok, const std::string& what) {
  std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += ok ? 0 : 1;
}

std::string interval(const slice* k) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "[%.3f, %.3f] us on lane %g", k->start, k->end, k->tid);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE.json CHECK...\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("FAIL: cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  const auto doc = acs::test_json::parse(text.str(), &error);
  if (!doc) {
    std::printf("FAIL: %s is not valid JSON: %s\n", argv[1], error.c_str());
    return 1;
  }
  trace t;
  for (const value& e : (*doc)["traceEvents"].items) {
    const std::string ph = e.str("ph");
    if (ph == "X") {
      ++t.categories[e.str("cat")];
      if (e.str("cat") == "kernel")
        t.kernels.push_back({e.str("name"), e.num("ts"), e.num("ts") + e.num("dur"), e.num("pid"),
                             e.num("tid"), e["args"].str("acs") == "dispatched"});
    } else if (ph == "M" && e.str("name") == "thread_name") {
      t.lanes[{e.num("pid"), e.num("tid")}] = e["args"].str("name");
    } else if (ph == "s") {
      t.flows[e.num("id")].first = &e;
    } else if (ph == "f") {
      t.flows[e.num("id")].second = &e;
    }
  }
  std::printf("%s: %zu kernels, %zu lanes, %zu flows\n", argv[1], t.kernels.size(), t.lanes.size(),
              t.flows.size());

  for (int i = 2; i < argc; ++i) {
    const std::string check = argv[i];
    const auto arg = [&](int k) -> std::string {
      if (i + k >= argc) {
        std::fprintf(stderr, "%s needs %d argument(s)\n", check.c_str(), k);
        std::exit(2);
      }
      return argv[i + k];
    };
    if (check == "--kernel" || check == "--dispatched") {
      const std::string name = arg(1);
      ++i;
      const slice* k = find(t, name);
      if (check == "--kernel")
        report(k != nullptr, "kernel " + name + (k ? " " + interval(k) : " not found"));
      else
        report(k != nullptr && k->dispatched,
               "kernel " + name + (k && k->dispatched ? " dispatched by acs" : " not dispatched by acs"));
    } else if (check == "--overlap" || check == "--no-overlap") {
      const std::string a = arg(1), b = arg(2);
      i += 2;
      const slice *ka = find(t, a), *kb = find(t, b);
      if (ka == nullptr || kb == nullptr) {
        report(false, check + " " + a + " " + b + ": kernel not found");
        continue;
      }
      const double together = std::min(ka->end, kb->end) - std::max(ka->start, kb->start);
      const double shorter = std::min(ka->end - ka->start, kb->end - kb->start);
      char buf[160];
      std::snprintf(buf, sizeof buf, " ran together for %.3f us (shorter kernel %.3f us)", together, shorter);
      const std::string what = a + " " + interval(ka) + ", " + b + " " + interval(kb) + buf;
      report(check == "--overlap" ? together >= 0.25 * shorter : together <= 0.0,
             check.substr(2) + ": " + what);
    } else if (check == "--flow") {
      const std::string a = arg(1), b = arg(2);
      i += 2;
      bool found = false;
      for (const auto& [id, ends] : t.flows) {
        if (ends.first == nullptr || ends.second == nullptr) continue;
        const slice *from = enclosing(t, *ends.first), *to = enclosing(t, *ends.second);
        found |=
            from && to && from->name.find(a) != std::string::npos && to->name.find(b) != std::string::npos;
      }
      report(found, "dependency flow " + a + " -> " + b);
    } else if (check == "--cat") {
      const std::string cat = arg(1);
      ++i;
      report(t.categories[cat] > 0, "events of category " + cat + ": " + std::to_string(t.categories[cat]));
    } else if (check == "--pool-lanes") {
      const long want = std::strtol(arg(1).c_str(), nullptr, 10);
      ++i;
      long pools = 0;
      for (const auto& [key, name] : t.lanes) pools += name.rfind("pool stream ", 0) == 0;
      report(pools >= want,
             "pool lanes: " + std::to_string(pools) + " (at least " + std::to_string(want) + ")");
    } else {
      std::fprintf(stderr, "unknown check %s\n", check.c_str());
      return 2;
    }
  }
  return failures == 0 ? 0 : 1;
}
