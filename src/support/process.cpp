#include "src/support/process.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace acs::process {

namespace detail {

constinit std::atomic<bool> used{false};

}  // namespace detail

using detail::child;
using detail::used;

bool note_cuda_used() noexcept {
  return !used.load(std::memory_order_relaxed) && !used.exchange(true, std::memory_order_acq_rel);
}

void after_fork_in_child() noexcept {
  if (used.load(std::memory_order_relaxed)) child.store(true, std::memory_order_relaxed);
}

namespace {

using file = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
file open_file(const char* path) { return file(std::fopen(path, "re"), &std::fclose); }

// A small file's first line (cgroup files are one line), empty if it cannot be read.
std::string first_line(const std::string& path) {
  const file f = open_file(path.c_str());
  char buffer[256] = {};
  return f && std::fgets(buffer, sizeof buffer, f.get()) != nullptr ? std::string(buffer) : std::string();
}

// The tighter of two limits in whole CPUs, 0 meaning none.
unsigned tighter(unsigned a, unsigned b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

// Whole CPUs of a quota per period (µs), at least 1; 0: no limit (quota -1, "max", unreadable).
unsigned whole_cpus(long long quota, long long period) {
  if (quota <= 0 || period <= 0) return 0;
  return static_cast<unsigned>(std::max(quota / period, 1LL));
}

// cgroup v2's cpu.max: "QUOTA PERIOD" or "max PERIOD".
unsigned cpus_of_cpu_max(const std::string& text) {
  if (text.empty() || text.compare(0, 3, "max") == 0) return 0;
  char* end = nullptr;
  const long long quota = std::strtoll(text.c_str(), &end, 10);
  return end == text.c_str() ? 0 : whole_cpus(quota, std::strtoll(end, nullptr, 10));
}

// cgroup v1's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us in `dir`.
unsigned cpus_of_cfs(const std::string& dir) {
  const std::string quota = first_line(dir + "/cpu.cfs_quota_us"), period = first_line(dir + "/cpu.cfs_period_us");
  if (quota.empty() || period.empty()) return 0;
  return whole_cpus(std::strtoll(quota.c_str(), nullptr, 10), std::strtoll(period.c_str(), nullptr, 10));
}

// The tightest limit from `base + path` up to `base` (a container sees its own cgroup at the
// mount's root, while /proc/self/cgroup may still name the host's path: missing levels are skipped).
template <class LimitOf>
unsigned tightest(const std::string& base, std::string path, LimitOf limit_of) {
  unsigned best = 0;
  for (;;) {
    best = tighter(best, limit_of(base + path));
    if (path.empty() || path == "/") return best;
    const std::size_t slash = path.find_last_of('/');
    path.resize(slash == std::string::npos ? 0 : slash);
  }
}

}  // namespace

unsigned cgroup_cpu_limit(const char* proc_cgroup, const char* root) noexcept {
  try {
    const file cgroups = open_file(proc_cgroup);
    if (!cgroups) return 0;
    unsigned best = 0;
    const std::string r = root;
    char line[4096];
    while (std::fgets(line, sizeof line, cgroups.get()) != nullptr) {
      // "ID:CONTROLLERS:PATH": v2's is "0::PATH"; v1's cpu controller lists "cpu".
      std::string l(line);
      while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
      const std::size_t a = l.find(':'), b = a == std::string::npos ? a : l.find(':', a + 1);
      if (b == std::string::npos) continue;
      const std::string controllers = l.substr(a + 1, b - a - 1), path = l.substr(b + 1);
      if (controllers.empty()) {
        for (const char* base : {"", "/unified"})
          best = tighter(best, tightest(r + base, path, [](const std::string& d) {
            return cpus_of_cpu_max(first_line(d + "/cpu.max"));
          }));
        continue;
      }
      const std::string listed = "," + controllers + ",";
      if (listed.find(",cpu,") == std::string::npos) continue;
      for (const char* base : {"/cpu,cpuacct", "/cpuacct,cpu", "/cpu"}) best = tighter(best, tightest(r + base, path, cpus_of_cfs));
    }
    return best;
  } catch (...) {  // an allocation failed: no limit known
    return 0;
  }
}

unsigned affinity_cpus() noexcept {
  static const unsigned cpus = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1u;
    const int n = CPU_COUNT(&set);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
  }();
  return cpus;
}

unsigned process_cgroup_cpu_limit() noexcept {
  static const unsigned limit = cgroup_cpu_limit();
  return limit;
}

}  // namespace acs::process
