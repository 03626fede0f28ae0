// Random DAG program: many small kernels on one stream, each reading and
// writing a random subset of buffers, launched through every launch path
// (<<<>>>, cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel with params
// or with a packed `extra` buffer, cuLaunchKernelEx). Prints every buffer.
//
//   dag_random --seed=N --kernels=N --buffers=N --n=N
//              --layout=separate|slices|base_index   buffers as own allocations,
//                                                    as slices of one, or as
//                                                    base pointer + index
//              --args=plain|struct                   pointers as parameters or
//                                                    inside a struct by value
//              --stream=blocking|nonblocking|legacy|per_thread
//              --api=mixed|chevron
//
// At the end it checks that the checksum is order-sensitive: the same program
// with one dependent pair swapped must give a different result, or the test
// could not see a reordering and fails.
#include <cstring>
#include <string>
#include <vector>

#include "common.cuh"
#include "driver_api.cuh"

using acs_test::rng;
using std::uint32_t;

namespace {

// One parameter layout shared by dag_kernel and dag_kernel_struct; also the
// packed buffer for cuLaunchKernel's `extra` (no tail padding: 48 bytes).
struct dag_args {
  uint32_t* w0;
  uint32_t* w1;
  const uint32_t* r0;
  const uint32_t* r1;
  int n;
  uint32_t salt;
  int iters;
  int tag;
};
static_assert(sizeof(dag_args) == 48);

struct dag_base_args {
  uint32_t* base;
  int w0, w1, r0, r1;  // slice indices, -1 for none
  int n;
  uint32_t salt;
  int iters;
  int tag;
};
static_assert(sizeof(dag_base_args) == 40);

__device__ void dag_body(const dag_args& a) {
  const auto n = static_cast<uint32_t>(a.n);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += gridDim.x * blockDim.x) {
    const auto u = static_cast<uint32_t>(i);
    uint32_t acc = a.w0[i] ^ a.salt ^ static_cast<uint32_t>(a.tag);
    if (a.w1) acc = acs_test::mix32(acc ^ a.w1[i]);
    if (a.r0) acc = acs_test::mix32(acc ^ a.r0[(u + (acc & 4095u)) % n]);
    if (a.r1) acc = acs_test::mix32(acc + a.r1[(u * 13u + (acc >> 20)) % n]);
    acc = acs_test::churn(acc, a.iters);
    a.w0[i] = acc;
    if (a.w1) a.w1[i] = acs_test::mix32(acc ^ 0x5bd1e995u);
  }
}

__global__ void dag_kernel(uint32_t* w0, uint32_t* w1, const uint32_t* r0, const uint32_t* r1, int n,
                           uint32_t salt, int iters, int tag) {
  dag_body(dag_args{w0, w1, r0, r1, n, salt, iters, tag});
}

__global__ void dag_kernel_struct(dag_args a) { dag_body(a); }

// The kernel sees only the base of one allocation: its footprint is hidden in
// the indices.
__global__ void dag_kernel_base(uint32_t* base, int w0, int w1, int r0, int r1, int n, uint32_t salt, int iters,
                                int tag) {
  auto slice = [&](int k) { return k < 0 ? nullptr : base + static_cast<size_t>(k) * static_cast<size_t>(n); };
  dag_body(dag_args{slice(w0), slice(w1), slice(r0), slice(r1), n, salt, iters, tag});
}

struct task {
  int w0, w1, r0, r1;
  uint32_t salt;
  int iters;
  int api;
};

enum launch_api {
  chevron,
  runtime_launch,
  runtime_launch_ex,
  driver_params,
  driver_extra,
  driver_ex,
  api_count
};
const char* const api_names[api_count] = {"<<<>>>",
                                          "cudaLaunchKernel",
                                          "cudaLaunchKernelExC",
                                          "cuLaunchKernel(params)",
                                          "cuLaunchKernel(extra)",
                                          "cuLaunchKernelEx"};

struct config {
  unsigned long seed;
  int kernels, buffers, n;
  std::string layout, args, stream, api;
};

bool conflict(const task& a, const task& b) {
  auto writes = [](const task& t, int k) { return k >= 0 && (t.w0 == k || t.w1 == k); };
  auto touches = [&](const task& t, int k) { return k >= 0 && (writes(t, k) || t.r0 == k || t.r1 == k); };
  for (int k : {a.w0, a.w1})
    if (touches(b, k)) return true;
  for (int k : {b.w0, b.w1})
    if (touches(a, k)) return true;
  return false;
}

std::vector<task> make_program(const config& c) {
  rng g(c.seed);
  const int iters_choice[] = {20, 100, 400, 1500, 4000};
  std::vector<task> p;
  for (int i = 0; i < c.kernels; ++i) {
    task t{};
    std::vector<int> pool(static_cast<size_t>(c.buffers));
    for (int k = 0; k < c.buffers; ++k) pool[static_cast<size_t>(k)] = k;
    auto take = [&]() {
      const auto j = g.below(static_cast<uint32_t>(pool.size()));
      const int k = pool[j];
      pool.erase(pool.begin() + j);
      return k;
    };
    t.w0 = take();
    t.w1 = g.below(4) == 0 ? take() : -1;
    t.r0 = g.below(4) != 0 ? take() : -1;
    t.r1 = (t.r0 >= 0 && g.below(2) == 0) ? take() : -1;
    t.salt = static_cast<uint32_t>(g.next());
    t.iters = iters_choice[g.below(5)];
    t.api = c.api == "mixed" ? static_cast<int>(g.below(api_count)) : chevron;
    p.push_back(t);
  }
  return p;
}

struct state {
  config c;
  cudaStream_t stream = nullptr;
  std::vector<uint32_t*> buf;  // one pointer per buffer (a slice for slices/base_index)
  uint32_t* base = nullptr;    // the single allocation for slices/base_index
  std::vector<void*> owned;
};

cudaError_t launch(const state& s, const task& t, int tag) {
  const auto& drv = acs_test::driver_api::get();
  const dim3 grid(acs_test::small_grid), block(acs_test::small_block);
  const bool use_base = s.c.layout == "base_index";
  const bool use_struct = !use_base && s.c.args == "struct";
  auto ptr = [&](int k) { return k < 0 ? nullptr : s.buf[static_cast<size_t>(k)]; };

  dag_args a{ptr(t.w0), ptr(t.w1), ptr(t.r0), ptr(t.r1), s.c.n, t.salt, t.iters, tag};
  dag_base_args b{s.base, t.w0, t.w1, t.r0, t.r1, s.c.n, t.salt, t.iters, tag};

  const void* fn = use_base     ? reinterpret_cast<const void*>(&dag_kernel_base)
                   : use_struct ? reinterpret_cast<const void*>(&dag_kernel_struct)
                                : reinterpret_cast<const void*>(&dag_kernel);
  void* plain_params[] = {&a.w0, &a.w1, &a.r0, &a.r1, &a.n, &a.salt, &a.iters, &a.tag};
  void* struct_params[] = {&a};
  void* base_params[] = {&b.base, &b.w0, &b.w1, &b.r0, &b.r1, &b.n, &b.salt, &b.iters, &b.tag};
  void** params = use_base ? base_params : use_struct ? struct_params : plain_params;
  void* packed = use_base ? static_cast<void*>(&b) : static_cast<void*>(&a);
  size_t packed_size = use_base ? sizeof(b) : sizeof(a);

  switch (t.api) {
    case chevron:
      if (use_base)
        dag_kernel_base<<<grid, block, 0, s.stream>>>(b.base, b.w0, b.w1, b.r0, b.r1, b.n, b.salt, b.iters,
                                                      b.tag);
      else if (use_struct)
        dag_kernel_struct<<<grid, block, 0, s.stream>>>(a);
      else
        dag_kernel<<<grid, block, 0, s.stream>>>(a.w0, a.w1, a.r0, a.r1, a.n, a.salt, a.iters, a.tag);
      return cudaGetLastError();
    case runtime_launch:
      return cudaLaunchKernel(fn, grid, block, params, 0, s.stream);
    case runtime_launch_ex: {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = grid;
      cfg.blockDim = block;
      cfg.stream = s.stream;
      return cudaLaunchKernelExC(&cfg, fn, params);
    }
    case driver_params:
    case driver_extra:
    case driver_ex: {
      CUfunction f = acs_test::cu_function(fn);
      void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                       CU_LAUNCH_PARAM_END};
      CUresult r;
      if (t.api == driver_ex) {
        CUlaunchConfig cfg{};
        cfg.gridDimX = grid.x, cfg.gridDimY = 1, cfg.gridDimZ = 1;
        cfg.blockDimX = block.x, cfg.blockDimY = 1, cfg.blockDimZ = 1;
        cfg.hStream = reinterpret_cast<CUstream>(s.stream);
        r = drv.launch_kernel_ex(&cfg, f, params, nullptr);
      } else {
        r = drv.launch_kernel(f, grid.x, 1, 1, block.x, 1, 1, 0, reinterpret_cast<CUstream>(s.stream),
                              t.api == driver_params ? params : nullptr,
                              t.api == driver_extra ? extra : nullptr);
      }
      if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "FAILED: %s returned %s\n", api_names[t.api], drv.name(r));
        std::exit(1);
      }
      return cudaSuccess;
    }
    default:
      return cudaErrorInvalidValue;
  }
}

void reset(const state& s) {
  std::vector<uint32_t> h(static_cast<size_t>(s.c.n));
  for (int k = 0; k < s.c.buffers; ++k) {
    for (int i = 0; i < s.c.n; ++i)
      h[static_cast<size_t>(i)] =
          acs_test::mix32(static_cast<uint32_t>(k * 1000003 + i) ^ static_cast<uint32_t>(s.c.seed));
    // Synchronous copy after a device sync: starts every run from a known state.
    ACS_CHECK(cudaDeviceSynchronize());
    ACS_CHECK(cudaMemcpy(s.buf[static_cast<size_t>(k)], h.data(), h.size() * sizeof(uint32_t),
                         cudaMemcpyHostToDevice));
  }
  ACS_CHECK(cudaDeviceSynchronize());
}

std::vector<std::vector<uint32_t>> run(const state& s, const std::vector<task>& program) {
  reset(s);
  int tag = 0;
  for (const task& t : program) ACS_CHECK(launch(s, t, tag++));
  ACS_CHECK(cudaStreamSynchronize(s.stream));
  std::vector<std::vector<uint32_t>> out;
  for (int k = 0; k < s.c.buffers; ++k) {
    std::vector<uint32_t> h(static_cast<size_t>(s.c.n));
    ACS_CHECK(cudaMemcpy(h.data(), s.buf[static_cast<size_t>(k)], h.size() * sizeof(uint32_t),
                         cudaMemcpyDeviceToHost));
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  config c{static_cast<unsigned long>(acs_test::arg_long(argc, argv, "--seed", 1)),
           static_cast<int>(acs_test::arg_long(argc, argv, "--kernels", 240)),
           static_cast<int>(acs_test::arg_long(argc, argv, "--buffers", 8)),
           static_cast<int>(acs_test::arg_long(argc, argv, "--n", 4096)),
           acs_test::arg_value(argc, argv, "--layout", "separate"),
           acs_test::arg_value(argc, argv, "--args", "plain"),
           acs_test::arg_value(argc, argv, "--stream", "nonblocking"),
           acs_test::arg_value(argc, argv, "--api", "mixed")};
  if (c.buffers < 4) c.buffers = 4;

  state s;
  s.c = c;
  if (c.stream == "blocking")
    ACS_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamDefault));
  else if (c.stream == "nonblocking")
    ACS_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  else if (c.stream == "legacy")
    s.stream = cudaStreamLegacy;
  else if (c.stream == "per_thread")
    s.stream = cudaStreamPerThread;
  else {
    std::fprintf(stderr, "FAILED: unknown --stream=%s\n", c.stream.c_str());
    return 1;
  }

  const size_t n = static_cast<size_t>(c.n);
  if (c.layout == "separate") {
    for (int k = 0; k < c.buffers; ++k) {
      s.buf.push_back(acs_test::device_words(n));
      s.owned.push_back(s.buf.back());
    }
  } else if (c.layout == "slices" || c.layout == "base_index") {
    s.base = acs_test::device_words(n * static_cast<size_t>(c.buffers));
    s.owned.push_back(s.base);
    for (int k = 0; k < c.buffers; ++k) s.buf.push_back(s.base + static_cast<size_t>(k) * n);
  } else {
    std::fprintf(stderr, "FAILED: unknown --layout=%s\n", c.layout.c_str());
    return 1;
  }

  const std::vector<task> program = make_program(c);
  std::printf("dag seed=%lu kernels=%d buffers=%d n=%d layout=%s args=%s stream=%s api=%s\n", c.seed, c.kernels,
              c.buffers, c.n, c.layout.c_str(), c.args.c_str(), c.stream.c_str(), c.api.c_str());
  const auto out = run(s, program);
  for (int k = 0; k < c.buffers; ++k) {
    const std::string name = "buffer" + std::to_string(k);
    acs_test::print_words(name.c_str(), out[static_cast<size_t>(k)].data(), n);
  }

  // Self-check: swapping the first adjacent dependent pair must change the output.
  size_t pair = 0;
  while (pair + 1 < program.size() && !conflict(program[pair], program[pair + 1])) ++pair;
  if (pair + 1 >= program.size()) {
    std::printf("order-sensitivity: no dependent pair in this program\n");
    std::fprintf(stderr, "FAILED: program has no dependent pair; choose other parameters\n");
    return 1;
  }
  std::vector<task> swapped = program;
  std::swap(swapped[pair], swapped[pair + 1]);
  const bool differs = run(s, swapped) != out;
  std::printf("order-sensitivity: swapping kernels %zu and %zu %s the output\n", pair, pair + 1,
              differs ? "changes" : "does NOT change");
  if (!differs) {
    std::fprintf(stderr, "FAILED: output is not sensitive to kernel order\n");
    return 1;
  }

  for (void* p : s.owned) ACS_CHECK(cudaFree(p));
  if (c.stream == "blocking" || c.stream == "nonblocking") ACS_CHECK(cudaStreamDestroy(s.stream));
  ACS_CHECK(cudaGetLastError());
  std::printf("last-error: cudaSuccess\n");
  return 0;
}
