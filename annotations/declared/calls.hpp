#pragma once
// What each call of the C API does (c_api.cpp only exports them). Every
// function is noexcept: bad input and internal failures are made conservative
// and reported once (declared_set.hpp), never thrown.
#include <cstddef>

#include "acs/acs.h"

namespace acs::annotations {

acs_status next_launch(const acs_range* reads, std::size_t n_reads, const acs_range* writes,
                       std::size_t n_writes, unsigned flags) noexcept;
acs_status scope_begin(const acs_range* reads, std::size_t n_reads, const acs_range* writes,
                       std::size_t n_writes, unsigned flags) noexcept;
acs_status scope_end() noexcept;
acs_status register_kernel(const void* function, acs_kernel_rule rule, void* user, unsigned flags) noexcept;
void footprint_add(acs_footprint* fp, const void* ptr, std::size_t bytes, bool write) noexcept;
acs_status barrier() noexcept;
acs_status suballocation(const void* base, std::size_t bytes, int in_use) noexcept;
int active() noexcept;

}  // namespace acs::annotations
