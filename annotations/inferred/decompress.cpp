#include "annotations/inferred/decompress.hpp"

#include <limits>

#include "src/support/log.hpp"
#include "src/support/system_library.hpp"

namespace acs::inference {

namespace {

// A function of a system library, kept loaded for the life of the process: the
// pointer is cached. Nullptr (logged once) when the library or symbol is missing.
void* system_function(const char* library, const char* symbol) noexcept {
  void* f = system::function(library, symbol);
  if (f == nullptr)
    log::print_once(log_level::info, library,
                    "{} not found: acs cannot read PTX compressed with it, so the pointer arguments of "
                    "such kernels count as written",
                    library);
  return f;
}

using zstd_decompress_fn = std::size_t (*)(void* dst, std::size_t capacity, const void* src, std::size_t size);
using zstd_is_error_fn = unsigned (*)(std::size_t code);
using lz4_decompress_fn = int (*)(const char* src, char* dst, int size, int capacity);

}  // namespace

std::optional<std::string> unzstd(std::span<const std::byte> packed, std::size_t unpacked_bytes) {
  static const auto decompress =
      reinterpret_cast<zstd_decompress_fn>(system_function("libzstd.so.1", "ZSTD_decompress"));
  static const auto is_error = reinterpret_cast<zstd_is_error_fn>(system_function("libzstd.so.1", "ZSTD_isError"));
  if (decompress == nullptr || is_error == nullptr) return std::nullopt;
  std::string out(unpacked_bytes, '\0');
  const std::size_t n = decompress(out.data(), out.size(), packed.data(), packed.size());
  if (is_error(n) != 0u || n != unpacked_bytes) return std::nullopt;
  return out;
}

std::optional<std::string> unlz4(std::span<const std::byte> packed, std::size_t unpacked_bytes) {
  static const auto decompress =
      reinterpret_cast<lz4_decompress_fn>(system_function("liblz4.so.1", "LZ4_decompress_safe"));
  constexpr std::size_t int_max = std::numeric_limits<int>::max();
  if (decompress == nullptr || packed.size() > int_max || unpacked_bytes > int_max) return std::nullopt;
  std::string out(unpacked_bytes, '\0');
  const int n = decompress(reinterpret_cast<const char*>(packed.data()), out.data(), static_cast<int>(packed.size()),
                           static_cast<int>(out.size()));
  if (n < 0 || static_cast<std::size_t>(n) != unpacked_bytes) return std::nullopt;
  return out;
}

}  // namespace acs::inference
