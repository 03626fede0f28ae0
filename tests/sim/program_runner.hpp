#pragma once
// Runs a generated program on the simulated device, and serially.
#include <string>
#include <vector>

#include "random_program.hpp"
#include "sim_graph.hpp"
#include "scheduler/scheduler.hpp"

namespace acs::sim {

enum class execution : std::uint8_t {
  through_acs,     // kernels go through the scheduler, as under LD_PRELOAD
  direct,          // kernels are issued on their own stream: the program as written
  naive_redirect,  // kernels go round-robin to non-blocking streams, unordered: a broken "scheduler"
};

struct program_outcome {
  std::vector<std::string> races;     // explained
  // Calls that returned an error, a deadlock; with a context failure (program::fault_kernel),
  // what broke CUDA's reporting of it instead: a success after a call had returned it, another
  // error, a launch accepted that never ran.
  std::vector<std::string> failures;
  bool context_failed = false;        // the fault happened: memory and host reads are not compared
  std::vector<std::string> apart;     // through_acs: breaches of rule 12 (streams stay apart)
  std::vector<value> memory;          // after a final device sync
  std::vector<value> host_reads;      // in program order
  scheduler_stats stats;              // through_acs only
  sim_graph_counts graphs;            // the simulated device's graph calls
};

program_outcome run_program(const program& p, execution how);

struct serial_outcome {
  std::vector<value> memory;
  std::vector<value> host_reads;
};

// Every operation in program order, one at a time.
serial_outcome run_serial(const program& p);

// Empty if `got` shows no race, no failed call, no deadlock, no breach of rule 12, and the
// serial memory and host reads.
std::string compare(const serial_outcome& expected, const program_outcome& got);

}  // namespace acs::sim
