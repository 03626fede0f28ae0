// How long acs's PTX analysis takes on a program's code (docs/design.md §4): the CPU time that
// acs's background thread spends once a program's first footprint asks for its code
// (inference::code_needed), every kernel of every image then loaded. No GPU needed.
//   acs_code_analysis_time SECTION_FILE [CC] [ROUNDS]
// SECTION_FILE: the bytes of a program's .nv_fatbin section (scripts/code_analysis_time.sh
// extracts it), one or more fatbins back to back. CC: the device's compute capability as XY
// (default 90). Prints each fatbin's kernels and median milliseconds over ROUNDS (default 5), then
// the total.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "annotations/inferred/fatbin.hpp"
#include "annotations/inferred/loaded_code.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: acs_code_analysis_time SECTION_FILE [CC] [ROUNDS]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "acs_code_analysis_time: cannot read %s\n", argv[1]);
    return 2;
  }
  // 16-byte aligned, as a fatbin in a program's section is.
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::max_align_t> storage(raw.size() / sizeof(std::max_align_t) + 1);
  auto* bytes = reinterpret_cast<unsigned char*>(storage.data());
  std::memcpy(bytes, raw.data(), raw.size());
  const auto cc = static_cast<std::uint32_t>(argc > 2 ? std::atoi(argv[2]) : 90);
  const int rounds = std::max(argc > 3 ? std::atoi(argv[3]) : 5, 1);
  std::size_t at = 0, images = 0, kernels = 0;
  double total_ms = 0;
  // The section holds fatbins back to back, 8-byte aligned: fatbin_bytes (the reader acs uses for
  // the images it keeps) says where each ends.
  while (at + 16 <= raw.size()) {
    const auto image = acs::inference::fatbin_bytes(bytes + at);
    if (!image || image->size() > raw.size() - at) {
      at += 8;  // padding between fatbins
      continue;
    }
    std::vector<double> ms;
    std::size_t found = 0;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      found = acs::inference::loaded_code::analyse(bytes + at, cc).size();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("fatbin at %zu: %zu bytes, %zu kernels analysed, %.2f ms\n", at, image->size(), found, median);
    total_ms += median;
    kernels += found;
    ++images;
    at += image->size();
  }
  std::printf("total: %zu fatbins, %zu kernels, %.2f ms (compute capability %u, median of %d)\n", images, kernels,
              total_ms, cc, rounds);
  return images != 0 ? 0 : 1;
}
