// Writes tests/data/trace_small.json: a trace made by acs's own JSON writer
// from SYNTHETIC records, standing in for a recorded one until a trace from
// the GPU machine replaces it. Usage: acs_make_sample_trace OUTPUT.json
//
// The program it imitates, on one device with 8 pool streams:
//   stream 7 (application stream A): an 8 MiB upload and a memset, then a
//     fan-out of 12 independent kernels, a fan-in over all of them, a
//     reduction after the fan-in, and a download;
//   stream 8 (application stream B): a chain of 5 dependent kernels, then a
//     library GEMM that acs passed through (it runs on stream 8 itself).
// GPU times follow from a simple model: a kernel starts 6 µs after its launch,
// once its pool stream is free and everything it waits for has ended.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "synthetic_trace.hpp"
#include "src/trace/join.hpp"
#include "src/trace/json.hpp"
#include "src/trace/measure.hpp"

using namespace acs::trace;
using acs::trace::testing::launch;
using acs::trace::testing::synthetic;

namespace {

constexpr std::uint64_t us = 1000;
constexpr std::uint64_t t0 = 1'700'000'000'000'000;  // an arbitrary CUPTI timestamp
constexpr std::uint32_t pool_streams = 8;
constexpr std::uint32_t first_pool_stream_id = 13;  // CUPTI stream ids of the pool
constexpr std::uintptr_t stream_a = 0x55d4c3a0e010, stream_b = 0x55d4c3a0e4f0;

struct model {
  synthetic t;
  std::uint64_t host = t0;  // the launching thread's clock
  std::uint64_t next_id = 1;
  std::uint64_t pool_free[pool_streams] = {};
  std::vector<std::uint64_t> end_of = {0};  // by launch id
  std::vector<std::uint32_t> pool_of = {0};
  std::uint64_t seed = 12345;

  std::uint64_t jitter(std::uint64_t lo, std::uint64_t hi) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (seed >> 33) % (hi - lo + 1);
  }

  unsigned in_flight(std::uint64_t at) const {
    unsigned n = 0;
    for (std::size_t i = 1; i < end_of.size(); ++i) n += end_of[i] > at;
    return n;
  }

  // Dispatches a kernel: behind its single producer on the same pool stream,
  // else on the pool stream that frees first.
  std::uint64_t dispatch(const std::string& name, std::uintptr_t vstream, std::vector<std::uint64_t> waits,
                         std::uint64_t duration) {
    host += jitter(4 * us, 6 * us);
    std::uint32_t pool = 0;
    if (waits.size() == 1) {
      pool = pool_of[waits[0]];
    } else {
      for (std::uint32_t p = 1; p < pool_streams; ++p)
        if (pool_free[p] < pool_free[pool]) pool = p;
    }
    std::uint64_t start = std::max(host + 6 * us, pool_free[pool]);
    for (const std::uint64_t w : waits) start = std::max(start, end_of[w]);
    const std::uint64_t end = start + duration;
    const std::uint64_t id = next_id++;
    launch l{.id = id,
             .pool = pool,
             .stream = first_pool_stream_id + pool,
             .vstream = vstream,
             .waits = std::move(waits),
             .window = in_flight(host) + 1,
             .host_ns = host};
    t.dispatched(name, l, start, end);
    pool_free[pool] = end;
    end_of.push_back(end);
    pool_of.push_back(pool);
    return id;
  }

  std::uint64_t last_end() const { return *std::max_element(end_of.begin(), end_of.end()); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.json\n", argv[0]);
    return 2;
  }
  model m;
  m.t.copy(copy_kind::memcpy, "memcpy HtoD", 0, 7, t0 + 2 * us, t0 + 337 * us, 8u << 20);
  m.t.copy(copy_kind::memset, "memset", 0, 7, t0 + 338 * us, t0 + 341 * us, 4u << 20);
  m.host = t0 + 342 * us;

  std::vector<std::uint64_t> fan_out;
  std::uint64_t chain = 0;
  for (int k = 0; k < 12; ++k) {
    fan_out.push_back(m.dispatch("_Z9timed_rmwPjPKjS1_jiyPy", stream_a, {}, m.jitter(80 * us, 140 * us)));
    if (k % 2 == 1 && k < 10) {  // stream B's chain, interleaved by another thread
      chain = m.dispatch("_Z10chain_stepPfPKfi", stream_b,
                         chain == 0 ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{chain},
                         m.jitter(40 * us, 60 * us));
    }
  }
  const std::uint64_t fan_in = m.dispatch("_Z6fan_inPj11fan_in_argsPy", stream_a, fan_out, 30 * us);
  m.dispatch("_ZN5layer6reduceILi256EfEEvPKT0_PS1_i", stream_a, {fan_in}, 45 * us);

  // The library GEMM on stream B: stream B had joined its chain, so it follows it.
  const std::uint64_t gemm_start = m.end_of[chain] + 3 * us;
  m.t.direct(
      "sm90_xmma_gemm_f32f32_tf32f32_f32_nt_n_tilesize128x128x32_warpgroupsize1x1x1_execute_kernel__5x_"
      "cublas",
      0, 8, gemm_start, gemm_start + 95 * us);
  const std::uint64_t all_done = std::max(m.last_end(), gemm_start + 95 * us);
  m.t.copy(copy_kind::memcpy, "memcpy DtoH", 0, 7, all_done + 4 * us, all_done + 50 * us, 1u << 20);

  const trace_view view = join(m.t.data);
  const measured figures = measure(view);
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  bool ok = true;
  write_chrome_trace(view, &figures,
                     {"synthetic: written by tests/trace/make_sample_trace from synthetic records (no GPU); "
                      "stands in for a trace recorded on the GPU machine"},
                     [&](std::string_view chunk) {
                       ok = ok && std::fwrite(chunk.data(), 1, chunk.size(), out) == chunk.size();
                     });
  ok = std::fclose(out) == 0 && ok;
  std::printf("%s: %zu kernels, achieved concurrency %.2f, busy %.0f%%\n", argv[1], m.t.data.kernels.size(),
              figures.achieved_concurrency, 100 * figures.busy_fraction);
  return ok ? 0 : 1;
}
