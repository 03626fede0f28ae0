// Host time of one inferred footprint (annotations/inferred/inference.hpp) for argument blocks
// shaped like PyTorch's kernels: an elementwise kernel with offset calculators (sizes and strides
// as 32-bit pairs, which look like addresses) and multi_tensor_apply's tensor lists (kilobytes of
// words). Each plausible word in no known allocation asks the pointer probe, which on a GPU is a
// driver call (cuPointerGetAttributes): the `probes` counter is how many one footprint makes.
// The probe here is free, so the times are what acs spends on top of those driver calls.
//
// `no_code`: ACS_NO_PTX=everything (the default) for a kernel without PTX, PyTorch's case;
// `arguments`: ACS_NO_PTX=arguments, the same words read.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "annotations/inferred/allocation_map.hpp"
#include "annotations/inferred/inference.hpp"
#include "annotations/inferred/param_layout.hpp"

namespace {

using acs::access_set;
using acs::address;
using acs::allocation_map;
using namespace acs::inference;

class counting_probe final : public pointer_probe {
 public:
  std::uint64_t calls = 0;
  bool is_device_pointer(address) noexcept override {
    ++calls;
    return false;
  }
};

constexpr address segment = 0x7f20'0000'0000;  // one 2 MiB segment of the caching allocator

struct launch_shape {
  param_layout layout;
  std::vector<std::uint64_t> words;  // the parameter buffer, 8-byte words
  std::vector<void*> params;
};

// elementwise: (int n, functor, Array<char*, 3> data, OffsetCalculator in, OffsetCalculator out),
// each calculator 25 dimensions of (size, stride) 32-bit pairs.
launch_shape elementwise() {
  launch_shape s;
  s.words = {4096, 0, segment, segment + 0x4000, segment + 0x8000};
  for (int calc = 0; calc < 2; ++calc)
    for (std::uint64_t d = 0; d < 25; ++d) s.words.push_back((d + 1) << 32 | (64u << d % 6));
  s.layout = {{0, 8}, {8, 8}, {16, 24}, {40, 200}, {240, 200}};
  return s;
}

// multi_tensor_apply<2>: addresses[2][110], then sizes and block tables (small integers).
launch_shape tensor_lists() {
  launch_shape s;
  for (int list = 0; list < 2; ++list)
    for (std::uint64_t t = 0; t < 110; ++t) s.words.push_back(t < 8 ? segment + (list * 8 + t) * 0x1000 : 0);
  for (int w = 0; w < 255; ++w) s.words.push_back(std::uint64_t{16} << 32 | 16);
  s.layout = {{0, static_cast<std::uint32_t>(s.words.size() * 8 - 8)},
              {static_cast<std::uint32_t>(s.words.size() * 8 - 8), 8}};
  return s;
}

void run(benchmark::State& state, launch_shape s, bool code_required) {
  allocation_map map;
  map.insert(segment, 2 << 20);
  counting_probe probe;
  for (const param_info& p : s.layout) s.params.push_back(reinterpret_cast<char*>(s.words.data()) + p.offset);
  access_set out;
  for (auto _ : state) {
    const inference_result r = infer(&s.layout, s.params.data(), nullptr, map, probe, out, {.code_required = code_required});
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(out);
  }
  state.counters["probes"] = benchmark::Counter(static_cast<double>(probe.calls), benchmark::Counter::kAvgIterations);
}

void elementwise_no_code(benchmark::State& state) { run(state, elementwise(), true); }
void elementwise_arguments(benchmark::State& state) { run(state, elementwise(), false); }
void tensor_lists_no_code(benchmark::State& state) { run(state, tensor_lists(), true); }
void tensor_lists_arguments(benchmark::State& state) { run(state, tensor_lists(), false); }

}  // namespace

BENCHMARK(elementwise_no_code);
BENCHMARK(elementwise_arguments);
BENCHMARK(tensor_lists_no_code);
BENCHMARK(tensor_lists_arguments);

BENCHMARK_MAIN();
