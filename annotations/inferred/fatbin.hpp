#pragma once
// The code images the driver is handed (cuModuleLoadData, cuLibraryLoadData...):
// a fatbin, nvcc's wrapper around one, a cubin or PTX text. What acs needs from
// them is the PTX that the running machine code was compiled from, to read which
// parameters a kernel writes through (ptx_writes.hpp).
//
// Fatbin layout (not documented by NVIDIA; as nvcc 12-13 write it, and as
// public tools read it): a 16-byte header (magic 0xBA55ED50, version, header
// size, size of the entries), then entries, each a header (kind 1 = PTX,
// 2 = ELF; its own size; payload size; compressed size; target arch; flags)
// followed by its payload. Payloads may be compressed: flag 0x8000 is a zstd
// frame (nvcc 13's default for PTX), flag 0x2000 an LZ4 block (nvcc 13's
// --compress-mode=speed; older toolkits set the same flag, untested here).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace acs::inference {

enum class code_kind : std::uint8_t { ptx = 1, elf = 2 };
enum class compression : std::uint8_t { none, zstd, lz4 };

struct fatbin_entry {
  code_kind kind = code_kind::elf;
  std::uint32_t arch = 0;  // sm_XY / compute_XY as XY
  compression packing = compression::none;
  std::span<const std::byte> payload;  // compressed bytes when packed
  std::uint64_t unpacked_bytes = 0;    // when packed
};

/// @brief The entries of the fatbin (or fatbin wrapper) at `image`, or nullopt when
/// `image` is not one or is malformed. `image` must stay readable while the spans are used.
std::optional<std::vector<fatbin_entry>> read_fatbin(const void* image);

/// @brief Bytes from `image` to the end of its fatbin (or wrapped fatbin): what to
/// copy to keep it. Nullopt when `image` is not a fatbin.
std::optional<std::span<const std::byte>> fatbin_bytes(const void* image);

/// @brief Whether `image` is PTX text (what cuModuleLoadData accepts besides
/// fatbins and cubins): a NUL-terminated text with a `.version` directive early.
bool is_ptx_text(const void* image);

/// @brief The PTX entries that describe the machine code a device of compute
/// capability `cc` (major * 10 + minor) runs, as the driver picks it: if there is
/// an ELF of the same major not above `cc`, the highest such arch XY runs, and
/// nvcc compiled it from the compute_XY PTX of the same fatbin; else the driver
/// compiles the highest PTX not above `cc`. Empty when that PTX is not there.
std::vector<const fatbin_entry*> ptx_for_device(const std::vector<fatbin_entry>& entries, std::uint32_t cc);

/// @brief The text of a PTX entry, unpacked; nullopt when it cannot be (libzstd or
/// liblz4 missing, corrupt data).
std::optional<std::string> ptx_text(const fatbin_entry& entry);

}  // namespace acs::inference
