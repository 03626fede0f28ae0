#include "annotations/declared/calls.hpp"

#include <utility>

#include "annotations/declared/kernel_rules.hpp"
#include "annotations/inferred/suballocations.hpp"
#include "src/support/log.hpp"
#include "annotations/declared/options.hpp"
#include "annotations/declared/services.hpp"
#include "annotations/declared/thread_state.hpp"
#include "annotations/declared/warnings.hpp"

namespace acs::annotations {

namespace {

// The declaration of a call, validated; all memory if recording it fails.
declaration make_declaration(const acs_range* reads, std::size_t n_reads, const acs_range* writes,
                             std::size_t n_writes, unsigned flags, unsigned& issues) noexcept {
  declaration d;
  if ((flags & ~known_flags) != 0) issues |= issue_unknown_flags;
  d.exact = (flags & ACS_EXACT) != 0 && (flags & ~known_flags) == 0;
  try {
    issues |= d.set.add(reads, n_reads, false);
    issues |= d.set.add(writes, n_writes, true);
  } catch (...) {
    d.set.make_everything();
    issues |= issue_out_of_memory;
  }
  return d;
}

acs_status status_of(unsigned issues) noexcept { return issues != 0 ? ACS_INVALID : ACS_OK; }

// Annotations made during a capture would describe launches that pass through.
bool ignored_for_capture(const char* where) noexcept {
  if (!capture_in_progress()) return false;
  if (first_report(warning::capture))
    log::warn(
        "{} while a stream capture is in progress: ignored (captured launches pass straight "
        "through; others get their inferred footprint) (reported once)",
        where);
  return true;
}

}  // namespace

acs_status next_launch(const acs_range* reads, std::size_t n_reads, const acs_range* writes,
                       std::size_t n_writes, unsigned flags) noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  thread_state* const ts = this_thread();
  if (ts == nullptr) return ACS_IGNORED;
  if (ignored_for_capture("acs_next_launch")) return ACS_IGNORED;
  unsigned issues = 0;
  declaration d = make_declaration(reads, n_reads, writes, n_writes, flags, issues);
  if (!ts->pending) {
    ts->pending.emplace(std::move(d));
  } else {
    // Two declarations before one launch: the launch gets both (conservative).
    issues |= issue_merged;
    try {
      issues |= ts->pending->set.merge(d.set);
    } catch (...) {
      ts->pending->set.make_everything();
      issues |= issue_out_of_memory;
    }
    ts->pending->exact = ts->pending->exact && d.exact;
  }
  report(issues, "acs_next_launch");
  return status_of(issues);
}

acs_status scope_begin(const acs_range* reads, std::size_t n_reads, const acs_range* writes,
                       std::size_t n_writes, unsigned flags) noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  thread_state* const ts = this_thread();
  if (ts == nullptr) return ACS_IGNORED;
  // A scope is opened whatever happens, so that every begin pairs with one end.
  const bool inert = ignored_for_capture("acs_scope_begin");
  unsigned issues = 0;
  declaration d = inert ? declaration{} : make_declaration(reads, n_reads, writes, n_writes, flags, issues);
  try {
    issues |= ts->open(std::move(d), inert);
  } catch (...) {
    ts->open_unrecorded();
    issues |= issue_out_of_memory;
  }
  report(issues, "acs_scope_begin");
  return inert ? ACS_IGNORED : status_of(issues);
}

acs_status scope_end() noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  thread_state* const ts = this_thread();
  if (ts == nullptr) return ACS_IGNORED;
  if (ts->close()) return ACS_OK;
  if (first_report(warning::unbalanced))
    log::warn(
        "acs_scope_end without a matching acs_scope_begin on this thread: ignored "
        "(reported once)");
  return ACS_INVALID;
}

acs_status register_kernel(const void* function, acs_kernel_rule rule, void* user, unsigned flags) noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  if (function == nullptr) {
    if (first_report(warning::null_function))
      log::warn("acs_register_kernel with a NULL kernel handle: ignored (reported once)");
    return ACS_INVALID;
  }
  try {
    if (rule == nullptr) {
      kernel_rules().erase(function);
      return ACS_OK;
    }
    const unsigned issues = (flags & ~known_flags) != 0 ? issue_unknown_flags : 0u;
    kernel_rules().set(function, {rule, user, (flags & ACS_EXACT) != 0 && issues == 0});
    report(issues, "acs_register_kernel");
    return status_of(issues);
  } catch (...) {
    // The kernel keeps its previous state (inferred, or its previous rule).
    if (first_report(warning::internal))
      log::warn("acs_register_kernel failed (out of memory); the kernel's footprint is inferred");
    return ACS_INVALID;
  }
}

void footprint_add(acs_footprint* fp, const void* ptr, std::size_t bytes, bool write) noexcept {
  thread_state* const ts = this_thread();
  if (fp == nullptr || ts == nullptr || ts->rule_footprint != fp) {
    // Not the footprint of a rule running on this thread: it cannot affect any launch.
    if (first_report(warning::footprint_outside_rule))
      log::warn(
          "acs_footprint_read/write called outside a kernel rule, or with another footprint "
          "than the rule's: ignored (reported once)");
    return;
  }
  try {
    fp->issues |= fp->set.add(ptr, bytes, write);
  } catch (...) {
    fp->set.make_everything();
    fp->issues |= issue_out_of_memory;
  }
}

acs_status barrier() noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  thread_state* const ts = this_thread();
  if (ts == nullptr) return ACS_IGNORED;
  // Kept even during a capture: dropping it could lose an ordering.
  ts->barrier = true;
  return ACS_OK;
}

acs_status suballocation(const void* base, std::size_t bytes, int in_use) noexcept {
  if (!current_options().enabled) return ACS_IGNORED;
  const auto at = reinterpret_cast<address>(base);
  if (base == nullptr && bytes != 0) {
    if (first_report(warning::null_suballocation))
      log::warn("acs_suballocation with a NULL base and {} bytes: ignored (reported once)", bytes);
    return ACS_INVALID;
  }
  // Kept during a capture too: it is bookkeeping of memory, not a declaration for launches.
  try {
    if (in_use != 0) {
      device_suballocations().insert(at, bytes);
    } else {
      device_suballocations().erase(at, bytes);
    }
    if (bytes != 0 && bytes - 1 > address_max - at) {
      report(issue_wraps, "acs_suballocation");  // clamped to the top, as every range
      return ACS_INVALID;
    }
    return ACS_OK;
  } catch (...) {
    // Out of memory. A lost insert leaves the block uncharted: its segment stays one unit. A
    // lost erase could leave a stale block that a later, larger one in the same place would
    // not replace: forget every block instead (coarser, never finer).
    try {
      device_suballocations().clear();
    } catch (...) {
    }
    if (first_report(warning::internal))
      log::warn("acs_suballocation failed (out of memory); sub-allocations are forgotten");
    return ACS_INVALID;
  }
}

int active() noexcept {
  const auto is_active = annotations::services().active;
  return is_active != nullptr && is_active() ? 1 : 0;
}

}  // namespace acs::annotations
