// The runtime side of dispatch.hpp: what acs does with each call the hooks classify.
//
// Launch path, in order (each check is cheap; the first that fails passes the
// launch through on the application's own stream, untouched):
//   settings allow it (ACS_DISABLE, CUDA_LAUNCH_BLOCKING) and libcuda is usable;
//   the stream resolves to a device's primary context;
//   the hooks identified the kernel;
//   no capture forbids unsafe calls on this thread, and the stream is not capturing;
//   the device's scheduler exists (created here at the first launch).
// Then the footprint is computed and the scheduler dispatches the launch; the
// backend calls the hooks' closure with a pool stream.
//
// A launch passed through is still work issued directly on its stream: it
// must follow the stream's redirected kernels, and later ones must follow it,
// so it is a barrier (rule 2). Before any work on a stream, the stream joins
// its pool work (the lazy join): CUDA calls, never made on a capturing stream.
#include "src/runtime/dispatch.hpp"

#include <atomic>
#include <chrono>

#include "annotations/inferred/allocation_map.hpp"
#include "src/support/bypass.hpp"
#include "src/support/config.hpp"
#include "src/support/guard.hpp"
#include "src/support/process.hpp"
#include "src/support/log.hpp"
#include "src/runtime/background.hpp"
#include "src/runtime/capture.hpp"
#include "src/runtime/cuda_backend.hpp"
#include "src/runtime/devices.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/footprint.hpp"
#include "src/runtime/launch_conditions.hpp"
#include "src/runtime/start.hpp"
#include "src/runtime/streams.hpp"
#include "src/support/stage_timer.hpp"
#include "src/support/stats.hpp"
#include "src/runtime/driver_inference.hpp"
#include "annotations/inferred/loaded_code.hpp"
#include "src/trace/session.hpp"
#include "src/support/hot_flags.hpp"
#include "src/support/hot_path.hpp"

namespace acs {

namespace {

struct message {
  log_level level;
  const char* text;  // nullptr: said elsewhere
};

message reason_message(pass_reason why) noexcept {
  switch (why) {
    case pass_reason::disabled: return {log_level::info, nullptr};   // said when the settings were read
    case pass_reason::capturing: return {log_level::info, nullptr};  // said by capture tracking
    case pass_reason::cooperative: return {log_level::info, "cooperative launches pass straight through"};
    case pass_reason::ordering_attribute:
      return {log_level::info,
              "launches with ordering attributes (programmatic dependent launch...) pass straight through"};
    case pass_reason::foreign_context:
      return {log_level::info,
              "launches outside a device's primary context (or with no current context) pass straight through"};
    case pass_reason::unknown_function:
      return {log_level::warn, "a launch whose kernel could not be identified passes straight through"};
    case pass_reason::internal_error:
      return {log_level::warn, "acs's own bookkeeping failed: launches pass straight through"};
    case pass_reason::no_parallelism:
      return {log_level::info,
              "a stream whose kernels each depend on the previous one: acs steps aside (its launches go "
              "straight to it) and looks again now and then (ACS_STEP_ASIDE)"};
    case pass_reason::count_: break;
  }
  return {log_level::info, nullptr};
}

// Counted every time, said once per reason (without a lock: launches on a
// capturing or foreign stream may come by the thousand).
ACS_HOT void note_reason(pass_reason why) noexcept {
  stats::count_pass(why);
  std::atomic<bool>(&said)[stats::reason_count] = hot.reason_said;
  const auto i = static_cast<std::size_t>(why);
  if (i >= stats::reason_count || said[i].load(std::memory_order_relaxed) || said[i].exchange(true)) return;
  const auto [level, what] = reason_message(why);
  if (what != nullptr) log::print(level, "{}", what);
}

// Launch segments (ACS_GRAPH=auto) also replay the streams acs stepped aside from
// (ACS_GRAPH_ASIDE): their launches go through the scheduler, which may hold them.
[[gnu::always_inline]] inline bool replays_aside() noexcept { return settings().replays_aside(); }

// While no stream is redirected (every one that launched stepped aside: stream_mode.hpp), no
// stream has work on the pool that it does not contain itself: operations on streams need no
// join and no fork, and the scheduler is not asked. One load. Not while stepped-aside streams
// are replayed: a held segment must be issued at every observation point. A relaying stream
// (ACS_RELAY, stream_mode::relaying) counts among the redirected ones: its launches not yet
// issued must be before every call the program makes on a stream.
[[gnu::always_inline]] inline bool nothing_redirected() noexcept {
  const config& c = settings();
  return c.step_aside && !c.replays_aside() && redirected_streams().load(std::memory_order_acquire) == 0;
}

// After a launch that went straight to its stream: the thread's next launches may bypass acs
// (src/support/bypass.hpp) while no stream is redirected, which try_open reads again under the
// bypass's lock. A stream in a probe's burst does not keep it closed: the thread that drives the
// burst takes acs's path for each of its launches (it is granted no bypassed launch until a launch
// of its goes straight to the stream again), and a burst that another thread's bypassed launches
// thin out only compares launches further apart.
void may_bypass() noexcept {
  if (!settings().bypass_allowed()) return;
  if (bypass::open_now())
    bypass::grant();
  else if (nothing_redirected())
    bypass::try_open(nothing_redirected);
}

// A stream was counted redirected (after the count, before any of its work reaches the pool):
// the bypass closes, and every call inside it returns first.
void redirecting() noexcept {
  if (settings().bypass_allowed()) bypass::close();
}

// A probe's end started or stopped the stream's relay (ACS_RELAY, stream_mode::relaying). A
// relaying stream counts among the redirected ones: the bypass closes before its first relayed
// launch, and every call on any stream settles the relayed launches first (scheduler.hpp). When
// the relay stops, its launches are settled before the stream stops counting: a call that the
// bypass lets through afterwards cannot overtake them.
void relay_switched(bool before, bool after, const stream_target& t) {
  if (before == after) return;
  if (after) {
    redirected_streams().fetch_add(1, std::memory_order_acq_rel);
    redirecting();
    return;
  }
  if (device_runtime* rt = t.context->runtime.load(std::memory_order_acquire)) rt->sched.settle_relayed();
  redirected_streams().fetch_sub(1, std::memory_order_acq_rel);
}

// The scheduler of `stream`'s device, if acs manages it, broken or not; `t` receives the stream.
// A broken one takes no new kernel, but the kernels it already put on pool streams are still
// joined into their streams, lazily as ever: until then a stream's sync, or work issued on it,
// would not wait for them (the join is not done when the device breaks, so a launch that another
// thread was dispatching meanwhile is joined too).
device_runtime* runtime_of(CUstream stream, default_stream zero, stream_target& t) {
  const driver::table* cuda = driver::real();
  if (cuda == nullptr || !resolve_stream(*cuda, stream, zero, t) || !t.context->primary) return nullptr;
  return t.context->runtime.load(std::memory_order_acquire);
}

bool is_broken(const device_runtime& rt) noexcept { return rt.broken.load(std::memory_order_relaxed); }

// A join would become a node of the stream's capture: never on a capturing
// stream (its redirected kernels were joined when the capture began).
bool joinable(const stream_target& t) {
  const driver::table* cuda = driver::real();
  return !capture_in_progress_anywhere() ||
         (cuda != nullptr && !stream_capturing(*cuda, reinterpret_cast<CUstream>(t.stream.handle)));
}

// Work is about to be issued directly on the application's stream (rule 2).
ACS_HOT void before_work_on(CUstream stream, default_stream zero) {
  if (nothing_redirected()) return;
  stream_target t;
  if (device_runtime* rt = runtime_of(stream, zero, t); rt != nullptr && joinable(t)) rt->sched.before_barrier(t.stream);
}

// Work was issued directly on the application's stream (rule 2): later kernels fork after it.
ACS_HOT void barrier_on(CUstream stream, default_stream zero) {
  if (nothing_redirected()) return;
  stream_target t;
  if (device_runtime* rt = runtime_of(stream, zero, t); rt != nullptr && !is_broken(*rt)) rt->sched.barrier(t.stream);
}

enum class then { barrier, nothing };

ACS_HOT int issue_directly(pending_launch& launch, const launch_request& r, pass_reason why, then after) noexcept {
  launch_passed_through();
  if (after == then::barrier && !launch.issued)
    guarded("join before a direct launch", [&] { before_work_on(r.stream, r.stream_zero); });
  if (!launch.issued) {
    ACS_STAGE(aside);
    launch.status = launch.closure(r.stream);  // exactly as the application asked
    launch.issued = true;
    ACS_STAGE(direct_launch);
  }
  note_reason(why);
  // Resolved after the launch: a first runtime call may have made the context current.
  if (after == then::barrier) guarded("barrier after a direct launch", [&] { barrier_on(r.stream, r.stream_zero); });
  return launch.status;
}

// The program's waits for the GPU on this thread (program_waits_for_gpu). Initial-exec, as the
// other thread-locals of the launch path (devices.cpp).
constinit thread_local std::uint64_t gpu_waits_here [[gnu::tls_model("initial-exec")]] = 0;

// What the relay is judged by (stream_mode_policy::relay_waits_per): the device's relayed launches
// and the program's waits for them so far. Two relaxed loads.
relay_record relay_record_of(const device_runtime* rt) noexcept {
  return rt != nullptr ? rt->sched.relay_counts() : relay_record{};
}

// A launch of a stream acs stepped aside from goes straight to it. Only while other streams are
// redirected is it work issued directly on a stream, with its join and fork (rule 2).
ACS_HOT int launch_aside(pending_launch& launch, const launch_request& r) noexcept {
  return issue_directly(launch, r, pass_reason::no_parallelism, nothing_redirected() ? then::nothing : then::barrier);
}

// The same with replays_aside(): through the scheduler, which runs it on the stream in order, as
// work issued directly on it, or holds it where its segment recurs (segment_replay.hpp); for a
// relaying stream (ACS_RELAY), which has an issuing thread make it (scheduler::relay). Never
// during a capture of the stream (the launch must join the capture), nor where the thread may
// not make capture-unsafe calls (a flush may). `rt` receives the scheduler, for the caller's
// catch.
ACS_HOT int launch_aside(pending_launch& launch, launch_request& r, const driver::table& cuda,
                 const stream_target& t, device_runtime*& rt) {
  const bool replay = replays_aside();
  if ((!replay && !t.mode->relaying()) || launch.issued || function_of(r) == nullptr) return launch_aside(launch, r);
  // A relayed launch is copied by its kernel's layout: where it is not read yet, acs's background
  // thread reads it (tens of µs, not on the program's thread) and this launch goes to the stream.
  if (!replay && !inference::layout_ready(function_of(r))) return launch_aside(launch, r);
  const unsafe_section section;
  // No relay while any stream captures: the launch is made now, as the program made it.
  if (!section.allowed() ||
      (capture_in_progress_anywhere() &&
       (!replay || stream_capturing(cuda, reinterpret_cast<CUstream>(t.stream.handle)))))
    return launch_aside(launch, r);
  rt = runtime_for_launch(cuda, *t.context);
  if (rt == nullptr || is_broken(*rt)) return launch_aside(launch, r);
  launch_passed_through();
  note_reason(pass_reason::no_parallelism);
  if (replay) return rt->sched.launch_in_order(t.stream, &launch);
  const int status = rt->sched.relay(t.stream, &launch);
  // A relay the program keeps waiting for stops here, not only at the next probe's end.
  if (t.mode->relay_check_due(rt->sched.relay_waits()) && t.mode->relay_judged(relay_record_of(rt)))
    relay_switched(true, false, t);
  return status;
}

// Whether a probed launch finds its stream with work pending (stream_mode.hpp, ACS_PROBE_BACKLOG):
// one query, made only by probes, before the launch is issued, and only for a launch independent
// of the one before (for the others the answer cannot count: a dependent chain's probes ask the
// driver nothing). Without the query (an old driver), or without the policy, every launch counts
// as it did before the rule.
bool stream_busy(const driver::table& cuda, const stream_target& t, const access_set& footprint) noexcept {
  if (!t.mode->needs_backlog() || cuda.cuStreamQuery_ == nullptr) return true;
  if (!t.mode->independent_of_previous(footprint)) return false;
  const bool busy = cuda.cuStreamQuery_(reinterpret_cast<CUstream>(t.stream.handle)) == CUDA_ERROR_NOT_READY;
  stats::count_probe(busy);
  if (!busy && t.mode->times_probes() && t.mode->launch_bound()) stats::count_probe_launch_bound();
  return busy;
}

// Probed launches only (stream_mode::times_probes): a vDSO clock read, tens of nanoseconds.
std::uint64_t now_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Reused by every launch of a thread: steady state does not allocate.
declared::launch_footprint& scratch_footprint() {
  thread_local declared::launch_footprint f;
  return f;
}

}  // namespace

ACS_HOT bool active() noexcept {
  return !process::forked_child() && !settings().pass_through() && !driver::unavailable();
}

void passing_through(bool launch) noexcept {
  cuda_in_use();  // the statistics are printed at exit only if the program used CUDA
  runtime_started();
  if (!launch) return;
  stats::count_kernel();
  stats::count_pass(pass_reason::disabled);
}

// Unconditional, and cheap without a scheduler: a begin must always meet its end.
void launch_conditions_change_begins() noexcept { launch_conditions::change_begins(); }
void launch_conditions_changed() noexcept { launch_conditions::change_ends(); }
int function_attribute_set(const void* function, int attribute, int value, int (*set)(void* context),
                           void* context, int device) noexcept {
  return launch_conditions::set_function_attribute(function, attribute, value, set, context, device);
}
void function_attributes_forgotten() noexcept { launch_conditions::forget_attribute_values(); }

namespace {

// The owner of a kernel or function handle, by the driver's cuKernelGetLibrary or cuFuncGetModule
// (`Get`, a member of the driver's table): false where the driver lacks it or cannot tell.
template <auto Get, class Owner, class Handle>
bool owner_by_driver(const void* handle, const void** out) noexcept {
  const driver::table* cuda = driver::real();
  Owner owner = nullptr;
  if (cuda == nullptr || cuda->*Get == nullptr ||
      (cuda->*Get)(&owner, static_cast<Handle>(const_cast<void*>(handle))) != CUDA_SUCCESS)
    return false;
  *out = owner;
  return true;
}

}  // namespace

int code_unload(const void* handle, bool library, int (*unload)(void* context), void* context) noexcept {
  static constexpr launch_conditions::code_owners by_driver{
      &owner_by_driver<&driver::table::cuKernelGetLibrary_, CUlibrary, CUkernel>,
      &owner_by_driver<&driver::table::cuFuncGetModule_, CUmodule, CUfunction>};
  return launch_conditions::unload_code(handle, library, unload, context, by_driver);
}
void call_failed(int status) noexcept { (void)launch_conditions::call_failed(status); }

ACS_HOT int dispatch_launch(launch_request& r, launch_closure issue) noexcept {
  pending_launch launch{issue, &r};
  device_runtime* rt = nullptr;
  try {
    ACS_STAGE(hook_entry);
    runtime_started();
    stats::count_kernel();
    if (!active()) return issue_directly(launch, r, pass_reason::disabled, then::nothing);
    const driver::table* cuda = driver::real();
    if (cuda == nullptr) return issue_directly(launch, r, pass_reason::disabled, then::nothing);
    ACS_STAGE(prologue);

    stream_target t;
    bool resolved = resolve_stream(*cuda, r.stream, r.stream_zero, t);
    // Without a current context (a thread's first CUDA call may be this launch), the kernel's
    // look-up makes the thread's device context current (function_of_kernel): then again.
    if (!resolved && r.find_function != nullptr && function_of(r) != nullptr)
      resolved = resolve_stream(*cuda, r.stream, r.stream_zero, t);
    if (!resolved) return issue_directly(launch, r, pass_reason::foreign_context, then::barrier);
    if (!t.context->primary) return issue_directly(launch, r, pass_reason::foreign_context, then::nothing);

    // A stream acs stepped aside from: straight to it, but for the launches that probe it.
    stream_mode& mode = *t.mode;
    const bool adapt = settings().step_aside;
    // Until this launch is issued or enqueued: another thread's launch on the stream must not
    // see a new mode before the join or fork that goes with it (stream_mode.hpp).
    std::unique_lock<futex_lock> mode_held;
    if (adapt) mode_held = mode.hold_launches();
    // A stream that starts aside counts among the redirected ones once a probe redirects it, or
    // at once where it starts relaying (ACS_RELAY=always).
    if (adapt && mode.first_launch() && (!mode.starts_aside() || mode.relaying())) {
      redirected_streams().fetch_add(1, std::memory_order_acq_rel);
      redirecting();
    }
    // This launch, and those its thread bypassed since its previous one on this path.
    const std::uint32_t launches = bypass::take_skipped();
    bool probe = false;
    std::uint64_t probe_entry = 0;  // where the probe times its launches (a launch-bound host)
    if (adapt && mode.mode() == stream_mode_kind::aside) {
      probe = mode.next_aside_launch(launches) == stream_mode::aside_step::probe;
      if (!probe) {
        may_bypass();
        return launch_aside(launch, r, *cuda, t, rt);
      }
      if (mode.times_probes()) probe_entry = now_ns();
    }
    ACS_STAGE(stream);
    // Only a launch that is probed or goes to the scheduler needs its kernel's function.
    if (function_of(r) == nullptr) return issue_directly(launch, r, pass_reason::unknown_function, then::barrier);

    // Every capture begins through a hook: without one in progress, no stream
    // is capturing and the driver need not be asked.
    const unsafe_section section;
    if (!section.allowed() ||
        (capture_in_progress_anywhere() && stream_capturing(*cuda, reinterpret_cast<CUstream>(t.stream.handle))))
      return issue_directly(launch, r, pass_reason::capturing, then::barrier);
    ACS_STAGE(capture);

    declared::launch_footprint& footprint = scratch_footprint();
    // A probe reads no layout itself, unless its burst paused long enough for an acs thread that
    // got no CPU meanwhile.
    const bool reads_itself = probe && mode.probe_waited_enough(background::jobs_begun());
    const std::uint64_t read_from =
        reads_itself && stats::counting_now() && !inference::layout_known(function_of(r)) ? now_ns() : 0;
    const bool settled = plan_launch(r, footprint, /*may_wait=*/!probe || reads_itself);
    if (read_from != 0) stats::count_probe_code_wait(now_ns() - read_from);
    ACS_STAGE(footprint);
    if (probe_entry != 0) mode.probe_began(probe_entry);
    const bool relaying = probe && mode.relaying();  // the probe may start or stop the relay
    if (probe && (!settled || !mode.probed(footprint.access, stream_busy(*cuda, t, footprint.access),
                                           /*may_relay=*/!t.stream.thread_relative,
                                           relay_record_of(t.context->runtime.load(std::memory_order_acquire)),
                                           gpu_waits_here))) {
      relay_switched(relaying, mode.relaying(), t);
      if (!settled) {
        // A provisional footprint says nothing about parallelism. Its kernel's layout is being
        // read on acs's thread: the burst pauses meanwhile (stream_mode_policy::unsettled_pause),
        // and the launches of the pause take the bypass, not this path.
        mode.probe_unsettled(background::jobs_begun());
        stats::count_probe_pause();
        may_bypass();
      }
      const int status = launch_aside(launch, r, *cuda, t, rt);
      if (probe_entry != 0) mode.probe_ended(now_ns());
      return status;
    }

    // Only now the scheduler: a probe that does not redirect its stream needs none, so a program
    // in which acs finds no parallelism never pays for one (pool streams, events, threads).
    rt = runtime_for_launch(*cuda, *t.context);
    if (probe && !relaying) {  // a relaying stream counted already
      redirected_streams().fetch_add(1, std::memory_order_acq_rel);  // redirected (again)
      redirecting();
    }
    if (rt == nullptr || is_broken(*rt)) return issue_directly(launch, r, pass_reason::internal_error, then::barrier);
    ACS_STAGE(runtime);
    if (probe) {
      // Later pool kernels follow what ran on the stream meanwhile.
      rt->sched.barrier(t.stream);
    } else if (adapt && mode.redirected(footprint.access)) {
      // Stepping aside: the stream takes in its pool work first, then its kernels go to it. The
      // count drops only after the join: until then, another thread's barrier or sync on the
      // stream must still join (nothing_redirected).
      if (joinable(t)) rt->sched.before_barrier(t.stream);
      // A stream relayed as soon as it steps aside (ACS_RELAY=always) still counts.
      if (!mode.relaying()) redirected_streams().fetch_sub(1, std::memory_order_acq_rel);
      return launch_aside(launch, r, *cuda, t, rt);
    }
    if (footprint.barrier_before) rt->sched.barrier(t.stream);  // acs_barrier()
    const int status = rt->sched.launch(t.stream, footprint.access, &launch, footprint.group);
    ACS_STAGE(after_launch);
    return status;
  } catch (...) {
    // acs's own bookkeeping failed: this device takes no new kernel from now on. The launch
    // runs on its own stream, after the stream's pool kernels (runtime_of: they are still
    // joined, here and before any later work or sync of their streams).
    if (rt != nullptr) rt->broken.store(true, std::memory_order_relaxed);
    return issue_directly(launch, r, pass_reason::internal_error, then::barrier);
  }
}

ACS_HOT void launched_directly(CUstream stream, default_stream stream_zero, pass_reason why) noexcept {
  runtime_started();
  launch_passed_through();
  stats::count_kernel();
  note_reason(why);
  if (!active()) return;
  guarded("launched_directly", [&] { barrier_on(stream, stream_zero); });
  // A program whose every launch passes as is (XLA sets a programmatic-dependent-launch attribute
  // on each) never makes a stepped-aside launch: the bypass opens here too.
  (void)bypass::take_skipped();
  may_bypass();
}

ACS_HOT void stream_work_begins(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("stream_work_begins", [&] { before_work_on(stream, stream_zero); });
}

ACS_HOT void stream_barrier(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("stream_barrier", [&] { barrier_on(stream, stream_zero); });
}

// Runs `f` once for each managed device but the current one, with that device's primary context
// pushed: the default-stream handles name the current context's stream. The current context is
// restored, also when `f` throws.
template <class F>
void on_other_devices(F f) {
  const driver::table* cuda = driver::real();
  CUcontext current = nullptr;
  if (cuda == nullptr || cuda->cuCtxGetCurrent_(&current) != CUDA_SUCCESS) return;
  for (CUcontext c : managed_primary_contexts()) {
    if (c == current || cuda->cuCtxPushCurrent_(c) != CUDA_SUCCESS) continue;
    struct pop_at_exit {
      const driver::table& cuda;
      ~pop_at_exit() {
        CUcontext popped = nullptr;
        (void)cuda.cuCtxPopCurrent_(&popped);
      }
    } pop{*cuda};
    f();
  }
}

void peer_copy_begins(default_stream stream_zero) noexcept {
  runtime_started();
  if (!active() || nothing_redirected()) return;
  guarded("peer_copy_begins", [&] { on_other_devices([&] { before_work_on(nullptr, stream_zero); }); });
}

void peer_copy_done(default_stream stream_zero) noexcept {
  runtime_started();
  if (!active() || nothing_redirected()) return;
  guarded("peer_copy_done", [&] { on_other_devices([&] { barrier_on(nullptr, stream_zero); }); });
}

std::uint64_t stream_sync_begins(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active() || nothing_redirected()) return scheduler::sync_point();
  return guarded("stream_sync_begins", scheduler::sync_point(), [&] {
    stream_target t;
    device_runtime* rt = runtime_of(stream, stream_zero, t);
    return rt != nullptr && joinable(t) ? rt->sched.join(t.stream) : scheduler::sync_point();
  });
}

void program_waits_for_gpu() noexcept { ++gpu_waits_here; }

// The point first: every kernel stamped before it was queued before it, so the drain issues it.
std::uint64_t device_sync_begins() noexcept {
  const std::uint64_t point = scheduler::sync_point();
  device_work_issued();
  return point;
}

void device_work_issued() noexcept {
  if (!active()) return;
  guarded("device_work_issued", [] {
    for (device_runtime* rt : all_runtimes()) rt->sched.drain();
  });
}

void stream_synchronized(CUstream stream, default_stream stream_zero, std::uint64_t point) noexcept {
  runtime_started();
  if (!active() || nothing_redirected()) return;
  guarded("stream_synchronized", [&] {
    const driver::table* cuda = driver::real();
    stream_target t;
    if (cuda == nullptr || !resolve_stream(*cuda, stream, stream_zero, t) || !t.context->primary) return;
    device_runtime* rt = t.context->runtime.load(std::memory_order_acquire);
    if (rt != nullptr && !is_broken(*rt)) rt->sched.synchronized(t.stream.key, point);
  });
}

// cudaDeviceSynchronize and cuCtxSynchronize wait for the current context only:
// other devices' schedulers keep their entries.
void device_synchronized(std::uint64_t point) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("device_synchronized", [&] {
    const driver::table* cuda = driver::real();
    context_entry* e = cuda != nullptr ? current_context(*cuda) : nullptr;
    if (e == nullptr || !e->primary) return;
    device_runtime* rt = e->runtime.load(std::memory_order_acquire);
    if (rt != nullptr && !is_broken(*rt)) rt->sched.device_synchronized(point);
  });
}

void stream_destroyed(CUstream stream) noexcept {
  runtime_started();
  if (!active() || stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) return;
  guarded("stream_destroyed", [&] {
    // Its relayed launches first (ACS_RELAY): forgetting it may let the bypass reopen.
    if (settings().relays())
      for (device_runtime* rt : all_runtimes()) rt->sched.settle_relayed();
    stream_target was;
    forget_stream(stream, was);
    // Every scheduler, not only the one it was cached for: cheap, and robust
    // should the cache have missed it.
    for (device_runtime* rt : all_runtimes()) rt->sched.forget(reinterpret_cast<std::uintptr_t>(stream));
  });
}

void teardown_begins() noexcept {
  device_work_issued();
  guarded("teardown_begins", [] { trace_flush(); });
}

void device_reset(CUdevice device) noexcept {
  guarded("device_reset", [&] {
    for (const CUcontext context : primary_contexts_of(device)) context_destroyed(context);
  });
}

void modules_unloading() noexcept {
  guarded("modules_unloading", [] {
    for (device_runtime* rt : all_runtimes()) rt->sched.code_unloading();
  });
}

void modules_unloaded(const void* handle) noexcept {
  inference::functions_unloaded();
  guarded("modules_unloaded", [&] { inference::process_code().unloaded(handle); });
}

// Often nested in another entry point (the runtime loads its modules lazily): it only
// records the image, and starts nothing (no tracing, no driver call).
void code_loaded(const void* handle, bool library, const void* image) noexcept {
  if (!active() || !settings().read_ptx) return;
  guarded("code_loaded", [&] {
    inference::process_code().loaded(
        handle, library ? inference::code_handle_kind::library : inference::code_handle_kind::module, image);
    inference::read_code_ahead(handle);  // on acs's background thread, not this one
  });
}

void context_destroyed(CUcontext context) noexcept {
  guarded("context_destroyed", [&] {
    if (context_entry* e = forget_context(context)) forget_streams_of(e);
  });
}

void memory_allocated(CUdeviceptr base, std::size_t bytes, memory_kind kind) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("memory_allocated", [&] { device_allocations().insert(base, bytes, kind); });
}

void memory_reserved(CUdeviceptr base, std::size_t bytes) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("memory_reserved", [&] { device_allocations().reserve(base, bytes); });
}

void reservation_freed(CUdeviceptr base) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("reservation_freed", [&] { device_allocations().unreserve(base); });
}

void memory_freed(CUdeviceptr base) noexcept {
  runtime_started();
  if (!active()) return;
  guarded("memory_freed", [&] { device_allocations().erase(base); });
}

}  // namespace acs
