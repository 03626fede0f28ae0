#pragma once
// The simulated device's graphs (sim_device's graph calls, defined in sim_graph.cpp), as CUDA
// runs them:
//  * an executable holds copies of its kernels (nodes) and its edges, made at instantiation;
//    an update replaces the nodes' arguments in place (the whole kernel, in the simulator:
//    one function, whose arguments are everything a simulated kernel is), for the launches
//    that follow only; given a list of changed nodes (graph_changes), only those: a change the
//    list misses leaves the node's old kernel, which the random programs' comparison with serial
//    execution then sees;
//  * a launch is one unit on a stream: every node follows the stream's earlier work, and the
//    stream's later work follows every node; among themselves, nodes follow only their edges.
//    Each node runs on a timeline of its own (a hidden stream of the executable), so the race
//    checker sees exactly the edges, and a node also follows its own run in the executable's
//    previous launch (CUDA orders launches of one executable);
//  * a node is queued behind what precedes the launch on its stream, for rule 12's check.
#include <cstdint>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs::sim {

struct kernel;

struct sim_graph_exec {
  std::vector<const kernel*> nodes;  // owned copies
  std::vector<kernel> given;         // the arguments of the last graph_changes (at first: the nodes')
  std::vector<graph_edge> edges;
  std::vector<stream_handle> lanes;  // one hidden stream per node
  bool destroyed = false;
};

struct sim_graph_counts {
  std::uint64_t instantiated = 0, updated = 0, launched = 0, destroyed = 0;
  std::uint64_t nodes_set = 0, nodes_unchanged = 0;  // by updates given a list of changed nodes
  std::uint64_t live_detached = 0;  // copies made by detach not yet launched or released
  std::uint64_t detached = 0;       // copies made by detach in all
};

}  // namespace acs::sim
