#pragma once
// The scheduler's backend on a real GPU: the unhooked CUDA driver, in one
// device's primary context.
//
// Error-state note. These are driver calls: they never touch the runtime's
// last-error slot, so cudaGetLastError / cudaPeekAtLastError report what they
// would without acs, and acs never calls either. A failing bookkeeping call
// here returns its CUresult to the scheduler, which degrades (launch in place);
// it creates no sticky error (only a faulting kernel does).
#include <cuda.h>

#include <unordered_set>
#include <vector>

#include "scheduler/backend.hpp"
#include "src/runtime/dispatch.hpp"
#include "interpose/real_driver.hpp"
#include "src/support/config.hpp"
#include "src/support/recycler.hpp"

namespace acs {

// The opaque kernel the scheduler hands back to backend::launch: the hooks'
// closure, and whether (and with what result) it was issued.
struct pending_launch {
  launch_closure closure;
  const launch_request* request = nullptr;  // for detach: what the launch is
  bool issued = false;
  int status = 0;
};

// A launch copied for the issuing thread or a graph node (detach): its parameter values live in
// `values`, and params[i] points at parameter i there.
struct detached_launch {
  CUfunction function = nullptr;
  launch_shape shape;
  std::vector<void*> params;
  std::vector<unsigned char> values;
};

class cuda_backend final : public backend {
 public:
  cuda_backend(const driver::table& cuda, CUcontext context) noexcept : cuda_(cuda), context_(context) {}

  // Pool streams and their events, in the device's primary context.
  backend_status create_stream(stream_handle* out) override;
  backend_status synchronize(stream_handle stream) override;
  void destroy_stream(stream_handle stream) noexcept override;
  // cuStreamCreateWithPriority; CUDA_ERROR_NOT_SUPPORTED for a non-zero priority without it.
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  void destroy_event(event_handle event) noexcept override;

  // `kernel` is a pending_launch: re-issues the application's launch on `stream`.
  backend_status launch(const void* kernel, stream_handle stream) override;
  // A launch is detached (copied, to be issued later through cuLaunchKernel) only when its
  // status is known in advance (docs/design.md rule 6): it has no attributes and no `extra`,
  // its parameter layout is known, its grid is within every device's limits, the device's
  // primary context is current (as on the issuing threads), and a launch of the same function
  // with the same block and shared memory size succeeded from this context since the last
  // change of what decides a launch's success (launch_conditions.hpp: function attributes,
  // context limits, unloaded code; all hooked, and drained before they change). What could make
  // cuLaunchKernel fail is then ruled out: an invalid function, context or stream (the same
  // ones succeeded, unloads and teardown drain first), invalid or too large dimensions or
  // shared memory (the same ones succeeded, the limits did not change), too few resources
  // (the same per-block needs), launch attributes, capture (launches under capture are never
  // dispatched). What remains is the context itself failing (a sticky error of earlier work),
  // which every later call reports: after one is seen, nothing is deferred any more.
  const void* detach(const void* kernel) override;
  backend_status launch_detached(const void* kernel, stream_handle stream) override;
  void issuing_thread_started() noexcept override;

  // Graph replay (scheduler/graph_replay.hpp; cuda_graphs.cpp). Run on the H200
  // (gpu.graph_replay.*), its speed unmeasured; reached only with ACS_GRAPH=auto. Nodes are
  // detached launches (so never one with launch attributes or `extra`), identified by function,
  // grid, block and shared memory size; an update sets the arguments of the nodes whose values
  // changed (compared by graph_changes on the thread that queues the update, or by graph_update).
  bool describe(const void* kernel, kernel_identity* out) override;
  bool identify(const void* kernel, kernel_identity* out) override;  // of a pending_launch
  backend_status graph_instantiate(const graph_description& graph, graph_handle* out) override;
  backend_status graph_update(graph_handle exec, const graph_description& graph) override;
  std::size_t graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) override;
  backend_status graph_launch(graph_handle exec, stream_handle stream) override;
  void graph_destroy(graph_handle exec) noexcept override;
  void release_detached(const void* kernel) noexcept override;
  void release_all_detached(const void* const* kernels, std::size_t n) noexcept override;

 private:
  struct launch_kind {
    CUfunction function;
    unsigned block[3];
    unsigned shared_bytes;
    friend bool operator==(const launch_kind&, const launch_kind&) = default;
  };
  struct launch_kind_hash {
    std::size_t operator()(const launch_kind& k) const noexcept;
  };

  bool graphs_available() const noexcept;
  // Whether `kind` is among succeeded_ (under the scheduler's lock, generation_ current): the
  // calling thread's small cache first (every deferred or relayed launch asks), then the set.
  bool succeeded(const launch_kind& kind) const noexcept;
  void remember_success(const launch_kind& kind) const noexcept;
  // Whether the calling thread's current context is this backend's.
  bool in_own_context() const noexcept;
  static launch_kind kind_of(const launch_request& r) noexcept;

  const driver::table& cuda_;
  CUcontext context_;
  // Launch kinds that succeeded under launch_conditions generation `generation_`. Used under the
  // scheduler's lock only.
  std::unordered_set<launch_kind, launch_kind_hash> succeeded_;
  std::uint64_t generation_ = 0;
  // Copied launches, reused once issued or released (as many as a full window, twice over).
  recycler<detached_launch> detached_{2 * config::max_window};
};

}  // namespace acs
