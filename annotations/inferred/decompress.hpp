#pragma once
// The decompressors for the PTX that nvcc compresses into fatbins: zstd (nvcc 13's
// default) and LZ4 blocks (`--compress-mode=speed`, and older toolkits). Taken from the
// system's libzstd.so.1 and liblz4.so.1 at run time (dlopen), not linked: libacs
// gains no dependency, and without them acs only loses the PTX-based refinement of
// inference (logged once).
#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace acs::inference {

/// @brief Decompresses one zstd frame of `unpacked_bytes` bytes; nullopt when
/// libzstd.so.1 is missing or the data is corrupt.
std::optional<std::string> unzstd(std::span<const std::byte> packed, std::size_t unpacked_bytes);

/// @brief Decompresses one LZ4 block of `unpacked_bytes` bytes; nullopt when
/// liblz4.so.1 is missing or the data is corrupt.
std::optional<std::string> unlz4(std::span<const std::byte> packed, std::size_t unpacked_bytes);

}  // namespace acs::inference
