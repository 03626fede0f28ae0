// Whether the driver's update of an executable graph scales over threads: the question behind
// issue 16's last replay target. Where every node of a replayed segment changes (a scalar such as
// a step count), acs's issuing thread 0 sets each node's arguments (cudaGraphExecKernelNodeSetParams)
// and launches the graph. A replayed launch then cost the application 0.55-0.61 µs on an H100,
// against 0.35-0.38 where nothing changes (README, "Host time per replayed launch"), and about
// 0.4 µs of that thread's time per node set suggests that it, not the application's thread, sets
// the pace (not shown yet). If so, two executables per segment, updated by two threads in turn,
// could halve it, provided the driver lets updates of distinct executables run side by side.
// This program measures that part, natively, with E executables of K independent tiny kernels
// each (a segment's graph):
//
//   update_serial    one thread sets every node of every executable (a new scalar each round);
//   update_parallel  E threads, each setting every node of its own executable, side by side;
//   replay_serial    one thread: set every node of executable e, launch it, for e = 0..E-1;
//   replay_threads   E threads: thread e sets its executable's nodes, then launches it on the one
//                    stream after thread e-1's launch of the round (the stream's order kept).
//
// Rows: "row=NAME ns_per_node=X" (wall time of R rounds / (R * E * K)): where update_parallel is
// well below update_serial, updates of distinct executables scale; replay_threads against
// replay_serial says what the launch order leaves of it. A checksum of the buffers last (every
// round's kernels add to them; equal in every row's process).
//
//   graph_update_threads [--kernels K] [--graphs E] [--rounds R] [--warmup N]
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

__global__ void bump(float* p, float v) { p[threadIdx.x] = p[threadIdx.x] * 0.5f + v; }

namespace {

// One executable of K independent kernel nodes, each on a buffer of its own, and what it takes to
// set a node's arguments again.
struct segment_graph {
  std::vector<float*> buffers;
  std::vector<cudaGraphNode_t> nodes;
  std::vector<float> values;  // node i's scalar, pointed at by its parameters
  std::vector<void*> params;  // 2 per node: &buffers[i], &values[i]
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  explicit segment_graph(int kernels)
      : buffers(static_cast<std::size_t>(kernels)), nodes(buffers.size()), values(buffers.size(), 0.25f),
        params(2 * buffers.size()) {
    CHECK(cudaGraphCreate(&graph, 0));
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      CHECK(cudaMalloc(&buffers[i], 32 * sizeof(float)));
      CHECK(cudaMemset(buffers[i], 0, 32 * sizeof(float)));
      params[2 * i] = &buffers[i];
      params[2 * i + 1] = &values[i];
      const cudaKernelNodeParams p = node_params(i);
      CHECK(cudaGraphAddKernelNode(&nodes[i], graph, nullptr, 0, &p));
    }
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
  }
  ~segment_graph() {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    for (float* b : buffers) cudaFree(b);
  }
  segment_graph(const segment_graph&) = delete;
  segment_graph& operator=(const segment_graph&) = delete;

  cudaKernelNodeParams node_params(std::size_t i) {
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(bump);
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = &params[2 * i];
    return p;
  }
  // Every node's scalar set to `v`: one driver call per node, as acs's update of a changed node.
  void update(float v) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      values[i] = v;
      const cudaKernelNodeParams p = node_params(i);
      CHECK(cudaGraphExecKernelNodeSetParams(exec, nodes[i], &p));
    }
  }
};

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int kernels = 64, graphs = 2, rounds = 200, warmup = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernels")) kernels = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--graphs")) graphs = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--warmup")) warmup = std::atoi(argv[++i]);
  }
  if (kernels < 1 || graphs < 1 || graphs > 16 || rounds < 1 || warmup < 0) {
    std::fprintf(stderr, "graph_update_threads: --kernels, --rounds >= 1, --graphs 1..16, --warmup >= 0\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  CHECK(cudaSetDevice(0));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::unique_ptr<segment_graph>> g;
  for (int e = 0; e < graphs; ++e) g.push_back(std::make_unique<segment_graph>(kernels));
  const double nodes_per_round = static_cast<double>(graphs) * kernels;
  // Round r's scalar: each round changes every node, as a step count does.
  const auto value_of = [](int r) { return 0.001f * static_cast<float>(r % 1000); };
  const auto row = [&](const char* name, const std::function<void(int first, int count)>& run) {
    run(0, warmup);
    CHECK(cudaStreamSynchronize(stream));
    const double s = seconds_of([&] { run(warmup, rounds); });
    CHECK(cudaStreamSynchronize(stream));
    std::printf("row=%s ns_per_node=%.1f\n", name, s * 1e9 / (rounds * nodes_per_round));
  };
  // E threads, thread e updating executable e for the rounds given; `launch`: and launching it, after
  // thread e-1's launch of the round (a ticket), so that the stream sees the executables in turn.
  const auto on_threads = [&](int first, int count, bool launch) {
    std::atomic<long> ticket{0};
    std::vector<std::thread> threads;
    for (int e = 0; e < graphs; ++e)
      threads.emplace_back([&, e] {
        CHECK(cudaSetDevice(0));
        for (int r = first; r < first + count; ++r) {
          g[static_cast<std::size_t>(e)]->update(value_of(r));
          if (!launch) continue;
          const long mine = static_cast<long>(r - first) * graphs + e;
          while (ticket.load(std::memory_order_acquire) != mine) std::this_thread::yield();
          CHECK(cudaGraphLaunch(g[static_cast<std::size_t>(e)]->exec, stream));
          ticket.store(mine + 1, std::memory_order_release);
        }
      });
    for (std::thread& t : threads) t.join();
  };
  row("update_serial", [&](int first, int count) {
    for (int r = first; r < first + count; ++r)
      for (auto& x : g) x->update(value_of(r));
  });
  row("update_parallel", [&](int first, int count) { on_threads(first, count, false); });
  row("replay_serial", [&](int first, int count) {
    for (int r = first; r < first + count; ++r)
      for (auto& x : g) {
        x->update(value_of(r));
        CHECK(cudaGraphLaunch(x->exec, stream));
      }
  });
  row("replay_threads", [&](int first, int count) { on_threads(first, count, true); });
  CHECK(cudaGetLastError());
  unsigned long long h = 1469598103934665603ull;
  for (auto& x : g) h = fold_buffers(x->buffers, h);
  std::printf("checksum=%016llx\n", h);
  return 0;
}
