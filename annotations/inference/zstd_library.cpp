#include "zstd_library.hpp"

#include <dlfcn.h>

#include "log.hpp"
#include "runtime_driver.hpp"

namespace acs::inference {

namespace {

using decompress_fn = std::size_t (*)(void* dst, std::size_t dst_capacity, const void* src, std::size_t src_size);
using is_error_fn = unsigned (*)(std::size_t code);

struct zstd_functions {
  decompress_fn decompress = nullptr;
  is_error_fn is_error = nullptr;
};

zstd_functions load() noexcept {
  // Kept loaded for the life of the process: the pointers are cached.
  void* lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  const driver::dlsym_fn lookup = driver::libc_dlsym();
  zstd_functions f;
  if (lib != nullptr && lookup != nullptr) {
    f.decompress = reinterpret_cast<decompress_fn>(lookup(lib, "ZSTD_decompress"));
    f.is_error = reinterpret_cast<is_error_fn>(lookup(lib, "ZSTD_isError"));
  }
  if (f.decompress == nullptr || f.is_error == nullptr) {
    dlerror();  // the application must not read acs's failed look-ups
    log::print_once(log_level::info, "ptx:zstd",
                    "libzstd.so.1 not found: acs cannot read the compressed PTX of kernels, so every "
                    "pointer argument counts as written");
    return {};
  }
  return f;
}

}  // namespace

std::optional<std::string> unzstd(std::span<const std::byte> packed, std::size_t unpacked_bytes) {
  static const zstd_functions zstd = load();
  if (zstd.decompress == nullptr) return std::nullopt;
  std::string out(unpacked_bytes, '\0');
  const std::size_t n = zstd.decompress(out.data(), out.size(), packed.data(), packed.size());
  if (zstd.is_error(n) != 0u || n != unpacked_bytes) return std::nullopt;
  return out;
}

}  // namespace acs::inference
