#include "src/support/code_pages.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace acs::code_pages {

namespace {

// dl_iterate_phdr's callback: the executable PT_LOAD segments of the object loaded at `data`.
int populate_if_ours(dl_phdr_info* info, std::size_t, void* data) {
  if (reinterpret_cast<void*>(info->dlpi_addr) != data) return 0;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
    const std::uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
  }
  return 1;
}

}  // namespace

void map_in() noexcept {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&map_in), &self) == 0 || self.dli_fbase == nullptr) return;
  (void)::dl_iterate_phdr(populate_if_ours, self.dli_fbase);
}

}  // namespace acs::code_pages
