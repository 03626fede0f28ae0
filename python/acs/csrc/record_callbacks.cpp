// The RecordFunction callback: every dispatcher operator opens an acs scope, closed when the
// operator returns, so that the kernels launched inside it carry its footprint. Which level
// declares (an operator calls others: conv2d -> convolution -> cudnn_convolution):
//  * the outermost operator whose inputs can be accounted for declares them; the operators it
//    calls declare nothing more (their kernels keep its declaration, and acs completes it
//    with the blocks their pointer arguments reach: outputs, temporaries, workspaces). One
//    scope per operator the program calls, and acs's outermost scope keeps its kernels in order;
//  * transparent operators (views, reshape...) declare nothing: what they call declares;
//  * an operator that cannot be accounted for (its inputs: all memory, "opaque") lets the
//    operators inside it declare for themselves: their kernels touch their own inputs;
//  * an unsafe operator (device-side pointer arrays, an untrusted namespace) is all memory,
//    and nothing inside it may declare less.
#include <ATen/record_function.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "integration.hpp"

namespace acs_torch {

namespace {

enum class cover : std::uint8_t { none, precise, opaque, unsafe };

struct frame {
  at::RecordFunctionHandle handle = 0;  // whose frame it is: an end only pops its own
  cover after = cover::none;            // what covers the operators this one calls
  bool opened = false;                  // an acs scope to close at the end
};

struct thread_frames {
  std::vector<frame> stack;
  declaration scratch;  // keeps its capacity from one operator to the next
};

thread_local thread_frames frames;

std::mutex install_mutex;
at::CallbackHandle installed_handle = 0;
std::atomic<bool> installed{false};
// The options of the installed callback. Each install makes a new one and never frees the old:
// an operator on another thread may still read them.
std::atomic<const options*> installed_options{nullptr};

struct atomic_counters {
  std::atomic<std::uint64_t> operators{0}, declared{0}, everything{0}, ranges{0};
} totals;

void bump(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }

bool open_everything() {
  const acs_range all = all_memory();
  bump(totals.everything);
  return acs_scope_begin(nullptr, 0, &all, 1, ACS_EXACT) != ACS_NOT_LOADED;
}

// What the operator `fn` opens, given what covers it.
frame decide(const at::RecordFunction& fn, cover outer, thread_frames& t) {
  frame f{fn.handle(), outer, false};
  if (outer == cover::unsafe) return f;
  const options& o = *installed_options.load(std::memory_order_acquire);
  const op_info* info = info_of(fn, o);
  if (info == nullptr || info->kind == op_kind::transparent) return f;
  if (info->kind == op_kind::unsafe) {
    f.opened = open_everything();
    f.after = cover::unsafe;
    return f;
  }
  if (outer == cover::precise) return f;
  declare(*info, fn.inputs(), o, t.scratch);
  if (t.scratch.everything) {
    f.opened = open_everything();
    f.after = cover::opaque;
    return f;
  }
  const declaration& d = t.scratch;
  bump(totals.declared);
  bump(totals.ranges, d.reads.size() + d.writes.size());
  // Not ACS_EXACT: acs adds the blocks that the kernels' pointer arguments reach and no
  // declared range touches (outputs, workspaces).
  f.opened = acs_scope_begin(d.reads.data(), d.reads.size(), d.writes.data(), d.writes.size(), ACS_DEFAULT) !=
             ACS_NOT_LOADED;
  f.after = cover::precise;
  return f;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (fn.isAsync()) return nullptr;  // may end on another thread: nothing to pair with
  thread_frames& t = frames;
  bump(totals.operators);
  const cover outer = t.stack.empty() ? cover::none : t.stack.back().after;
  frame f{fn.handle(), outer, false};
  try {
    f = decide(fn, outer, t);
  } catch (...) {
    // Could not tell (an exception from PyTorch): all memory, if acs still takes it.
    try {
      f.opened = open_everything();
      f.after = cover::unsafe;
    } catch (...) {
    }
  }
  try {
    t.stack.push_back(f);
  } catch (...) {
    if (f.opened) acs_scope_end();  // out of memory: the operator goes undeclared
  }
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  thread_frames& t = frames;
  // An operator that started before the callback was installed, or an async one, has no frame.
  if (t.stack.empty() || t.stack.back().handle != fn.handle()) return;
  const frame f = t.stack.back();
  t.stack.pop_back();
  if (f.opened) acs_scope_end();
}

}  // namespace

bool install_callbacks(const options& o) {
  std::lock_guard lock(install_mutex);
  if (installed.load()) return true;
  try {
    installed_options.store(new options(o), std::memory_order_release);
    forget_infos();
    installed_handle = at::addGlobalCallback(at::RecordFunctionCallback(&on_start, &on_end)
                                                 .needsInputs(true)
                                                 .samplingProb(1.0)
                                                 .scopes({at::RecordScope::FUNCTION}));
    installed.store(true);
    return true;
  } catch (...) {
    return false;
  }
}

void remove_callbacks() {
  std::lock_guard lock(install_mutex);
  if (!installed.load()) return;
  try {
    at::removeCallback(installed_handle);
  } catch (...) {
  }
  installed.store(false);
}

bool callbacks_installed() noexcept { return installed.load(); }

std::size_t open_operators() noexcept { return frames.stack.size(); }

op_counters counters() noexcept {
  return {totals.operators.load(), totals.declared.load(), totals.everything.load(), totals.ranges.load()};
}

}  // namespace acs_torch
