#pragma once
// The read-mostly flags that every hooked launch reads, in one cache line. Each used to sit
// among its own file's variables, one cache line apiece: a launch of a stream acs stepped aside
// from read about ten of them, and where the program's own host code evicts acs's data between
// two launches (a framework's operator dispatch) each was a miss of its own
// (benchmarks/cpu/call_overhead_fake.cpp --cold). The files that own a flag still name it as
// before, through a reference to its member here (e.g. process::detail::child). Only flags
// written rarely belong here: one written on every launch would make the line bounce between
// the threads that launch.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "src/support/pass_reason.hpp"

namespace acs {

struct config;
namespace real {
struct driver_state;
}
namespace driver {
struct table;
}

struct alignas(64) hot_flags {
  std::atomic<const config*> settings{nullptr};             // config.hpp: settings(), once made
  std::atomic<const real::driver_state*> driver{nullptr};   // real_driver_hooked.cpp: once resolved
  std::atomic<const driver::table*> driver_table{nullptr};  // real_driver.cpp: driver::real(), once complete
  std::atomic<std::uint64_t> handles_epoch{1};              // devices.cpp: bumped when handles die
  std::atomic<int> log_threshold{-1};                        // log.hpp: -1 until ACS_LOG_LEVEL is read
  std::atomic<int> redirected_streams{0};                    // streams.cpp: changes with a stream's mode
  std::atomic<bool> forked_child{false};                     // process.hpp
  std::atomic<bool> cuda_set_up{false};                      // start.cpp
  std::atomic<bool> runtime_started{false};                  // start.cpp
  std::atomic<bool> stats_counting{false};                   // stats.hpp: ACS_STATS or ACS_STATS_FILE
  std::atomic<bool> driver_failed{false};                    // real_driver.cpp
  std::atomic<bool> bypass{false};                           // bypass.hpp: hooked calls skip acs
  std::atomic<bool> reason_said[static_cast<std::size_t>(pass_reason::count_)] = {};  // dispatch.cpp
};
static_assert(sizeof(hot_flags) == 64, "one cache line");

extern constinit hot_flags hot;

}  // namespace acs
