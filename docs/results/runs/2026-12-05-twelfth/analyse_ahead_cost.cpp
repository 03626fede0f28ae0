// Build (from the repository root, after a build in build-gpu):
//   g++ -std=c++20 -O2 -I. -I/usr/local/cuda/include analyse_ahead_cost.cpp build-gpu/annotations/inferred/libacs_inferred.a \
//       build-gpu/scheduler/libacs_scheduler.a build-gpu/src/support/libacs_support.a -lfmt -lpthread -ldl -o analyse_ahead_cost
// Run on sections dumped with: objcopy -O binary --only-section=.nv_fatbin LIB.so LIB.fatbin
// Times acs's analysis ahead (loaded_code::analyse_ahead, cc 9.0) of every fatbin in a dumped
// .nv_fatbin section, as the first probe's code_needed() posts it for every recorded image.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>
#include "annotations/inferred/loaded_code.hpp"
#include "annotations/inferred/fatbin.hpp"
using namespace acs::inference;
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    std::vector<char> buf((std::istreambuf_iterator<char>(f)), {});
    loaded_code lc;
    std::size_t off = 0, n = 0, with_ptx = 0;
    std::vector<const void*> handles;
    while (off + 16 <= buf.size()) {
      std::uint32_t magic; std::uint16_t hs; std::uint64_t size;
      std::memcpy(&magic, &buf[off], 4); std::memcpy(&hs, &buf[off + 6], 2); std::memcpy(&size, &buf[off + 8], 8);
      if (magic != 0xBA55ED50u) { off += 8; continue; }
      handles.push_back(&buf[off]);
      lc.loaded(&buf[off], code_handle_kind::module, &buf[off]);
      off += hs + size; ++n;
    }
    auto t0 = std::chrono::steady_clock::now();
    for (const void* h : handles) lc.analyse_ahead(h, 90);
    auto t1 = std::chrono::steady_clock::now();
    std::printf("%s: %zu fatbins, %.1f MB, analysis ahead for sm_90 %.1f ms\n", argv[a], n, buf.size() / 1e6,
                std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}
