#include "annotations/inferred/fatbin.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "annotations/inferred/decompress.hpp"

namespace acs::inference {

namespace {

constexpr std::uint32_t fatbin_magic = 0xBA55ED50;
constexpr std::uint32_t wrapper_magic = 0x466243B1;  // nvcc's __fatBinC_Wrapper_t
constexpr std::uint64_t zstd_flag = 0x8000;
constexpr std::uint64_t lz4_flag = 0x2000;
// Far beyond any real fatbin; bounds what a corrupt header could make acs read.
constexpr std::uint64_t max_fatbin_bytes = std::uint64_t{1} << 32;

template <class T>
T read_at(const std::byte* p, std::size_t offset) noexcept {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

// The fatbin header itself, through nvcc's wrapper when `image` is one.
const std::byte* fatbin_start(const void* image) noexcept {
  if (image == nullptr) return nullptr;
  const auto* p = static_cast<const std::byte*>(image);
  const auto magic = read_at<std::uint32_t>(p, 0);
  if (magic == fatbin_magic) return p;
  if (magic != wrapper_magic) return nullptr;
  // { int magic; int version; const unsigned long long* data; void* filename_or_fatbins; }
  const auto* inner = read_at<const std::byte*>(p, 8);
  if (inner == nullptr || read_at<std::uint32_t>(inner, 0) != fatbin_magic) return nullptr;
  return inner;
}

struct fatbin_header {
  std::uint16_t header_bytes;
  std::uint64_t entries_bytes;
};

std::optional<fatbin_header> header_of(const std::byte* start) noexcept {
  const fatbin_header h{read_at<std::uint16_t>(start, 6), read_at<std::uint64_t>(start, 8)};
  if (h.header_bytes < 16 || h.entries_bytes > max_fatbin_bytes) return std::nullopt;
  return h;
}

}  // namespace

std::optional<std::span<const std::byte>> fatbin_bytes(const void* image) {
  const std::byte* start = fatbin_start(image);
  if (start == nullptr) return std::nullopt;
  const auto h = header_of(start);
  if (!h) return std::nullopt;
  return std::span<const std::byte>(start, h->header_bytes + h->entries_bytes);
}

std::optional<std::vector<fatbin_entry>> read_fatbin(const void* image) {
  const auto bytes = fatbin_bytes(image);
  if (!bytes) return std::nullopt;
  const std::byte* base = bytes->data();
  const std::size_t end = bytes->size();
  std::size_t at = read_at<std::uint16_t>(base, 6);
  std::vector<fatbin_entry> entries;
  // Entry header: u16 kind, u16, u32 header size, u64 payload size, u32 compressed
  // size, u32, u16 minor, u16 major, u32 arch, u32 name offset, u32 name size,
  // u64 flags, u64, u64 uncompressed size.
  constexpr std::size_t min_entry_header = 64;
  while (at + min_entry_header <= end) {
    const std::byte* e = base + at;
    const auto kind = read_at<std::uint16_t>(e, 0);
    const auto header_bytes = read_at<std::uint32_t>(e, 4);
    const auto payload_bytes = read_at<std::uint64_t>(e, 8);
    if (header_bytes < min_entry_header || header_bytes > end - at || payload_bytes > end - at - header_bytes)
      return std::nullopt;
    const auto packed_bytes = read_at<std::uint32_t>(e, 16);
    const auto flags = read_at<std::uint64_t>(e, 40);
    fatbin_entry entry;
    entry.arch = read_at<std::uint32_t>(e, 28);
    entry.payload = std::span<const std::byte>(e + header_bytes, payload_bytes);
    if ((flags & (zstd_flag | lz4_flag)) != 0) {
      entry.packing = (flags & zstd_flag) != 0 ? compression::zstd : compression::lz4;
      if (packed_bytes > payload_bytes) return std::nullopt;
      entry.payload = entry.payload.first(packed_bytes);
      entry.unpacked_bytes = read_at<std::uint64_t>(e, 56);
    }
    if (kind == static_cast<std::uint16_t>(code_kind::ptx) || kind == static_cast<std::uint16_t>(code_kind::elf)) {
      entry.kind = static_cast<code_kind>(kind);
      entries.push_back(entry);
    }
    at += header_bytes + payload_bytes;
  }
  return entries;
}

bool is_ptx_text(const void* image) {
  if (image == nullptr) return false;
  // PTX starts with comments and directives; a cubin with "\x7f" "ELF", a fatbin
  // with its magic. Look for ".version" in the first KiB of printable text.
  const auto* p = static_cast<const char*>(image);
  constexpr std::size_t window = 1024;
  for (std::size_t i = 0; i < window; ++i) {
    const char c = p[i];
    if (c == '\0') return false;
    if (static_cast<unsigned char>(c) >= 0x80 || (c < ' ' && c != '\n' && c != '\r' && c != '\t')) return false;
    if (c == '.' && std::strncmp(p + i, ".version", 8) == 0) return true;
  }
  return false;
}

std::vector<const fatbin_entry*> ptx_for_device(const std::vector<fatbin_entry>& entries, std::uint32_t cc) {
  std::uint32_t elf_arch = 0;
  std::uint32_t ptx_arch = 0;
  for (const fatbin_entry& e : entries) {
    if (e.arch > cc) continue;
    if (e.kind == code_kind::elf && e.arch / 10 == cc / 10) elf_arch = std::max(elf_arch, e.arch);
    if (e.kind == code_kind::ptx) ptx_arch = std::max(ptx_arch, e.arch);
  }
  const std::uint32_t arch = elf_arch != 0 ? elf_arch : ptx_arch;
  std::vector<const fatbin_entry*> chosen;
  for (const fatbin_entry& e : entries)
    if (arch != 0 && e.kind == code_kind::ptx && e.arch == arch) chosen.push_back(&e);
  return chosen;
}

std::optional<std::string> ptx_text(const fatbin_entry& entry) {
  if (entry.kind != code_kind::ptx) return std::nullopt;
  std::optional<std::string> text;
  switch (entry.packing) {
    case compression::none:
      text.emplace(reinterpret_cast<const char*>(entry.payload.data()), entry.payload.size());
      break;
    case compression::zstd: text = unzstd(entry.payload, entry.unpacked_bytes); break;
    case compression::lz4: text = unlz4(entry.payload, entry.unpacked_bytes); break;
  }
  if (text) {
    // Payloads are padded with NULs.
    const std::size_t nul = text->find('\0');
    if (nul != std::string::npos) text->resize(nul);
  }
  return text;
}

}  // namespace acs::inference
