// sim_device's graph calls (sim_graph.hpp says what they model).
#include <memory>

#include "sim_device.hpp"

namespace acs::sim {

// One function: every simulated kernel is the same node type, its fields the arguments.
bool sim_device::describe(const void* kernel_ptr, kernel_identity* out) {
  if (kernel_ptr == nullptr) return false;
  *out = kernel_identity{{0x51u, 0, 0, 0}};
  return true;
}

void sim_device::release_detached(const void* kernel_ptr) noexcept {
  delete static_cast<const kernel*>(kernel_ptr);
  std::lock_guard lock(mutex_);
  --graph_counts_.live_detached;
}

backend_status sim_device::graph_instantiate(const graph_description& graph, graph_handle* out) {
  std::lock_guard lock(mutex_);
  if (const auto failure = context_failed(config_.api_cost)) return seen(*failure);
  now_ += config_.api_cost * graph.node_count;
  for (std::size_t i = 0; i < graph.edge_count; ++i)
    if (graph.edges[i].from >= graph.edges[i].to || graph.edges[i].to >= graph.node_count) return status_invalid_value;
  sim_graph_exec g;
  for (std::size_t i = 0; i < graph.node_count; ++i) {
    const auto* k = static_cast<const kernel*>(graph.kernels[i]);
    if (k == nullptr || !valid_cells(k->reads) || !valid_cells(k->writes)) {
      for (const kernel* n : g.nodes) delete n;
      return status_invalid_value;
    }
    g.nodes.push_back(new kernel(*k));
    g.given.push_back(*k);
    g.lanes.push_back(add_stream(stream_kind::non_blocking, stream_origin::graph));
  }
  g.edges.assign(graph.edges, graph.edges + graph.edge_count);
  graphs_.push_back(std::move(g));
  ++graph_counts_.instantiated;
  *out = graphs_.size();
  return 0;
}

backend_status sim_device::graph_update(graph_handle exec, const graph_description& graph) {
  std::lock_guard lock(mutex_);
  if (exec == 0 || exec > graphs_.size() || graphs_[exec - 1].destroyed) return status_invalid_handle;
  if (const auto failure = context_failed(config_.api_cost)) return seen(*failure);
  sim_graph_exec& g = graphs_[exec - 1];
  if (graph.node_count != g.nodes.size() ||
      !std::equal(g.edges.begin(), g.edges.end(), graph.edges, graph.edges + graph.edge_count))
    return status_invalid_value;  // not exec's shape (cudaGraphExecUpdate's topology change)
  for (std::size_t i = 0; i < graph.node_count; ++i) {
    const auto* k = static_cast<const kernel*>(graph.kernels[i]);
    if (k == nullptr || !valid_cells(k->reads) || !valid_cells(k->writes)) return status_invalid_value;
  }
  // Given a list, only its nodes are set (as cuda_backend does): the others keep their kernels.
  const std::size_t set = graph.listed ? graph.changed_count : graph.node_count;
  for (std::size_t j = 0; j < set; ++j) {
    const std::size_t i = graph.listed ? graph.changed[j] : j;
    if (i >= graph.node_count) return status_invalid_value;
    delete g.nodes[i];
    g.nodes[i] = new kernel(*static_cast<const kernel*>(graph.kernels[i]));
  }
  if (graph.listed) {
    graph_counts_.nodes_set += set;
    graph_counts_.nodes_unchanged += graph.node_count - set;
  }
  now_ += config_.api_cost / 4 * set;
  ++graph_counts_.updated;
  return 0;
}

std::size_t sim_device::graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  if (exec == 0 || exec > graphs_.size() || graphs_[exec - 1].destroyed ||
      graphs_[exec - 1].given.size() != graph.node_count) {  // graph_update refuses it: any list will do
    for (std::size_t i = 0; i < graph.node_count; ++i) changed[n++] = static_cast<std::uint32_t>(i);
    return n;
  }
  std::vector<kernel>& given = graphs_[exec - 1].given;
  for (std::size_t i = 0; i < graph.node_count; ++i) {
    const auto* k = static_cast<const kernel*>(graph.kernels[i]);
    if (k != nullptr && *k == given[i]) continue;
    if (k != nullptr) given[i] = *k;
    changed[n++] = static_cast<std::uint32_t>(i);
  }
  return n;
}

// The start marker on `stream`, every node on its lane after the marker and its edges, and the
// end marker on `stream` after every node.
backend_status sim_device::graph_launch(graph_handle exec, stream_handle stream) {
  std::lock_guard lock(mutex_);
  if (exec == 0 || exec > graphs_.size() || graphs_[exec - 1].destroyed || !valid_stream(stream))
    return status_invalid_handle;
  if (const auto failure = context_failed(config_.launch_cost)) return seen(*failure);
  run_until(now_);
  const sim_graph_exec& g = graphs_[exec - 1];
  op start;
  start.kind = op_kind::marker;
  const std::uint64_t first = enqueue(std::move(start), stream, std::nullopt);
  const std::optional<std::uint64_t> before = ops_[first].previous;
  std::vector<std::uint64_t> node_ops(g.nodes.size());
  std::vector<std::uint64_t> deps;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const kernel& k = *g.nodes[i];
    deps.assign(1, first);
    for (const graph_edge& e : g.edges)
      if (e.to == i) deps.push_back(node_ops[e.from]);
    op o;
    o.kind = op_kind::kernel;
    o.waits_for = k.waits_for;
    o.kernel_id = k.id;
    o.effect = {memory_effect::rule::hash, k.id, k.reads, k.writes};
    o.duration = k.duration;
    o.uses_slot = true;
    // Rule 12 concerns pool streams: a graph launched on an application stream follows that
    // stream's own order, as a kernel run in place does (segment_replay.hpp).
    if (streams_[stream].origin == stream_origin::pool) note_queued_behind_from(k.id, before);
    streams_[g.lanes[i]].priority = streams_[stream].priority;  // nodes run at their launch's priority
    node_ops[i] = enqueue_after(std::move(o), g.lanes[i], deps);
    node_launch_stream_[node_ops[i]] = stream;
    effect_ops_.push_back(node_ops[i]);
    latest_run_[k.id] = node_ops[i];
    ++launch_counts_[k.id];
  }
  op end;
  end.kind = op_kind::marker;
  enqueue_after(std::move(end), stream, node_ops);
  now_ += config_.launch_cost;
  ++graph_counts_.launched;
  return 0;
}

void sim_device::graph_destroy(graph_handle exec) noexcept {
  std::lock_guard lock(mutex_);
  if (exec == 0 || exec > graphs_.size() || graphs_[exec - 1].destroyed) return;
  sim_graph_exec& g = graphs_[exec - 1];
  for (const kernel* n : g.nodes) delete n;  // launched nodes keep what they need in their ops
  g.nodes.clear();
  g.destroyed = true;
  for (stream_handle lane : g.lanes) streams_[lane].destroyed = true;
  ++graph_counts_.destroyed;
}

sim_graph_counts sim_device::graph_counts() const {
  std::lock_guard lock(mutex_);
  return graph_counts_;
}

}  // namespace acs::sim
