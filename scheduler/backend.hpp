#pragma once
// The scheduler's only window on the GPU. The real backend calls the unhooked
// CUDA driver; the simulated device in tests/sim implements the same calls.
#include <cstddef>
#include <cstdint>

namespace acs {

// Opaque handles: a CUstream / CUevent for the real GPU, an index in the simulator.
using stream_handle = std::uintptr_t;
using event_handle = std::uintptr_t;
// An instantiated graph of detached kernels (graph_replay.hpp): a CUgraphExec, or an index.
using graph_handle = std::uintptr_t;

// What a graph node of a detached kernel is made of, apart from its arguments: the function
// and the launch configuration. Two launches with equal identities can share a graph node,
// their arguments set by an update (graph_replay.hpp).
struct kernel_identity {
  std::uint64_t words[4] = {};
  bool operator==(const kernel_identity&) const = default;
};

// A DAG of detached kernels: node i is kernels[i]; every edge goes from an earlier node to a
// later one (the order is a topological order).
struct graph_edge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  bool operator==(const graph_edge&) const = default;
};
struct graph_description {
  const void* const* kernels = nullptr;
  std::size_t node_count = 0;
  const graph_edge* edges = nullptr;
  std::size_t edge_count = 0;
  // For graph_update, where `listed`: the nodes whose arguments changed (graph_changes), in
  // increasing order, maybe none; else any node may have changed: compare them all.
  bool listed = false;
  const std::uint32_t* changed = nullptr;
  std::size_t changed_count = 0;
};

// A backend error code; 0 is success. For the real GPU it is the CUresult or
// cudaError_t of the call that failed, passed back to the application unchanged.
using backend_status = int;

// What a backend returns for a call it cannot make (CUDA's cudaErrorNotSupported).
inline constexpr backend_status status_not_supported = 801;

enum class event_state : std::uint8_t { complete, pending, error };

class backend {
 public:
  virtual ~backend() = default;
  // A stream that does not synchronise with the legacy default stream, of the default priority.
  virtual backend_status create_stream(stream_handle* out) = 0;
  // The same, with CUDA's stream priority `priority` (lower is more urgent, 0 the default; the
  // GPU clamps it to its range). A backend without priorities can only make priority 0.
  virtual backend_status create_stream_with_priority(stream_handle* out, int priority) {
    return priority == 0 ? create_stream(out) : status_not_supported;
  }
  // An event without timing.
  virtual backend_status create_event(event_handle* out) = 0;
  virtual backend_status record_event(event_handle event, stream_handle stream) = 0;
  virtual backend_status wait_event(stream_handle stream, event_handle event) = 0;
  virtual event_state query_event(event_handle event) = 0;
  // Host waits for the stream: the last resort when a kernel could not be joined.
  virtual backend_status synchronize(stream_handle stream) = 0;
  // Enqueue an opaque kernel (the interposer's launch closure, or a simulated kernel).
  virtual backend_status launch(const void* kernel, stream_handle stream) = 0;
  // For issuing from another thread (issue_queue.hpp): a copy of `kernel` that stays valid
  // after the launch call returns, or nullptr when this launch must be issued now, by the
  // caller (its arguments cannot be copied, or its status is not known to be success:
  // a deferred launch has none to give back).
  virtual const void* detach(const void* /*kernel*/) { return nullptr; }
  // Issues a copy from `detach`, and frees it.
  virtual backend_status launch_detached(const void* /*kernel*/, stream_handle /*stream*/) { return 1; }
  // Optional graph interface (graph_replay.hpp); by default there is none, and graph replay
  // only passes calls through. `describe`: the identity of a detached kernel that a graph node
  // can carry exactly; false when it cannot (launch attributes, `extra`, ...).
  virtual bool describe(const void* /*detached*/, kernel_identity* /*out*/) { return false; }
  // The identity that describe would give the launch's detached copy, read from the launch
  // itself (no copy is made: launch segments identify every launch and detach only those they
  // hold); false when no graph node could carry it. It promises nothing of detach.
  virtual bool identify(const void* /*kernel*/, kernel_identity* /*out*/) { return false; }
  // An executable of `graph`'s nodes and edges; the kernels stay the caller's.
  virtual backend_status graph_instantiate(const graph_description& /*graph*/, graph_handle* /*out*/) {
    return status_not_supported;
  }
  // Sets the arguments of every node of `exec` to those of `graph`, which has exec's shape (the
  // same identities and edges); where `graph.listed`, only the changed nodes' (the others are known
  // equal). Launches already made are not affected. On failure `exec` is unchanged, or unusable:
  // the caller destroys it, or never launches it again (a relayed update's failure breaks the
  // issue queue: docs/design.md §8.1, "Relayed graphs").
  virtual backend_status graph_update(graph_handle /*exec*/, const graph_description& /*graph*/) {
    return status_not_supported;
  }
  // On the caller's thread, before `exec` is updated to `graph`'s arguments (made at once, or
  // relayed to an issuing thread): writes to `changed` the nodes whose arguments differ from those
  // exec will have once every update made or queued before is applied, and records graph's as
  // those; returns how many. So the thread that makes the update reads only the changed nodes'
  // copies, and a replay with the same arguments leaves them in the caller's cache. The default:
  // every node.
  virtual std::size_t graph_changes(graph_handle /*exec*/, const graph_description& graph, std::uint32_t* changed) {
    for (std::size_t i = 0; i < graph.node_count; ++i) changed[i] = static_cast<std::uint32_t>(i);
    return graph.node_count;
  }
  // One launch of the whole graph, ordered on `stream` like a kernel, and after the previous
  // launch of the same executable (CUDA's rule).
  virtual backend_status graph_launch(graph_handle /*exec*/, stream_handle /*stream*/) { return status_not_supported; }
  virtual void graph_destroy(graph_handle /*exec*/) noexcept {}
  // Frees a copy from `detach` without launching it (its graph copied what it needed).
  virtual void release_detached(const void* /*kernel*/) noexcept {}
  // The same for `n` copies at once (a replayed graph's kernels).
  virtual void release_all_detached(const void* const* kernels, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) release_detached(kernels[i]);
  }
  // Called first on the issuing thread (a real GPU: its context made current there).
  virtual void issuing_thread_started() noexcept {}
  // Teardown; errors are ignored (the driver may already be gone at exit).
  virtual void destroy_stream(stream_handle stream) noexcept = 0;
  virtual void destroy_event(event_handle event) noexcept = 0;
};

// A graph replay: `exec`'s nodes set to the arguments of `graph.kernels` (copies from detach),
// then launched on `stream`; the copies released once it was launched. Non-zero: nothing was
// launched, and the copies are still the caller's.
inline backend_status update_and_launch_graph(backend& gpu, graph_handle exec, const graph_description& graph,
                                              stream_handle stream) {
  if (const backend_status status = gpu.graph_update(exec, graph); status != 0) return status;
  if (const backend_status status = gpu.graph_launch(exec, stream); status != 0) return status;
  gpu.release_all_detached(graph.kernels, graph.node_count);
  return 0;
}

}  // namespace acs
