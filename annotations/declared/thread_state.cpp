#include "annotations/declared/thread_state.hpp"

#include <atomic>

#include "src/support/log.hpp"
#include "annotations/declared/warnings.hpp"
#include "src/support/hot_path.hpp"

namespace acs::annotations {

namespace {

// Scope groups are unique in the process; 0 means "no scope".
std::atomic<std::uint64_t> next_group{1};

// Never destroyed: a launch may come during exit, after static destructors (a program's own
// atexit handler, a thread the program left running).
const declaration& all_memory() noexcept {
  static const declaration& d = *[] {
    auto* const all = new declaration;
    all->set.make_everything();
    all->exact = true;
    return all;
  }();
  return d;
}

// Set by the destructor: after it, a late launch on this thread (from another
// thread_local's destructor) sees no state instead of a destroyed one.
// Initial-exec (libacs.so is preloaded): every launch reads them, to drop what was declared for it.
thread_local bool state_destroyed [[gnu::tls_model("initial-exec")]] = false;
thread_local thread_state state [[gnu::tls_model("initial-exec")]];

}  // namespace

thread_state::~thread_state() {
  state_destroyed = true;
  if (pending)
    if (first_report(warning::exit_pending))
      log::warn(
          "a thread exited with an acs_next_launch declaration that no launch used; it is "
          "dropped (reported once)");
  if (depth() > 0)
    if (first_report(warning::exit_scope))
      log::warn(
          "a thread exited inside {} acs scope(s) never closed by acs_scope_end; they are "
          "closed (reported once)",
          depth());
}

void thread_state::opened() noexcept {
  if (depth() == 1) group_ = next_group.fetch_add(1, std::memory_order_relaxed);
}

unsigned thread_state::open(declaration&& d, bool inert) {
  // Above an unrecorded scope nothing is recorded: the stack stays in order.
  if (scopes_.size() >= max_scope_depth || unrecorded_ > 0) {
    open_unrecorded();
    return scopes_.size() >= max_scope_depth ? issue_too_deep : 0u;
  }
  scopes_.push_back({std::move(d), inert});
  opened();
  return 0;
}

void thread_state::open_unrecorded() noexcept {
  ++unrecorded_;
  opened();
}

bool thread_state::close() noexcept {
  if (unrecorded_ > 0)
    --unrecorded_;
  else if (!scopes_.empty())
    scopes_.pop_back();
  else
    return false;
  if (depth() == 0) group_ = 0;
  return true;
}

const declaration* thread_state::innermost() const noexcept {
  if (unrecorded_ > 0) return &all_memory();
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (!it->inert) return &it->decl;
  return nullptr;
}

ACS_HOT thread_state* this_thread() noexcept {
  if (state_destroyed) return nullptr;
  return &state;
}

}  // namespace acs::annotations
