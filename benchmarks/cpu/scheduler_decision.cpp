// Host time of one scheduling decision: dependency check against the window,
// stream choice, bookkeeping and retire/fold, on a backend whose calls cost
// nothing. The ACS paper measured 510 ns per decision; our goal is 150 ns at
// window 32 with 6 ranges per kernel. `decision` launches on one application
// stream, as the sample and the DRL benchmarks do; `decision_streams` round-robin
// on several, whose pool streams must stay apart (docs/design.md rule 12).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "scheduler/scheduler.hpp"

namespace {

class null_backend final : public acs::backend {
 public:
  acs::backend_status create_stream(acs::stream_handle* out) override {
    *out = ++next_;
    return 0;
  }
  acs::backend_status create_event(acs::event_handle* out) override {
    *out = ++next_;
    return 0;
  }
  acs::backend_status record_event(acs::event_handle, acs::stream_handle) override { return 0; }
  acs::backend_status wait_event(acs::stream_handle, acs::event_handle) override { return 0; }
  // The GPU keeps up: work two windows old has finished when asked.
  acs::event_state query_event(acs::event_handle) override { return acs::event_state::complete; }
  acs::backend_status synchronize(acs::stream_handle) override { return 0; }
  acs::backend_status launch(const void*, acs::stream_handle) override { return 0; }
  void destroy_stream(acs::stream_handle) noexcept override {}
  void destroy_event(acs::event_handle) noexcept override {}

 private:
  std::uintptr_t next_ = 0;
};

// Kernels over `buffers` buffers of 1 MiB, each touching `ranges` sub-ranges
// (half read, half written). With 1024 buffers a launch depends on a few
// recent ones, the mix of a wide DAG; with 64 nearly every launch depends on
// several: the dense worst case.
std::vector<acs::access_set> make_kernels(int ranges, int buffers, std::size_t count) {
  std::mt19937_64 rng(42);
  constexpr acs::address base = 0x7f0000000000;
  constexpr std::uint64_t buffer = 1 << 20;
  std::uniform_int_distribution<int> pick_buffer(0, buffers - 1);
  std::uniform_int_distribution<std::uint64_t> offset(0, buffer / 2);
  std::uniform_int_distribution<std::uint64_t> length(256, buffer / 2);
  std::vector<acs::access_set> kernels(count);
  for (acs::access_set& k : kernels) {
    for (int r = 0; r < ranges; ++r) {
      const acs::address start = base + static_cast<acs::address>(pick_buffer(rng)) * buffer + offset(rng);
      if (r % 2 == 0) k.read(start, length(rng));
      else k.write(start, length(rng));
    }
  }
  return kernels;
}

void run_decisions(benchmark::State& state, unsigned window, int ranges, int buffers, unsigned app_streams) {
  null_backend gpu;
  acs::scheduler sched(gpu, {window, 16});
  std::vector<acs::virtual_stream> streams;
  for (std::uintptr_t v = 1; v <= app_streams; ++v) streams.push_back({v, v, acs::stream_kind::non_blocking});
  // Kernel i goes to application stream i % app_streams: no division in the timed loop.
  std::vector<std::uint8_t> stream_of(4096);
  for (std::size_t i = 0; i < stream_of.size(); ++i) stream_of[i] = static_cast<std::uint8_t>(i % app_streams);
  const std::vector<acs::access_set> kernels = make_kernels(ranges, buffers, 4096);
  std::size_t i = 0;
  for (std::size_t k = 0; k < 2 * window; ++k) sched.launch(streams[stream_of[k]], kernels[k], nullptr);  // fill the window
  for (auto _ : state) {
    benchmark::DoNotOptimize(sched.launch(streams[stream_of[i]], kernels[i], nullptr));
    i = (i + 1) & 4095;
  }
  const acs::scheduler_stats s = sched.stats();
  const auto launched = static_cast<double>(s.kernels);
  state.counters["dependent"] = static_cast<double>(s.kernels - s.independent) / launched;
  state.counters["waits"] = static_cast<double>(s.dependency_waits) / launched;
}

void decision(benchmark::State& state) {
  run_decisions(state, static_cast<unsigned>(state.range(0)), static_cast<int>(state.range(1)),
                static_cast<int>(state.range(2)), 1);
}

void decision_streams(benchmark::State& state) {
  run_decisions(state, static_cast<unsigned>(state.range(0)), static_cast<int>(state.range(1)),
                static_cast<int>(state.range(2)), static_cast<unsigned>(state.range(3)));
}

BENCHMARK(decision_streams)
    ->ArgNames({"window", "ranges", "buffers", "streams"})
    ->ArgsProduct({{32}, {2, 6}, {1024}, {2, 4}})
    ->Unit(benchmark::kNanosecond);

BENCHMARK(decision)
    ->ArgNames({"window", "ranges", "buffers"})
    ->ArgsProduct({{16, 32, 64}, {2, 6, 10}, {1024, 64}})
    ->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
