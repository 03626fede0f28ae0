// cuda_backend's graph calls (scheduler/graph_replay.hpp): detached launches as kernel nodes of
// a CUDA graph, instantiated once, their arguments updated in place, launched on a pool stream.
// Run on the H200 (the gpu.graph_replay.* tests, static and shared cudart, outputs identical);
// its speed is not measured yet. Reached only with ACS_GRAPH=auto (default off).
#include <cstring>
#include <memory>
#include <vector>

#include "src/runtime/cuda_backend.hpp"
#include "src/runtime/launch_conditions.hpp"
#include "src/support/log.hpp"
#include "src/support/stage_timer.hpp"

namespace acs {

namespace {

// An executable with what its updates need: its nodes, and the argument bytes each was last
// given (an update skips the nodes whose values did not change). `values` is read and written only
// by the thread that compares (graph_changes, or graph_update without a list); an update given a
// list reads only `nodes`, `functions` and the changed nodes' copies, so issuing thread 0 can make
// it while the application's thread compares the next segment's arguments.
struct cuda_graph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUgraphNode> nodes;
  std::vector<CUfunction> functions;  // each node's function in this context (node_function)
  std::vector<std::vector<unsigned char>> values;
};

const detached_launch& launch_of(const void* kernel) noexcept { return *static_cast<const detached_launch*>(kernel); }

// The function a kernel node runs. cuLaunchKernel accepts a CUkernel cast to CUfunction, and
// static cudart launches that way; a graph node does not (cuGraphAddKernelNode: CUDA_ERROR_INVALID_HANDLE,
// seen on the H200), so a CUkernel is resolved to its function in the current context first.
CUfunction node_function(const driver::table& cuda, CUfunction f) noexcept {
  CUfunction resolved = nullptr;
  if (cuda.cuKernelGetFunction_ != nullptr &&
      cuda.cuKernelGetFunction_(&resolved, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && resolved != nullptr)
    return resolved;
  return f;
}

CUDA_KERNEL_NODE_PARAMS_v2 node_params(const detached_launch& d, CUfunction function) noexcept {
  CUDA_KERNEL_NODE_PARAMS_v2 p{};
  p.func = function;
  p.gridDimX = d.shape.grid[0];
  p.gridDimY = d.shape.grid[1];
  p.gridDimZ = d.shape.grid[2];
  p.blockDimX = d.shape.block[0];
  p.blockDimY = d.shape.block[1];
  p.blockDimZ = d.shape.block[2];
  p.sharedMemBytes = d.shape.shared_bytes;
  p.kernelParams = const_cast<void**>(d.params.data());  // the driver copies the values
  p.extra = nullptr;
  p.kern = nullptr;
  p.ctx = nullptr;  // the current context: the device's primary one (detach checked it)
  return p;
}

}  // namespace

bool cuda_backend::graphs_available() const noexcept {
  return cuda_.cuGraphCreate_ != nullptr && cuda_.cuGraphAddKernelNode_ != nullptr &&
         cuda_.cuGraphInstantiateWithFlags_ != nullptr && cuda_.cuGraphExecKernelNodeSetParams_ != nullptr &&
         cuda_.cuGraphLaunch_ != nullptr && cuda_.cuGraphExecDestroy_ != nullptr && cuda_.cuGraphDestroy_ != nullptr;
}

namespace {

kernel_identity identity_of(CUfunction function, const launch_shape& s) noexcept {
  kernel_identity id;
  id.words[0] = reinterpret_cast<std::uintptr_t>(function);
  id.words[1] = std::uint64_t{s.grid[0]} | std::uint64_t{s.grid[1]} << 32;
  id.words[2] = std::uint64_t{s.grid[2]} | std::uint64_t{s.block[0]} << 32;
  id.words[3] = std::uint64_t{s.block[1]} | std::uint64_t{s.block[2]} << 16 | std::uint64_t{s.shared_bytes} << 32;
  return id;
}

}  // namespace

bool cuda_backend::describe(const void* kernel, kernel_identity* out) {
  if (kernel == nullptr || !graphs_available()) return false;
  *out = identity_of(launch_of(kernel).function, launch_of(kernel).shape);
  return true;
}

// What detach would copy, and describe then say: a plain launch (no attributes, no `extra`) of a
// known function. Whether detach accepts it is decided when it is held.
bool cuda_backend::identify(const void* kernel, kernel_identity* out) {
  const launch_request* r = kernel != nullptr ? static_cast<const pending_launch*>(kernel)->request : nullptr;
  if (r == nullptr || r->function == nullptr || r->shape.attributes || r->extra != nullptr || !graphs_available())
    return false;
  *out = identity_of(r->function, r->shape);
  return true;
}

// The graph is built, instantiated and then kept (an update needs its nodes); any failure
// destroys what was made and returns the CUresult: the caller replays call by call.
backend_status cuda_backend::graph_instantiate(const graph_description& graph, graph_handle* out) {
  auto g = std::make_unique<cuda_graph>();
  CUresult r = cuda_.cuGraphCreate_(&g->graph, 0);
  if (r != CUDA_SUCCESS) {
    log::print_once(log_level::warn, "graph:create", "graph replay: cuGraphCreate failed (CUresult {})",
                    static_cast<int>(r));
    return r;
  }
  std::vector<CUgraphNode> deps;
  for (std::size_t i = 0; i < graph.node_count && r == CUDA_SUCCESS; ++i) {
    deps.clear();
    for (std::size_t e = 0; e < graph.edge_count; ++e)
      if (graph.edges[e].to == i) deps.push_back(g->nodes[graph.edges[e].from]);
    const detached_launch& d = launch_of(graph.kernels[i]);
    const CUfunction function = node_function(cuda_, d.function);
    const CUDA_KERNEL_NODE_PARAMS_v2 p = node_params(d, function);
    CUgraphNode node = nullptr;
    r = cuda_.cuGraphAddKernelNode_(&node, g->graph, deps.data(), deps.size(), &p);
    g->nodes.push_back(node);
    g->functions.push_back(function);
    g->values.push_back(d.values);
  }
  const char* step = r == CUDA_SUCCESS ? "cuGraphInstantiateWithFlags" : "cuGraphAddKernelNode";
  if (r == CUDA_SUCCESS) r = cuda_.cuGraphInstantiateWithFlags_(&g->exec, g->graph, 0);
  if (r != CUDA_SUCCESS) {
    // Said once: a user of ACS_GRAPH=auto should see why no graph is ever built.
    log::print_once(log_level::warn, "graph:instantiate",
                    "graph replay: building a graph failed in {} (CUresult {}); such segments run call by call",
                    step, static_cast<int>(r));
    cuda_.cuGraphDestroy_(g->graph);
    return r;
  }
  *out = reinterpret_cast<graph_handle>(g.release());
  return CUDA_SUCCESS;
}

backend_status cuda_backend::graph_update(graph_handle exec, const graph_description& graph) {
  ACS_STAGE(graph_find);
  auto& g = *reinterpret_cast<cuda_graph*>(exec);
  if (graph.node_count != g.nodes.size()) return CUDA_ERROR_INVALID_VALUE;
  const bool listed = graph.listed;
  const std::size_t count = listed ? graph.changed_count : graph.node_count;
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t i = listed ? graph.changed[j] : j;
    if (i >= graph.node_count) return CUDA_ERROR_INVALID_VALUE;
    const detached_launch& d = launch_of(graph.kernels[i]);
    if (!listed && d.values == g.values[i]) continue;  // unchanged: the cheapest replay
    const CUDA_KERNEL_NODE_PARAMS_v2 p = node_params(d, g.functions[i]);  // same shape: same kernel
    if (const CUresult r = cuda_.cuGraphExecKernelNodeSetParams_(g.exec, g.nodes[i], &p); r != CUDA_SUCCESS) {
      log::print_once(log_level::warn, "graph:update",
                      "graph replay: updating a graph failed (CUresult {}); it is built again", static_cast<int>(r));
      return r;
    }
    if (!listed) g.values[i] = d.values;
  }
  ACS_STAGE(graph_update);
  return CUDA_SUCCESS;
}

std::size_t cuda_backend::graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) {
  auto& g = *reinterpret_cast<cuda_graph*>(exec);
  std::size_t n = 0;
  const bool same_shape = graph.node_count == g.values.size();  // else graph_update refuses it
  for (std::size_t i = 0; i < graph.node_count; ++i) {
    if (same_shape) {
      const detached_launch& d = launch_of(graph.kernels[i]);
      if (d.values == g.values[i]) continue;
      try {
        g.values[i] = d.values;  // the same kernel's: no allocation, unless its size differed
      } catch (...) {             // then any node may be out of date: every node is set
        g.values[i].clear();      // and compares unequal next time
        for (n = 0; n < graph.node_count; ++n) changed[n] = static_cast<std::uint32_t>(n);
        return n;
      }
    }
    changed[n++] = static_cast<std::uint32_t>(i);
  }
  return n;
}

backend_status cuda_backend::graph_launch(graph_handle exec, stream_handle stream) {
  ACS_STAGE(graph_join);
  const CUresult r = cuda_.cuGraphLaunch_(reinterpret_cast<cuda_graph*>(exec)->exec, reinterpret_cast<CUstream>(stream));
  ACS_STAGE(graph_launch);
  if (r != CUDA_SUCCESS) launch_conditions::call_failed(r);
  return r;
}

void cuda_backend::graph_destroy(graph_handle exec) noexcept {
  const std::unique_ptr<cuda_graph> g(reinterpret_cast<cuda_graph*>(exec));
  if (g->exec != nullptr) cuda_.cuGraphExecDestroy_(g->exec);
  cuda_.cuGraphDestroy_(g->graph);
}

void cuda_backend::release_detached(const void* kernel) noexcept {
  detached_.give(std::unique_ptr<detached_launch>(static_cast<detached_launch*>(const_cast<void*>(kernel))));
}

// One lock for the whole graph: issuing thread 0 releases a relayed graph's copies, which the
// application's thread takes again one launch at a time.
void cuda_backend::release_all_detached(const void* const* kernels, std::size_t n) noexcept {
  detached_.give_all(n, [kernels](std::size_t i) {
    return static_cast<detached_launch*>(const_cast<void*>(kernels[i]));
  });
}

}  // namespace acs
