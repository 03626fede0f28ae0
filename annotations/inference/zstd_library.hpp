#pragma once
// zstd, for the PTX nvcc 13 compresses into fatbins. Taken from the system's
// libzstd.so.1 at run time (dlopen), not linked: libacs gains no dependency, and
// without it acs only loses the PTX-based refinement of inference.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace acs::inference {

/// @brief Decompresses one zstd frame of `unpacked_bytes` bytes; nullopt when
/// libzstd.so.1 is missing (logged once) or the data is corrupt.
std::optional<std::string> unzstd(std::span<const std::byte> packed, std::size_t unpacked_bytes);

}  // namespace acs::inference
