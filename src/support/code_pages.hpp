#pragma once
// libacs's own machine code, mapped in before the program runs.

namespace acs::code_pages {

/// @brief Asks the kernel to map every page of libacs's executable segment now
/// (MADV_POPULATE_READ, Linux 5.14+; older kernels refuse it and nothing changes).
/// Programs that time their first launches (cold starts, lazily loaded kernels) otherwise
/// pay a page fault each time the launch path first reaches a new part of acs's code.
/// Called once, when libacs loads; costs tens of microseconds there.
void map_in() noexcept;

}  // namespace acs::code_pages
