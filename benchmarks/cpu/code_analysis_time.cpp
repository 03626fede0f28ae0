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
  // Each fatbin: magic 0xBA55ED50, version (2 bytes), header size (2), entries' size (8).
  while (at + 16 <= raw.size()) {
    std::uint32_t magic = 0;
    std::uint16_t header = 0;
    std::uint64_t size = 0;
    std::memcpy(&magic, bytes + at, 4);
    std::memcpy(&header, bytes + at + 6, 2);
    std::memcpy(&size, bytes + at + 8, 8);
    if (magic != 0xBA55ED50u || header < 16 || size > raw.size() - at - header) {
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
    std::printf("fatbin at %zu: %llu bytes, %zu kernels analysed, %.2f ms\n", at,
                static_cast<unsigned long long>(header + size), found, median);
    total_ms += median;
    kernels += found;
    ++images;
    at += header + size;
  }
  std::printf("total: %zu fatbins, %zu kernels, %.2f ms (compute capability %u, median of %d)\n", images, kernels,
              total_ms, cc, rounds);
  return images != 0 ? 0 : 1;
}
