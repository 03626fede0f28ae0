// The exported C entry points of the annotation API: the names that
// include/acs/acs.h looks up with dlsym, and that ctypes users call. Their
// types are checked against the header's acs_v1_*_fn typedefs. libacs.so's
// version script exports acs_*; the rest of the library is hidden. A program that declares
// anything keeps every launch on acs's path (src/support/bypass.hpp): a declaration belongs to
// its thread's next launch.
#include "acs/acs.h"
#include "annotations/declared/calls.hpp"
#include "src/support/bypass.hpp"

#define ACS_EXPORT extern "C" __attribute__((visibility("default")))

using namespace acs::annotations;

ACS_EXPORT acs_status acs_v1_next_launch(const acs_range* reads, size_t n_reads, const acs_range* writes,
                                         size_t n_writes, unsigned flags) noexcept {
  acs::bypass::forbid();
  return next_launch(reads, n_reads, writes, n_writes, flags);
}

ACS_EXPORT acs_status acs_v1_scope_begin(const acs_range* reads, size_t n_reads, const acs_range* writes,
                                         size_t n_writes, unsigned flags) noexcept {
  acs::bypass::forbid();
  return scope_begin(reads, n_reads, writes, n_writes, flags);
}

ACS_EXPORT acs_status acs_v1_scope_end(void) noexcept { return scope_end(); }

ACS_EXPORT acs_status acs_v1_register_kernel(const void* cuda_function, acs_kernel_rule rule, void* user,
                                             unsigned flags) noexcept {
  acs::bypass::forbid();
  return register_kernel(cuda_function, rule, user, flags);
}

ACS_EXPORT void acs_v1_footprint_read(acs_footprint* fp, const void* ptr, size_t bytes) noexcept {
  footprint_add(fp, ptr, bytes, false);
}

ACS_EXPORT void acs_v1_footprint_write(acs_footprint* fp, const void* ptr, size_t bytes) noexcept {
  footprint_add(fp, ptr, bytes, true);
}

ACS_EXPORT acs_status acs_v1_barrier(void) noexcept { return barrier(); }

ACS_EXPORT int acs_v1_active(void) noexcept { return active(); }

ACS_EXPORT acs_status acs_v1_suballocation(const void* base, size_t bytes, int in_use) noexcept {
  acs::bypass::forbid();
  return suballocation(base, bytes, in_use);
}

// Same signatures as the header's typedefs (a mismatch does not compile).
[[maybe_unused]] static constexpr acs_api_v1_next_launch_fn check_next_launch = &acs_v1_next_launch;
[[maybe_unused]] static constexpr acs_api_v1_scope_begin_fn check_scope_begin = &acs_v1_scope_begin;
[[maybe_unused]] static constexpr acs_api_v1_scope_end_fn check_scope_end = &acs_v1_scope_end;
[[maybe_unused]] static constexpr acs_api_v1_register_kernel_fn check_register = &acs_v1_register_kernel;
[[maybe_unused]] static constexpr acs_api_v1_footprint_range_fn check_read = &acs_v1_footprint_read;
[[maybe_unused]] static constexpr acs_api_v1_footprint_range_fn check_write = &acs_v1_footprint_write;
[[maybe_unused]] static constexpr acs_api_v1_barrier_fn check_barrier = &acs_v1_barrier;
[[maybe_unused]] static constexpr acs_api_v1_active_fn check_active = &acs_v1_active;
[[maybe_unused]] static constexpr acs_api_v1_suballocation_fn check_suballocation = &acs_v1_suballocation;
