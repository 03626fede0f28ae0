// Annotations expose parallelism that allocation inference cannot see: slices
// of one big allocation, each written by its own kernel. Inference sees every
// kernel write the same allocation and serializes them; declared sub-ranges
// let acs run them side by side. All three annotation styles are used:
//   phase 1, per launch:  out[k] = rmw(out[k], in[k])           acs::next_launch
//   phase 2, per scope:   mid[k] = fill(out[k]); mid[k] = rmw    acs::scope (two launches, one task)
//   phase 3, per kernel:  sums[k] = reduce(mid[k])               acs::register_kernel rule
// --style=annotated declares them; --style=inferred runs the same launches
// without any annotation. Both print the same checksums (stdout), with or
// without libacs.so; timings go to stderr as `acs-test:` lines.
#include <chrono>

#include "acs/acs.h"
#include "common.cuh"

namespace {

using acs_test::device_words;
using acs_test::mix32;

// sums[0] = an order-dependent hash of in[0..n): one thread, fixed order.
__global__ void reduce_kernel(std::uint32_t* sum, const std::uint32_t* in, int n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  std::uint32_t h = 0x811c9dc5u;
  for (int i = 0; i < n; ++i) h = mix32(h ^ in[i]);
  *sum = h;
}

void reduce_rule(acs::footprint& fp, std::uint32_t* sum, const std::uint32_t* in, int n) {
  fp.reads(in, static_cast<std::size_t>(n));
  fp.writes(sum, 1);
}

struct options {
  bool annotated = true;
  int slices = 8;
  int n = 1 << 14;  // words per slice
  int iters = 2000;
  int rounds = 3;
};

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  options o;
  const std::string style = acs_test::arg_value(argc, argv, "--style", "annotated");
  if (style != "annotated" && style != "inferred") {
    std::fprintf(stderr,
                 "usage: %s [--style=annotated|inferred] [--slices=N] [--n=N] [--iters=N] [--rounds=N]\n",
                 argv[0]);
    return 2;
  }
  o.annotated = style == "annotated";
  o.slices = static_cast<int>(acs_test::arg_long(argc, argv, "--slices", o.slices));
  o.n = static_cast<int>(acs_test::arg_long(argc, argv, "--n", o.n));
  o.iters = static_cast<int>(acs_test::arg_long(argc, argv, "--iters", o.iters));
  o.rounds = static_cast<int>(acs_test::arg_long(argc, argv, "--rounds", o.rounds));
  const std::size_t n = static_cast<std::size_t>(o.n);
  const std::size_t total = n * static_cast<std::size_t>(o.slices);

  // One allocation each: every kernel of a phase writes the same allocation.
  std::uint32_t* in = device_words(total);
  std::uint32_t* out = device_words(total);
  std::uint32_t* mid = device_words(total);
  std::uint32_t* sums = device_words(static_cast<std::size_t>(o.slices));
  cudaStream_t s;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  acs_test::fill(s, in, nullptr, static_cast<int>(total), 0x1234u);
  ACS_CHECK(cudaStreamSynchronize(s));

  if (o.annotated) {
    const acs_status st = acs::register_kernel(reduce_kernel, reduce_rule, ACS_EXACT);
    std::fprintf(stderr, "acs-test: register_status=%d\n", static_cast<int>(st));
  }

  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < o.rounds; ++r) {
    const auto salt = static_cast<std::uint32_t>(r * 977 + 1);
    for (int k = 0; k < o.slices; ++k) {
      std::uint32_t* o_k = out + static_cast<std::size_t>(k) * n;
      const std::uint32_t* in_k = in + static_cast<std::size_t>(k) * n;
      if (o.annotated)
        acs::next_launch(acs::reads(acs::elements(in_k, n), acs::elements(o_k, n)),
                         acs::writes(acs::elements(o_k, n)), ACS_EXACT);
      acs_test::rmw(s, o_k, in_k, nullptr, o.n, salt + static_cast<std::uint32_t>(k), o.iters);
    }
    for (int k = 0; k < o.slices; ++k) {
      const std::uint32_t* o_k = out + static_cast<std::size_t>(k) * n;
      std::uint32_t* m_k = mid + static_cast<std::size_t>(k) * n;
      auto phase2 = [&] {
        acs_test::fill(s, m_k, o_k, o.n, salt);
        acs_test::rmw(s, m_k, o_k, nullptr, o.n, salt ^ 0x55u, o.iters);
      };
      if (o.annotated) {
        const acs::scope task(acs::reads(acs::elements(o_k, n), acs::elements(m_k, n)),
                              acs::writes(acs::elements(m_k, n)), ACS_EXACT);
        phase2();
      } else {
        phase2();
      }
    }
    for (int k = 0; k < o.slices; ++k) {
      reduce_kernel<<<1, 32, 0, s>>>(sums + k, mid + static_cast<std::size_t>(k) * n, o.n);
      ACS_CHECK(cudaGetLastError());
    }
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "acs-test: style=%s elapsed_ms=%.3f kernels=%d\n", style.c_str(), ms,
               o.rounds * o.slices * 4);

  acs_test::print_device_words("out", out, total);
  acs_test::print_device_words("mid", mid, total);
  acs_test::print_device_words("sums", sums, static_cast<std::size_t>(o.slices));
  if (o.annotated) acs::unregister_kernel(reduce_kernel);
  ACS_CHECK(cudaStreamDestroy(s));
  for (void* p :
       {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(mid), static_cast<void*>(sums)})
    ACS_CHECK(cudaFree(p));
  return 0;
}
