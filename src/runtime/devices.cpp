#include "src/runtime/devices.hpp"

#include "src/runtime/capture.hpp"

#include <cstdlib>

#include <unordered_map>
#include <vector>

#include "src/support/config.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/support/log.hpp"
#include "src/support/process.hpp"
#include "src/support/stats.hpp"
#include "src/support/thread_cache.hpp"
#include "src/trace/session.hpp"

namespace acs {

namespace {

struct registry {
  std::mutex mutex;
  std::unordered_map<CUcontext, context_entry*> contexts;
  std::vector<device_runtime*> runtimes;  // every one ever created, abandoned ones included
  std::vector<context_entry*> abandoned;  // destroyed contexts: threads may still hold them
};

registry& reg() {
  static auto* const r = new registry;  // never destroyed (see header)
  return *r;
}

// Whether `context` is its device's primary context, and which device that is.
// Retaining the primary context would create it when inactive, so the state is
// checked first; the retain is released at once (the count is unchanged).
void classify(const driver::table& cuda, context_entry& e) {
  CUcontext current = nullptr;
  const bool pushed = cuda.cuCtxGetCurrent_(&current) == CUDA_SUCCESS && current != e.context &&
                      cuda.cuCtxPushCurrent_(e.context) == CUDA_SUCCESS;
  CUdevice device = -1;
  const bool known = (pushed || current == e.context) && cuda.cuCtxGetDevice_(&device) == CUDA_SUCCESS;
  if (pushed) {
    CUcontext popped = nullptr;
    cuda.cuCtxPopCurrent_(&popped);
  }
  if (!known) return;
  e.device = device;
  unsigned flags = 0;
  int active = 0;
  if (cuda.cuDevicePrimaryCtxGetState_(device, &flags, &active) != CUDA_SUCCESS || active == 0) return;
  CUcontext primary = nullptr;
  if (cuda.cuDevicePrimaryCtxRetain_(&primary, device) != CUDA_SUCCESS) return;
  cuda.cuDevicePrimaryCtxRelease_(device);
  e.primary = primary == e.context;
}

void sum_stats(stats::summary& s) {
  for (device_runtime* rt : all_runtimes()) stats::add_scheduler(s, rt->device, rt->sched.stats());
}

// This thread's current context, valid while handles_epoch() is unchanged.
// Initial-exec, like hooks_guard.hpp's depth: read at every launch on a default stream, and
// libacs.so is preloaded, so its thread-locals live in the initial TLS block (no __tls_get_addr).
thread_local thread_cache<CUcontext, context_entry*, 1> current_context_cache [[gnu::tls_model("initial-exec")]];

}  // namespace

context_entry* context_of(const driver::table& cuda, CUcontext context) {
  if (context == nullptr) return nullptr;
  registry& r = reg();
  std::lock_guard lock(r.mutex);
  if (const auto it = r.contexts.find(context); it != r.contexts.end()) return it->second;
  auto* e = new context_entry;
  e->context = context;
  classify(cuda, *e);
  r.contexts.emplace(context, e);
  if (!e->primary)
    log::print_once(log_level::info, "foreign-context",
                    "launches in contexts other than a device's primary context pass through untouched");
  return e;
}

context_entry* current_context(const driver::table& cuda) {
  CUcontext context = nullptr;
  if (cuda.cuCtxGetCurrent_(&context) != CUDA_SUCCESS || context == nullptr) return nullptr;
  const std::uint64_t epoch = handles_epoch().load(std::memory_order_acquire);
  return current_context_cache.get(context, epoch, [&] { return context_of(cuda, context); });
}

device_runtime* runtime_for_launch(const driver::table& cuda, context_entry& e) {
  if (device_runtime* rt = e.runtime.load(std::memory_order_acquire)) return rt;
  if (e.failed.load(std::memory_order_relaxed)) return nullptr;
  std::lock_guard lock(e.create_mutex);
  if (device_runtime* rt = e.runtime.load(std::memory_order_acquire)) return rt;
  try {
    const config& c = settings();
    // A tracer tags each launch around the driver call, on the application's thread.
    const unsigned issue_threads = c.issue_thread && c.trace.empty() ? c.issue_threads : 0;
    scheduler_config sc{c.window, c.streams, c.eager_join, c.merge, issue_threads};
    // Graph replay defers launches past the driver call a tracer brackets: off with a trace too.
    sc.graphs = c.graph && c.trace.empty();
    sc.graph_segments = sc.graphs && !c.graph_pool;
    sc.graph_after = c.graph_after;
    sc.graph_cache = c.graph_cache;
    sc.graph_idle_us = c.graph_idle_us;
    sc.graph_kernels = c.graph_kernels;
    sc.graph_width = c.graph_width;
    sc.graph_sample_after = c.graph_sample;
    // Relayed graphs (issue_queue::relay_graph) take issuing thread 0 as the relay does (ACS_RELAY,
    // off with it): a CPU of its own beside the program's, by the affinity mask and the cgroup limit.
    sc.graph_relay = sc.graph_segments && issue_threads != 0 && c.relay != relay_mode::off &&
                     process::room_for_a_spinning_thread(process::affinity_cpus(), process::process_cgroup_cpu_limit());
    auto* rt = new device_runtime(cuda, e.context, e.device, sc);
    // Launches still queued for the issuing threads are issued before the runtime's own exit
    // handlers (registered earlier, so run later) tear the context down.
    static const bool drains_at_exit = std::atexit([] { device_work_issued(); }) == 0;
    (void)drains_at_exit;
    {
      std::lock_guard reg_lock(reg().mutex);
      reg().runtimes.push_back(rt);
    }
    stats::set_scheduler_source(&sum_stats);
    if (dispatch_observer* o = trace::new_observer(static_cast<unsigned>(e.device))) rt->sched.set_observer(o);
    rt->sched.set_unsafe_call_guard(&scheduler_unsafe_call_guard());
    e.runtime.store(rt, std::memory_order_release);
    log::info("device {}: scheduling launches with a window of {} over {} pool streams, issued by {} thread(s) "
              "of acs's own (0: the application's), graph replay {}", e.device, c.window, c.streams, issue_threads,
              !sc.graphs            ? "off"
              : !sc.graph_segments  ? "on (segments of pool calls)"
              : sc.graph_relay      ? "on (segments of launches, graphs launched by an issuing thread)"
                                    : "on (segments of launches)");
    return rt;
  } catch (...) {
    e.failed.store(true, std::memory_order_relaxed);
    log::warn("device {}: acs could not start its scheduler; launches pass straight through", e.device);
    return nullptr;
  }
}

context_entry* forget_context(CUcontext context) {
  registry& r = reg();
  std::lock_guard lock(r.mutex);
  const auto it = r.contexts.find(context);
  if (it == r.contexts.end()) return nullptr;
  context_entry* e = it->second;
  // Its pool streams died with the context. Threads may still hold the entry.
  if (device_runtime* rt = e->runtime.load(std::memory_order_acquire))
    rt->broken.store(true, std::memory_order_relaxed);
  r.contexts.erase(it);
  r.abandoned.push_back(e);
  return e;
}

std::vector<CUcontext> primary_contexts_of(CUdevice device) {
  registry& r = reg();
  std::lock_guard lock(r.mutex);
  std::vector<CUcontext> out;
  for (const auto& [context, e] : r.contexts)
    if (e->primary && e->device == device) out.push_back(context);
  return out;
}

std::vector<CUcontext> managed_primary_contexts() {
  registry& r = reg();
  std::lock_guard lock(r.mutex);
  std::vector<CUcontext> out;
  for (const auto& [context, e] : r.contexts)
    if (e->primary && e->runtime.load(std::memory_order_acquire) != nullptr) out.push_back(context);
  return out;
}

std::vector<device_runtime*> all_runtimes() {
  std::lock_guard lock(reg().mutex);
  return reg().runtimes;
}

}  // namespace acs
