// Host time per launch on the application's thread where graph replay applies (issue 16's
// "host µs per replayed launch, <= 0.5 µs, acs's decision included"): a loop body of K
// independent tiny kernels, each on a buffer of its own, then a stream sync, repeated. Natively
// each launch is a driver call; under ACS_GRAPH=auto the body recurs, so from its second
// occurrence acs holds its launches and launches them as one graph at the sync (or at the K-th
// kernel, if K >= ACS_GRAPH_KERNELS). Run it natively and under the preload with and without
// graphs (scripts/replay_overhead.sh interleaves the three).
//
// Rows ("row=NAME host_ns=X iteration_us=Y"):
//   same     every body launches the same kernels with the same arguments (a replay, no update);
//   update   one scalar argument changes every body (every node of the graph is updated);
//   fresh    every launch asks another dynamic shared memory size (unused by the kernel), so no
//            segment recurs: what looking for recurrence costs where nothing recurs (under
//            ACS_GRAPH=auto, sampled after 32 barren segments: ACS_GRAPH_SAMPLE);
//   captured the body captured once as the program's own CUDA graph and launched whole: the floor
//            that a replay's graph launch can reach (one stream: a chain of K nodes);
//   wide     the body built as a graph of K independent kernel nodes (the shape acs's replay
//            launches here: no conflict between them) and launched whole;
//   rooted   the same, every kernel node after one empty node;
//   chains8  the same kernels as 8 chains of K/8 nodes;
//   layered8 the same 8 chains, each node also after the next chain's node before it;
// host_ns: the launch loop's time / K (the sync outside it); iteration_us: launches and sync.
// Medians over the timed bodies of each rep, then over reps. A checksum of the buffers last.
//
//   replay_overhead [--kernels K] [--bodies N] [--warmup N] [--reps R] [--only ROW]
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

__global__ void bump(float* p, float v) { p[threadIdx.x] = p[threadIdx.x] * 0.5f + v; }

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int kernels = 64, bodies = 200, warmup = 100, reps = 5;
  const char* only = nullptr;  // one row (a profile of one path), or all
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernels")) kernels = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--bodies")) bodies = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--warmup")) warmup = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--only")) only = argv[++i];
  }
  if (kernels < 1 || bodies < 1 || warmup < 0 || reps < 1) {
    std::fprintf(stderr, "replay_overhead: --kernels, --bodies, --reps must be >= 1, --warmup >= 0\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // One allocation per kernel: independent whatever the footprint's precision.
  std::vector<float*> buffers(static_cast<std::size_t>(kernels));
  for (float*& b : buffers) {
    CHECK(cudaMalloc(&b, 32 * sizeof(float)));
    CHECK(cudaMemset(b, 0, 32 * sizeof(float)));
  }
  CHECK(cudaDeviceSynchronize());
  // Times `body(b)` (it enqueues body b, -warmup <= b < bodies) and the sync after it; prints the
  // row: the medians over each rep's timed bodies, then over reps.
  const auto row = [&](const char* name, const std::function<void(int)>& body) {
    if (only != nullptr && std::strcmp(only, name) != 0) return;
    std::vector<double> host_per_rep, iteration_per_rep;
    for (int r = 0; r < reps; ++r) {
      std::vector<double> host, iteration;
      for (int b = -warmup; b < bodies; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        body(b);
        const auto t1 = std::chrono::steady_clock::now();
        CHECK(cudaStreamSynchronize(s));
        const auto t2 = std::chrono::steady_clock::now();
        if (b < 0) continue;
        host.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kernels);
        iteration.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
      }
      host_per_rep.push_back(median(host));
      iteration_per_rep.push_back(median(iteration));
    }
    std::printf("row=%s host_ns=%.1f iteration_us=%.2f\n", name, median(host_per_rep), median(iteration_per_rep));
  };
  const auto launches = [&](float v) {
    for (int k = 0; k < kernels; ++k) bump<<<1, 32, 0, s>>>(buffers[static_cast<std::size_t>(k)], v);
  };
  row("same", [&](int) { launches(0.25f); });
  row("update", [&](int b) { launches(0.001f * static_cast<float>((b + warmup) % 1000)); });
  unsigned fresh = 0;  // launches so far in the row `fresh`: the next one's shared memory size
  row("fresh", [&](int) {
    for (int k = 0; k < kernels; ++k)
      bump<<<1, 32, 16 * (fresh++ % 997), s>>>(buffers[static_cast<std::size_t>(k)], 0.25f);
  });
  // The floor: the same body captured once as the program's own CUDA graph, then launched whole
  // per body (host_ns: cudaGraphLaunch's time / K). Under the preload it passes through.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  launches(0.25f);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  row("captured", [&](int) { CHECK(cudaGraphLaunch(exec, s)); });
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  // The same kernels as nodes of a graph built by hand, launched whole: what the driver's launch
  // costs for a graph of the shape acs's replay builds here (no conflict: K root nodes), for one
  // whose K kernels all follow a single empty node, and for 8 chains of K/8.
  std::vector<float*> args(buffers);
  float value = 0.25f;
  std::vector<void*> params(2 * static_cast<std::size_t>(kernels));
  const auto built = [&](const char* name, int chains, bool rooted, bool crossed = false) {
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t root = nullptr;
    if (rooted) CHECK(cudaGraphAddEmptyNode(&root, graph, nullptr, 0));
    std::vector<cudaGraphNode_t> nodes(static_cast<std::size_t>(kernels));
    for (int k = 0; k < kernels; ++k) {
      const std::size_t i = static_cast<std::size_t>(k);
      params[2 * i] = &args[i];
      params[2 * i + 1] = &value;
      cudaKernelNodeParams p{};
      p.func = reinterpret_cast<void*>(bump);
      p.gridDim = dim3(1);
      p.blockDim = dim3(32);
      p.kernelParams = &params[2 * i];
      // After the node before it on its chain, and (crossed) the next chain's node before that.
      std::vector<cudaGraphNode_t> deps;
      if (k >= chains) {
        deps.push_back(nodes[i - static_cast<std::size_t>(chains)]);
        const int layer_before = (k / chains - 1) * chains;
        if (crossed && chains > 1) deps.push_back(nodes[static_cast<std::size_t>(layer_before + (k % chains + 1) % chains)]);
      } else if (rooted) {
        deps.push_back(root);
      }
      CHECK(cudaGraphAddKernelNode(&nodes[i], graph, deps.data(), deps.size(), &p));
    }
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    row(name, [&](int) { CHECK(cudaGraphLaunch(exec, s)); });
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  };
  built("wide", kernels, false);
  built("rooted", kernels, true);
  built("chains8", std::min(8, kernels), false);
  built("layered8", std::min(8, kernels), false, true);
  CHECK(cudaGetLastError());
  // The buffers' bytes, for the script's identical-output check.
  std::printf("checksum=%016llx\n", fold_buffers(buffers));
  return 0;
}
