// The launch side of the annotation API: which declaration a launch gets
// (declared.hpp gives the precedence), completed and checked as the options say.
#include "annotations/declared/declared.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "annotations/declared/footprint_check.hpp"
#include "annotations/declared/kernel_rules.hpp"
#include "annotations/declared/launch_view.hpp"
#include "src/support/log.hpp"
#include "annotations/declared/options.hpp"
#include "annotations/declared/services.hpp"
#include "annotations/declared/thread_state.hpp"
#include "annotations/declared/warnings.hpp"
#include "src/support/hot_path.hpp"

// The C entry points live in c_api.cpp, which nothing inside libacs calls. When
// this library is linked from an archive, that object would be left out of
// libacs.so; referencing it from here, which the runtime does call, keeps it.
extern "C" __attribute__((visibility("default"))) int acs_v1_active(void) noexcept;
[[gnu::used]] static const void* const acs_keep_c_api = reinterpret_cast<const void*>(&acs_v1_active);

namespace acs::annotations {

namespace {

std::atomic<const declared::runtime_services*> installed{nullptr};

// A rule could not run, or failed: say so once per kernel.
void rule_problem(CUfunction function, const char* what, launch_view& view) noexcept {
  try {
    if (log::first_time(fmt::format("rule:{}:{}", what, static_cast<const void*>(function))))
      log::warn("the rule registered for {} {} (reported once per kernel)", view.kernel_name(function), what);
  } catch (...) {
  }
}

// Runs the kernel's rule on this thread; false when it cannot run.
bool run_rule(const kernel_rule& rule, CUfunction function, void* const* params, thread_state& ts,
              launch_view& view, declaration& out) {
  if (params == nullptr) {
    rule_problem(function,
                 "cannot run: the launch passed no parameter array (cuLaunchKernel's `extra`); "
                 "its footprint is inferred",
                 view);
    return false;
  }
  acs_footprint fp;
  acs_footprint* const outer = std::exchange(ts.rule_footprint, &fp);
  try {
    rule.rule(&fp, params, rule.user);
  } catch (...) {
    fp.set.make_everything();
    rule_problem(function, "threw an exception; the launch is treated as touching all device memory", view);
  }
  ts.rule_footprint = outer;
  report(fp.issues, "acs_footprint_read/write (in a kernel rule)");
  out.set = std::move(fp.set);
  out.exact = rule.exact;
  return true;
}

void reset(declared::launch_footprint& out) noexcept {
  out.access.reads.clear();
  out.access.writes.clear();
  out.group = 0;
  out.declared = false;
  out.exact = false;
  out.barrier_before = false;
}

}  // namespace

const declared::runtime_services& services() noexcept {
  static const declared::runtime_services none{};
  const declared::runtime_services* s = installed.load(std::memory_order_acquire);
  return s != nullptr ? *s : none;
}

bool capture_in_progress() noexcept {
  const auto probe = services().capture_in_progress;
  return probe != nullptr && probe();
}

bool take(CUfunction function, void* const* params, void* const* extra, declared::launch_footprint& out,
          launch_view& view) noexcept {
  reset(out);
  thread_state* const ts = this_thread();
  if (ts == nullptr) return false;
  // Most launches: nothing declared on this thread, no scope open, no rule registered. Said
  // before the declaration below is made (a quarter of this function's cost on such launches).
  if (!ts->pending && !ts->barrier && ts->depth() == 0 && kernel_rules().size() == 0) {
    out.group = ts->group();
    return false;
  }
  try {
    out.barrier_before = std::exchange(ts->barrier, false);
    out.group = ts->group();

    declaration d;
    if (ts->pending) {
      d = std::move(*ts->pending);
      ts->pending.reset();
    } else if (const declaration* scope = ts->innermost()) {
      d = *scope;
    } else if (const auto rule = kernel_rules().find(function)) {
      if (!run_rule(*rule, function, params, *ts, view, d)) return false;
    } else {
      return false;
    }
    out.declared = true;
    out.exact = d.exact;
    d.set.to_access(out.access);
    if (d.set.everything()) return true;

    const options& o = current_options();
    const bool add = !d.exact && o.infer_alloc;
    if (!add && !o.check) return true;
    std::vector<inference::pointer_argument>& args = ts->arguments;
    args.clear();
    if (!view.pointer_arguments(function, params, extra, args)) args.clear();
    if (add) complete(args, out.access);
    if (o.check) check(function, args, d.set.ranges(), out.access, view);
    return true;
  } catch (...) {
    // Keep the ordering whatever failed: all memory if possible, else ask the
    // runtime to order the launch after everything before it.
    reset(out);
    if (first_report(warning::internal))
      log::warn(
          "acs failed internally while reading a launch's declaration; "
          "the launch is treated as touching all device memory");
    try {
      out.access.writes.assign(1, whole_address_space);
      out.declared = true;
      out.exact = true;
      out.group = ts->group();
      return true;
    } catch (...) {
      reset(out);
      out.barrier_before = true;
      return false;
    }
  }
}

}  // namespace acs::annotations

namespace acs::declared {

bool take(CUfunction function, void** params, launch_footprint& out, void** extra) noexcept {
  return annotations::take(function, params, extra, out, annotations::process_view());
}

ACS_HOT void discard_pending() noexcept {
  if (annotations::thread_state* ts = annotations::this_thread()) {
    ts->pending.reset();
    ts->barrier = false;
  }
}

void connect(const runtime_services& s) noexcept {
  // Every version is kept for the rest of the process: a reader may still hold
  // an earlier one.
  static std::mutex mutex;
  static auto* const kept = new std::deque<runtime_services>;
  try {
    std::lock_guard lock(mutex);
    annotations::installed.store(&kept->emplace_back(s), std::memory_order_release);
  } catch (...) {
  }
}

}  // namespace acs::declared
