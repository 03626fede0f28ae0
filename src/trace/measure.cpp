#include "src/trace/measure.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

namespace acs::trace {

namespace {

std::string format(const char* pattern, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, a);
  return buf;
}

std::string shorten(const std::string& name, std::size_t max) {
  return name.size() <= max ? name : name.substr(0, max - 3) + "...";
}

}  // namespace

occupancy sweep(std::vector<interval> intervals) {
  occupancy o;
  std::erase_if(intervals, [](const interval& x) { return x.end_ns <= x.start_ns; });
  if (intervals.empty()) return o;
  // Edges: (time, +1 start / -1 end); at equal times ends sort first, so
  // intervals that only touch never count as running together.
  std::vector<std::pair<std::uint64_t, int>> edges;
  edges.reserve(2 * intervals.size());
  for (const interval& x : intervals) {
    o.kernel_ns += x.end_ns - x.start_ns;
    edges.emplace_back(x.start_ns, +1);
    edges.emplace_back(x.end_ns, -1);
  }
  std::sort(edges.begin(), edges.end());
  int open = 0;
  std::uint64_t opened_at = 0;
  for (const auto& [t, delta] : edges) {
    if (open == 0 && delta > 0) opened_at = t;
    open += delta;
    if (open == 0) o.busy_ns += t - opened_at;
    o.peak = std::max(o.peak, static_cast<unsigned>(std::max(open, 0)));
  }
  return o;
}

measured measure(const trace_view& view, std::size_t top_count) {
  measured m;
  const snapshot& data = *view.data;
  m.dropped = data.dropped;
  m.incomplete = data.incomplete;

  std::map<std::uint32_t, std::vector<interval>> per_device;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  std::unordered_map<name_id, top_kernel> by_name;
  for (std::size_t i = 0; i < data.kernels.size(); ++i) {
    const kernel_record& k = data.kernels[i];
    if (k.end_ns <= k.start_ns) continue;
    ++m.kernels;
    per_device[k.device].push_back({k.start_ns, k.end_ns});
    first = std::min(first, k.start_ns);
    last = std::max(last, k.end_ns);
    top_kernel& t = by_name[k.name];
    ++t.launches;
    t.total_ns += k.end_ns - k.start_ns;
    if (const std::uint32_t d = view.kernel_dispatch[i]; d != no_index) {
      ++m.dispatched;
      ++t.dispatched;
      const std::uint32_t waits = data.dispatches[d].waited_count;
      t.dependency_waits += waits;
      if (waits > 0) ++t.waiting_launches;
    }
  }
  for (const copy_record& c : data.copies) {
    if (c.end_ns <= c.start_ns) continue;
    first = std::min(first, c.start_ns);
    last = std::max(last, c.end_ns);
  }
  if (m.kernels == 0) return m;

  for (auto& [device, intervals] : per_device) {
    const occupancy o = sweep(std::move(intervals));
    m.kernel_ns += o.kernel_ns;
    m.busy_ns += o.busy_ns;
    m.peak_concurrency = std::max(m.peak_concurrency, o.peak);
    ++m.devices;
  }
  m.span_ns = last - first;
  m.achieved_concurrency = static_cast<double>(m.kernel_ns) / static_cast<double>(m.busy_ns);
  m.busy_fraction = m.span_ns == 0 ? 0.0
                                   : static_cast<double>(m.busy_ns) /
                                         (static_cast<double>(m.devices) * static_cast<double>(m.span_ns));

  m.top.reserve(by_name.size());
  for (auto& [id, t] : by_name) {
    t.name = id < view.display_names.size() ? view.display_names[id] : "(unknown)";
    m.top.push_back(std::move(t));
  }
  std::sort(m.top.begin(), m.top.end(), [](const top_kernel& a, const top_kernel& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (m.top.size() > top_count) m.top.resize(top_count);
  return m;
}

std::string machine_fields(const measured* m) {
  if (m == nullptr) return " measured=0";
  std::string out = " measured=1";
  out += format(" achieved_concurrency=%.3f", m->achieved_concurrency);
  out += format(" busy_fraction=%.3f", m->busy_fraction);
  out += " peak_concurrency=" + std::to_string(m->peak_concurrency);
  out += " measured_kernels=" + std::to_string(m->kernels);
  out += format(" measured_span_us=%.1f", static_cast<double>(m->span_ns) / 1e3);
  return out;
}

std::string human_lines(const measured& m) {
  std::string out = "[acs] measured: " + std::to_string(m.kernels) + " kernel executions";
  if (m.kernels == 0) return out + " recorded\n";
  out += format(", achieved concurrency %.2f", m.achieved_concurrency);
  out += " (mean kernels running while any runs), peak " + std::to_string(m.peak_concurrency);
  out += format(", GPU busy %.1f%%", 100.0 * m.busy_fraction);
  out += format(" of %.3f ms", static_cast<double>(m.span_ns) / 1e6);
  if (m.dropped + m.incomplete > 0)
    out += " (" + std::to_string(m.dropped) + " records dropped, " + std::to_string(m.incomplete) +
           " incomplete)";
  out += "\n";
  if (m.top.empty()) return out;
  out += m.dispatched > 0 ? "[acs] measured: top kernels by GPU time (launches, by acs, dependency waits):\n"
                          : "[acs] measured: top kernels by GPU time (launches; with ACS_TRACE also "
                            "dispatches by acs and dependency waits):\n";
  for (const top_kernel& t : m.top) {
    out += format(
        "[acs]   %5.1f%%",
        m.kernel_ns == 0 ? 0.0 : 100.0 * static_cast<double>(t.total_ns) / static_cast<double>(m.kernel_ns));
    out += format(" %10.3f ms", static_cast<double>(t.total_ns) / 1e6);
    out += "  " + std::to_string(t.launches) + ", " + std::to_string(t.dispatched) + ", " +
           std::to_string(t.dependency_waits) + "  " + shorten(t.name, 120) + "\n";
  }
  return out;
}

}  // namespace acs::trace
