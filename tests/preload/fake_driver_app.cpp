// A driver-API program for the real libacs on the fake driver (fake/fake_cuda.cpp), which models
// one device well enough for acs to schedule and defer launches on it. Run natively and under
// LD_PRELOAD=libacs.so by run_fake_app.sh; each mode checks for itself what must hold in both
// runs, and exits 0 only then (1 and a line on stderr otherwise).
//
//   deferred_error_sticky     the context fails at the 201st launch, every call after it fails:
//                             launches before succeed, none succeeds after an error, and after any
//                             call that reported the error every launch does; nothing is lost
//   deferred_error_fault      the context fails while acs's threads have nothing to do: the first
//                             call after it reports it, and so does the launch that follows
//   deferred_error_attribute  cuFuncSetAttribute lowers a function's shared memory limit: its
//                             launches then fail, each returning its own error (not sticky), and
//                             every launch that returned success ran
//   attribute_repeats         CUTLASS's shape: the shared memory limit set to the same value before
//                             each of 300 launches (and another kernel's launch after each): all
//                             succeed and run; then lowered, and set again to the lowered value
//                             before each launch over it: each such launch returns its own error;
//                             raised: each succeeds again (preload.fake_driver_attribute_repeats
//                             requires those sets counted as repeats, and the launches relayed)
//   kernel_attribute_repeats  the same with cuKernelSetAttribute (device 0), as the CUDA 12+
//                             libraries set it (preload.fake_driver_kernel_attribute_repeats)
//   deferred_error_sticky_chain  the same with a dependent chain (every launch the same buffers):
//                             acs steps aside from the stream, and with ACS_GRAPH=auto replays it
//   chain_replay              a dependent chain in bursts of 64 launches, a stream sync after
//                             each: every launch succeeds and runs exactly once
//   side_effects_cuda         cuInit finds CUDA_DEVICE_MAX_CONNECTIONS as FAKE_EXPECT_CONNECTIONS says
//                             under acs (unset by default and without acs):
//                             with ACS_CONNECTIONS, acs sets it at the first CUDA call, before any context
//   serial_phase_then_loop    20000 launches of a dependent chain with a sync every 64, then 3000
//                             independent ones: every launch succeeds and runs (check_serial_phase.sh
//                             checks that acs redirects the loop)
//   threads_serial_then_loop  the same on 4 threads, each its own stream: every launch succeeds
//                             and runs; prints the launches acs put on its pool (check_bypass.sh)
//   pdl_loop                  20000 launches allowing programmatic dependent launch, as XLA's:
//                             each succeeds, runs, keeps its attribute (check_bypass.sh)
//   membarrier_fence          before anything else, asks membarrier(2) for the expedited fence, which
//                             works only in a process registered for it: libacs registers at load
//                             (src/support/bypass.hpp, prepare); prints whether it worked
//   threads_at_first_call     counts the process's threads before and after its first CUDA call
//                             (cuInit): acs starts its background thread there, not inside the
//                             launch whose probe first needs it (src/runtime/background.hpp)
//   graph_arguments           60 bodies of 16 independent launches and a stream sync, kernel 3's
//                             scalar argument changing every body from body 30: every kernel runs
//                             with the arguments it was launched with (the fake's run digest);
//                             with FAKE_EXPECT_GRAPHS=1 under acs (ACS_GRAPH=auto, FAKE_CUDA_GRAPHS=1,
//                             ACS_GRAPH_KERNELS=8), replays also set no node while the arguments recur
//                             and only the changed node where they change
//   threads_handoff_loop      a training step's shape: two threads take turns launching on one
//                             stream, busy between launches; prints the loop's time (check_relay.sh)
//   process_fork              15 times: a burst of launches, then fork(); the child finds every
//                             launch issued, passes its own launch straight through, calls exit()
//                             and is gone within 5 s, printing nothing (ACS_STATS=1 is set)
#include <cuda.h>
#include <dirent.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake/fake_calls.hpp"

extern "C" {
void fake_cuda_fail_after_launches(std::uint64_t n);
void fake_cuda_fail_now();
void fake_cuda_launches(std::uint64_t* seen, std::uint64_t* run);
const char* fake_cuda_connections_at_init();
std::size_t fake_cuda_call_count();
std::uint64_t fake_cuda_proc_lookups();
std::uint64_t fake_cuda_run_digest();
int fake_cuda_call_at(std::size_t i, fake_call* out);
}

namespace {

std::atomic<int> failures{0};

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fake_driver_app: FAILED: %s\n", what);
  ++failures;
}

struct program {
  CUstream stream = nullptr;
  CUdeviceptr buffers[8] = {};
  const CUfunction function = reinterpret_cast<CUfunction>(0x4240);

  program() {
    expect(cuInit(0) == CUDA_SUCCESS, "cuInit");
    expect(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "cuStreamCreate");
    for (CUdeviceptr& b : buffers) expect(cuMemAlloc(&b, 4096) == CUDA_SUCCESS, "cuMemAlloc");
  }

  // Launch i reads and writes two of the buffers: launches four apart conflict, the others not.
  CUresult launch(int i, unsigned shared = 0) {
    CUdeviceptr a = buffers[2 * (i % 4)], b = buffers[2 * (i % 4) + 1];
    void* params[] = {&a, &b};
    return cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, shared, stream, params, nullptr);
  }
};

std::uint64_t launches_seen() {
  std::uint64_t seen = 0, run = 0;
  fake_cuda_launches(&seen, &run);
  return seen;
}

std::uint64_t launches_run() {
  std::uint64_t seen = 0, run = 0;
  fake_cuda_launches(&seen, &run);
  return run;
}

// First index in [from, to) whose result is an error; `to` if none.
int first_error(const std::vector<CUresult>& r, int from, int to) {
  for (int i = from; i < to; ++i)
    if (r[i] != CUDA_SUCCESS) return i;
  return to;
}

int sticky(bool chain) {
  program p;
  fake_cuda_fail_after_launches(200);
  std::vector<CUresult> r(400);
  for (int i = 0; i < 300; ++i) r[i] = p.launch(chain ? 0 : i);
  // Any call acs sees: it reaches the driver, which reports the failure; from then on every
  // launch must return it too, as it would without acs.
  const CUresult query = cuStreamQuery(p.stream);
  for (int i = 300; i < 400; ++i) r[i] = p.launch(chain ? 0 : i);
  const CUresult sync = cuCtxSynchronize();

  expect(first_error(r, 0, 200) == 200, "a launch before the failure returned an error");
  const int first = first_error(r, 200, 400);
  std::printf("first launch to return the error: %d (launches 200-399 fail without acs)\n", first);
  expect(first <= 300, "no launch returned the error, even after a call reported it");
  for (int i = first; i < 400; ++i) {
    if (r[i] == CUDA_SUCCESS) {
      expect(false, "a launch succeeded after one had returned the error");
      break;
    }
    expect(r[i] == CUDA_ERROR_LAUNCH_FAILED, "a failing launch returned another error");
  }
  expect(query == CUDA_ERROR_LAUNCH_FAILED, "cuStreamQuery after the failure did not return it");
  expect(sync == CUDA_ERROR_LAUNCH_FAILED, "cuCtxSynchronize did not return the failure");
  expect(launches_seen() == 400, "not every launch reached the driver exactly once");
  return failures == 0 ? 0 : 1;
}

int chain_replay() {
  program p;
  constexpr int bursts = 40, burst = 64;
  int succeeded = 0;
  for (int b = 0; b < bursts; ++b) {
    for (int i = 0; i < burst; ++i) succeeded += p.launch(0) == CUDA_SUCCESS;
    expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
    expect(launches_run() == static_cast<std::uint64_t>((b + 1) * burst), "a launch before the sync had not run");
  }
  expect(succeeded == bursts * burst, "a launch failed");
  expect(launches_seen() == bursts * burst, "not every launch reached the driver exactly once");
  return failures == 0 ? 0 : 1;
}

// The calls named `name` in the fake's log from index `from` on.
std::size_t calls_named(const char* name, std::size_t from) {
  std::size_t n = 0;
  fake_call c{};
  for (std::size_t i = from; i < fake_cuda_call_count(); ++i)
    if (fake_cuda_call_at(i, &c) != 0 && std::strcmp(c.name, name) == 0) ++n;
  return n;
}

int graph_arguments() {
  program p;
  constexpr int bodies = 60, per_body = 16, steady_from = 10, changes_from = 30;
  std::uint64_t expected = 0;
  std::size_t steady = 0, changing = 0, end_of_steady = 0;
  for (int body = 0; body < bodies; ++body) {
    if (body == steady_from) steady = fake_cuda_call_count();
    if (body == changes_from) end_of_steady = fake_cuda_call_count();
    if (body == changes_from + 1) changing = fake_cuda_call_count();  // after the first change
    for (int k = 0; k < per_body; ++k) {
      CUdeviceptr buffer = p.buffers[k % 8];
      std::uint64_t scalar = k == 3 && body >= changes_from ? 1000 + body : k;  // never an address
      void* params[] = {&buffer, &scalar};
      // The body's second half on two blocks: its segment has a key (and an executable) of its own.
      const unsigned grid = k < per_body / 2 ? 1 : 2;
      expect(cuLaunchKernel(p.function, grid, 1, 1, 32, 1, 1, 0, p.stream, params, nullptr) == CUDA_SUCCESS,
             "cuLaunchKernel");
      expected += fake_kernel_digest(p.function, buffer, scalar);
    }
    expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  }
  expect(launches_run() == bodies * per_body, "not every launch ran exactly once");
  expect(fake_cuda_run_digest() == expected, "a kernel ran with other arguments than it was launched with");
  const std::size_t steady_graphs = calls_named("cuGraphLaunch", steady) - calls_named("cuGraphLaunch", end_of_steady);
  const std::size_t steady_sets = calls_named("cuGraphExecKernelNodeSetParams", steady) -
                                  calls_named("cuGraphExecKernelNodeSetParams", end_of_steady);
  const std::size_t changing_graphs = calls_named("cuGraphLaunch", changing);
  const std::size_t changing_sets = calls_named("cuGraphExecKernelNodeSetParams", changing);
  std::printf("graph launches %zu with %zu nodes set while the arguments recur; %zu with %zu while one changes\n",
              steady_graphs, steady_sets, changing_graphs, changing_sets);
  if (std::getenv("FAKE_EXPECT_GRAPHS") != nullptr && std::getenv("LD_PRELOAD") != nullptr) {
    expect(steady_graphs > 0 && changing_graphs > 0, "the bodies were not replayed as graphs");
    expect(steady_sets == 0, "a node was set although its arguments recurred");
    // One segment of each body holds kernel 3: one node set per body, at most (fewer where the idle
    // flush of a loaded machine sent a segment call by call).
    expect(changing_sets > 0 && changing_sets <= static_cast<std::size_t>(bodies - changes_from - 1) &&
               changing_sets <= changing_graphs,
           "the changed node was not set once per replay of its segment, or other nodes were set too");
  }
  return failures == 0 ? 0 : 1;
}

// The set-up of the relay's loops, as a runtime program's: the primary context current (acs's
// thread reads layouts in it), `setup` launches past the first probe (ACS_FIRST_PROBE, 64) and a
// sync, then time for acs's thread to read the kernel's layout (a probe does not wait for it:
// until then its launches count nothing). Returns the launches that succeeded.
int relay_loop_setup(program& p, int setup) {
  CUcontext context = nullptr;
  expect(cuDevicePrimaryCtxRetain(&context, 0) == CUDA_SUCCESS && cuCtxSetCurrent(context) == CUDA_SUCCESS,
         "the primary context");
  int succeeded = 0;
  for (int i = 0; i < setup; ++i) succeeded += p.launch(i) == CUDA_SUCCESS;
  expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return succeeded;
}

// The program's own work between launches: `us` of busy host time.
void host_work(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Launches of neighbours that do not conflict (four apart do), with the host busy `host_us`
// between them (0: a tight loop, which only launches), a sync after each burst of 500.
int launch_loop(int host_us) {
  program p;
  constexpr int bursts = 8, burst = 500, setup = 100;
  int succeeded = relay_loop_setup(p, setup);
  for (int b = 0; b < bursts; ++b) {
    for (int i = 0; i < burst; ++i) {
      host_work(host_us);
      succeeded += p.launch(i) == CUDA_SUCCESS;
    }
    expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  }
  expect(succeeded == bursts * burst + setup, "a launch failed");
  expect(launches_run() == static_cast<std::uint64_t>(bursts * burst + setup), "a launch before the last sync had not run");
  return failures == 0 ? 0 : 1;
}

// A training step's shape (PyTorch's autograd runs the backward pass on a thread of its own):
// thread A makes 40 launches with 10 us of host work before each, hands over to thread B and
// sleeps until B, which makes 60 launches the same way on the same stream, hands back; A then
// waits for the stream, 100 times. Prints the loop's wall time (ms) for a comparison of settings.
int threads_handoff_loop() {
  program p;
  constexpr int iterations = 100, forward = 40, backward = 60, setup = 100;
  int succeeded = relay_loop_setup(p, setup);
  CUcontext context = nullptr;  // the primary one, made current by relay_loop_setup
  expect(cuCtxGetCurrent(&context) == CUDA_SUCCESS && context != nullptr, "the context of A");
  std::mutex m;
  std::condition_variable turn;
  int owner = 0;  // 0: A, 1: B, 2: B stops
  std::atomic<int> by_b{0};
  std::thread b([&] {
    expect(cuCtxSetCurrent(context) == CUDA_SUCCESS, "the context on B");
    for (;;) {
      std::unique_lock lock(m);
      turn.wait(lock, [&] { return owner != 0; });
      if (owner == 2) return;
      lock.unlock();
      for (int i = 0; i < backward; ++i) {
        host_work(10);
        by_b += p.launch(i) == CUDA_SUCCESS;
      }
      lock.lock();
      owner = 0;
      turn.notify_all();
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < forward; ++i) {
      host_work(10);
      succeeded += p.launch(i) == CUDA_SUCCESS;
    }
    std::unique_lock lock(m);
    owner = 1;
    turn.notify_all();
    turn.wait(lock, [&] { return owner == 0; });
    lock.unlock();
    expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  {
    std::lock_guard lock(m);
    owner = 2;
  }
  turn.notify_all();
  b.join();
  succeeded += by_b;
  expect(succeeded == setup + iterations * (forward + backward), "a launch failed");
  expect(launches_run() == static_cast<std::uint64_t>(setup + iterations * (forward + backward)),
         "a launch before the last sync had not run");
  std::printf("threads_handoff_loop: %.3f ms\n", ms);
  return failures == 0 ? 0 : 1;
}

// An iterative solver's shape: host work, then a launch and at once a sync that waits for it
// (the read-back of a residual), 4000 times.
int launch_sync_loop() {
  program p;
  constexpr int iterations = 4000, setup = 100;
  int succeeded = relay_loop_setup(p, setup);
  for (int i = 0; i < iterations; ++i) {
    host_work(20);
    succeeded += p.launch(i) == CUDA_SUCCESS;
    expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
    expect(launches_run() == static_cast<std::uint64_t>(setup + i + 1), "a launch before its sync had not run");
  }
  expect(succeeded == iterations + setup, "a launch failed");
  return failures == 0 ? 0 : 1;
}

// A long serialised phase (a dependent chain, a sync every 64 launches: a warm-up or profiling
// pass), then a loop of launches each independent of the one before, one sync at its end.
int serial_phase_then_loop() {
  program p;
  constexpr int serial = 20000, loop = 3000;
  int succeeded = 0;
  for (int i = 0; i < serial; ++i) {
    succeeded += p.launch(0) == CUDA_SUCCESS;
    if (i % 64 == 63) expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  }
  for (int i = 0; i < loop; ++i) succeeded += p.launch(i) == CUDA_SUCCESS;
  expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize after the loop");
  expect(succeeded == serial + loop, "a launch failed");
  expect(launches_run() == static_cast<std::uint64_t>(serial + loop), "a launch before the last sync had not run");
  return failures == 0 ? 0 : 1;
}

// The same on 4 threads at once, each on its own stream, which all step aside in the serial phase
// (under acs the bypass opens then: src/support/bypass.hpp); when all are done with it, they
// begin their loops, whose parallelism is found while the other threads' launches may still be
// inside the bypass. Prints how many launches ran
// on streams the program did not create (acs's pool), for check_bypass.sh.
int threads_serial_then_loop() {
  constexpr int threads = 4, warm = 100, serial = 6000, loop = 3000;
  std::vector<program> programs(threads);
  std::atomic<int> succeeded{0}, serial_done{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      program& p = programs[t];
      int ok = 0;
      // Past the stream's first probe (after 64 launches), then a pause: under acs, its kernel's
      // layout is read on acs's background thread meanwhile, which a loaded machine may starve,
      // and a probe waits for it (each stream's burst stays open until then).
      for (int i = 0; i < warm; ++i) ok += p.launch(0) == CUDA_SUCCESS;
      expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize after the warm-up");
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      for (int i = 0; i < serial; ++i) {
        ok += p.launch(0) == CUDA_SUCCESS;
        if (i % 64 == 63) expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
      }
      // Every thread's chain first: once one stream is redirected, the bypass stays closed.
      serial_done.fetch_add(1);
      while (serial_done.load() < threads) std::this_thread::yield();
      for (int i = 0; i < loop; ++i) ok += p.launch(i) == CUDA_SUCCESS;
      expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize after the loop");
      succeeded += ok;
    });
  for (std::thread& w : workers) w.join();
  expect(succeeded == threads * (warm + serial + loop), "a launch failed");
  expect(launches_run() == static_cast<std::uint64_t>(threads * (warm + serial + loop)),
         "a launch before its stream's last sync had not run");
  std::uint64_t elsewhere = 0;
  fake_call c;
  for (std::size_t i = 0, n = fake_cuda_call_count(); i < n; ++i) {
    if (fake_cuda_call_at(i, &c) == 0 || std::strncmp(c.name, "cuLaunchKernel", 14) != 0) continue;
    bool own = false;
    for (const program& p : programs) own = own || c.stream == p.stream;
    elsewhere += own ? 0 : 1;
  }
  std::printf("launches on acs's pool streams: %llu\n", static_cast<unsigned long long>(elsewhere));
  return failures == 0 ? 0 : 1;
}

// XLA's way: every launch allows programmatic dependent launch (acs passes such launches as they
// are), a sync every 64. Every launch succeeds, runs, and keeps its attribute (the fake's log).
int pdl_loop() {
  program p;
  constexpr int launches = 20000;
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  int succeeded = 0;
  for (int i = 0; i < launches; ++i) {
    CUdeviceptr a = p.buffers[0], b = p.buffers[1];
    void* params[] = {&a, &b};
    CUlaunchConfig config{};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 32;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = p.stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    succeeded += cuLaunchKernelEx(&config, p.function, params, nullptr) == CUDA_SUCCESS;
    if (i % 64 == 63) expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  }
  expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize after the loop");
  expect(succeeded == launches, "a launch failed");
  expect(launches_run() == static_cast<std::uint64_t>(launches), "a launch before the last sync had not run");
  std::size_t kept = 0;
  fake_call c;
  for (std::size_t i = 0, n = fake_cuda_call_count(); i < n; ++i)
    if (fake_cuda_call_at(i, &c) != 0 && std::strcmp(c.name, "cuLaunchKernelEx") == 0 && c.stream == p.stream &&
        c.programmatic == 1)
      ++kept;
  expect(kept == static_cast<std::size_t>(launches), "a launch lost its attribute or its stream");
  return failures == 0 ? 0 : 1;
}

// Under acs, the program's first launch asks the driver for no entry point: acs resolved its
// table of driver functions (40 look-ups) after an earlier
// successful call, not inside the launch, which a program may be timing (FDTD3d).
int first_launch_lookups() {
  program p;
  const std::uint64_t before = fake_cuda_proc_lookups();
  expect(p.launch(0) == CUDA_SUCCESS, "the first launch");
  const std::uint64_t during = fake_cuda_proc_lookups() - before;
  std::printf("look-ups before the first launch: %llu, during it: %llu\n", static_cast<unsigned long long>(before),
              static_cast<unsigned long long>(during));
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "libacs") != nullptr)
    expect(before > 0, "acs resolved its driver table before the first launch");
  expect(during == 0, "the first launch looked entry points up");
  expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize");
  return failures == 0 ? 0 : 1;
}

int fault() {
  program p;
  // Relayed (ACS_RELAY set): the first launch, then time for acs's thread to read the kernel's
  // layout: a relay copies a launch only once it is read, and 200 launches in a burst can all come
  // before that on a loaded machine (none relayed in 17 runs, about once in 40 ctest runs). Not
  // otherwise: the pause would let the pool's threads fall asleep, and the burst would then be
  // made on the program's thread (none deferred in 22 runs, about once in 6 under ACS_GRAPH=pool).
  expect(p.launch(0) == CUDA_SUCCESS, "the first launch failed");
  const char* relay = std::getenv("ACS_RELAY");
  if (relay != nullptr && std::strcmp(relay, "off") != 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 1; i < 200; ++i) expect(p.launch(i) == CUDA_SUCCESS, "a launch before the fault failed");
  expect(cuStreamSynchronize(p.stream) == CUDA_SUCCESS, "cuStreamSynchronize before the fault");
  fake_cuda_fail_now();  // e.g. a kernel fault noticed now: acs's threads made no call since
  expect(cuStreamQuery(p.stream) == CUDA_ERROR_LAUNCH_FAILED, "cuStreamQuery did not report the failure");
  expect(p.launch(200) == CUDA_ERROR_LAUNCH_FAILED, "the launch after a reported failure succeeded");
  expect(p.launch(201) == CUDA_ERROR_LAUNCH_FAILED, "the second launch after it succeeded");
  expect(cuCtxSynchronize() == CUDA_ERROR_LAUNCH_FAILED, "cuCtxSynchronize did not return the failure");
  expect(launches_seen() == 202, "not every launch reached the driver exactly once");
  return failures == 0 ? 0 : 1;
}

int attribute() {
  program p;
  int succeeded = 0;
  for (int i = 0; i < 100; ++i) succeeded += p.launch(i, 1024) == CUDA_SUCCESS;
  expect(succeeded == 100, "a launch within the limit failed");
  // Lowered below what the launches ask: each of them must fail, now, with its own error.
  expect(cuFuncSetAttribute(p.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 512) == CUDA_SUCCESS,
         "cuFuncSetAttribute");
  int rejected = 0;
  for (int i = 100; i < 200; ++i) {
    const CUresult r = p.launch(i, 1024);
    rejected += r == CUDA_ERROR_INVALID_VALUE;
    succeeded += r == CUDA_SUCCESS;
  }
  std::printf("launches over the lowered limit that returned their error: %d of 100\n", rejected);
  expect(rejected == 100, "a launch over the lowered limit did not return its error");
  expect(cuFuncSetAttribute(p.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 48 * 1024) == CUDA_SUCCESS,
         "cuFuncSetAttribute");
  int after = 0;
  for (int i = 200; i < 300; ++i) after += p.launch(i, 1024) == CUDA_SUCCESS;
  succeeded += after;
  expect(after == 100, "a launch within the raised limit failed");
  expect(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize");
  expect(launches_seen() == 300, "not every launch reached the driver exactly once");
  expect(launches_run() == static_cast<std::uint64_t>(succeeded), "a launch returned success but did not run");
  return failures == 0 ? 0 : 1;
}

int attribute_repeats(bool through_kernel) {
  program p;
  const CUfunction other = reinterpret_cast<CUfunction>(0x4260);
  const auto set_limit = [&](int bytes) {
    const CUresult r = through_kernel ? cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes,
                                                             reinterpret_cast<CUkernel>(p.function), 0)
                                      : cuFuncSetAttribute(p.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    expect(r == CUDA_SUCCESS, through_kernel ? "cuKernelSetAttribute" : "cuFuncSetAttribute");
  };
  const auto launch_other = [&](int i) {
    CUdeviceptr a = p.buffers[2 * (i % 4)], b = p.buffers[2 * (i % 4) + 1];
    void* params[] = {&a, &b};
    return cuLaunchKernel(other, 1, 1, 1, 32, 1, 1, 0, p.stream, params, nullptr);
  };
  int succeeded = 0;
  for (int i = 0; i < 300; ++i) {
    set_limit(2048);  // the same value each time: changes nothing
    succeeded += p.launch(i, 1024) == CUDA_SUCCESS;
    succeeded += launch_other(i) == CUDA_SUCCESS;
  }
  expect(succeeded == 600, "a launch within the limit failed");
  set_limit(512);  // lowered: each launch over it must return its own error, now
  int rejected = 0;
  for (int i = 0; i < 100; ++i) {
    set_limit(512);  // the lowered value again: still lowered
    const CUresult r = p.launch(i, 1024);
    rejected += r == CUDA_ERROR_INVALID_VALUE;
    succeeded += r == CUDA_SUCCESS;
    succeeded += launch_other(i) == CUDA_SUCCESS;
  }
  std::printf("launches over the lowered limit that returned their error: %d of 100\n", rejected);
  expect(rejected == 100, "a launch over the lowered limit did not return its error");
  set_limit(2048);
  int after = 0;
  for (int i = 0; i < 100; ++i) {
    set_limit(2048);
    after += p.launch(i, 1024) == CUDA_SUCCESS;
  }
  succeeded += after;
  expect(after == 100, "a launch within the raised limit failed");
  expect(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize");
  expect(launches_seen() == 900, "not every launch reached the driver exactly once");
  expect(launches_run() == static_cast<std::uint64_t>(succeeded), "a launch returned success but did not run");
  return failures == 0 ? 0 : 1;
}

int side_effects() {
  const char* preload = std::getenv("LD_PRELOAD");
  const bool under_acs = preload != nullptr && std::strstr(preload, "libacs") != nullptr;
  program p;  // its first call is cuInit
  const std::string seen = fake_cuda_connections_at_init();
  std::printf("CUDA_DEVICE_MAX_CONNECTIONS when cuInit ran: %s\n", seen.c_str());
  // What acs must have set (ACS_CONNECTIONS, given by the test): unset by default, and always natively.
  const char* expected = std::getenv("FAKE_EXPECT_CONNECTIONS");
  expect(seen == (under_acs && expected != nullptr ? expected : "unset"),
         "CUDA_DEVICE_MAX_CONNECTIONS was not as expected at cuInit");
  for (int i = 0; i < 100; ++i) expect(p.launch(i) == CUDA_SUCCESS, "a launch failed");
  expect(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize");
  return failures == 0 ? 0 : 1;
}

// In the child, right after fork(): its exit status says what held.
[[noreturn]] void child(program& p, std::uint64_t launched, int stderr_file) {
  dup2(stderr_file, STDERR_FILENO);  // whatever the child prints at exit goes there
  int status = 0;
  if (launches_seen() != launched) status |= 1;  // fork() came before everything was issued
  if (p.launch(0) != CUDA_SUCCESS) status |= 2;
  fake_call last{};
  if (fake_cuda_call_at(fake_cuda_call_count() - 1, &last) == 0 || last.stream != p.stream)
    status |= 4;  // not passed straight through, on the program's own stream
  std::exit(status);
}

// Whether the child exited with status 0 within 5 s; it is killed otherwise.
bool reaped(pid_t pid, int round) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::fprintf(stderr, "fake_driver_app: round %d: the child did not exit within 5 s\n", round);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::fprintf(stderr, "fake_driver_app: round %d: the child exited with %d (1: launches not issued before fork, "
               "2: its launch failed, 4: its launch was not passed through)\n",
               round, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return false;
}

int process_fork() {
  program p;
  constexpr int rounds = 15, burst = 100;
  int exited = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < burst; ++i) expect(p.launch(i) == CUDA_SUCCESS, "a launch in the parent failed");
    char path[] = "/tmp/acs_fork_child_XXXXXX";
    const int file = mkstemp(path);
    expect(file >= 0, "mkstemp");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) child(p, static_cast<std::uint64_t>(burst) * (round + 1), file);
    expect(pid > 0, "fork");
    exited += reaped(pid, round);
    std::string printed(4096, '\0');
    printed.resize(static_cast<std::size_t>(std::max<ssize_t>(0, pread(file, printed.data(), printed.size(), 0))));
    close(file);
    unlink(path);
    if (!printed.empty()) std::fprintf(stderr, "fake_driver_app: round %d: the child printed: %s\n", round, printed.c_str());
    expect(printed.empty(), "the child printed something at exit");
  }
  std::printf("children that exited at once: %d of %d\n", exited, rounds);
  expect(exited == rounds, "a child did not exit properly");
  expect(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize in the parent");
  expect(launches_run() == static_cast<std::uint64_t>(rounds) * burst, "a launch of the parent did not run");
  return failures == 0 ? 0 : 1;
}

// Launches of two dependent chains, on two streams, interleaved with the program's other stream
// work: asynchronous copies, an event recorded on one stream and waited on by the other,
// synchronous copies (the legacy stream), stream and context syncs. Each call the program makes
// is noted; the driver must have received them in exactly that order (the fake's log, acs's own
// calls left out). Under ACS_RELAY the launches reach the driver from acs's thread: every other
// call must still come after the launches made before it.
int relay_order() {
  program p;
  CUcontext context = nullptr;  // current, as a runtime program's
  expect(cuDevicePrimaryCtxRetain(&context, 0) == CUDA_SUCCESS && cuCtxSetCurrent(context) == CUDA_SUCCESS,
         "the primary context");
  CUstream other = nullptr;
  CUevent event = nullptr;
  expect(cuStreamCreate(&other, CU_STREAM_DEFAULT) == CUDA_SUCCESS, "cuStreamCreate");
  expect(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS, "cuEventCreate");
  const CUfunction second = reinterpret_cast<CUfunction>(0x4250);
  std::vector<fake_call> made;
  const auto note = [&](const char* name, CUstream s, CUfunction f, CUresult r) {
    expect(r == CUDA_SUCCESS, name);
    made.push_back({name, s, f});
  };
  const auto chain = [&](CUstream s, CUfunction f) {
    CUdeviceptr a = p.buffers[s == p.stream ? 0 : 2], b = p.buffers[s == p.stream ? 1 : 3];
    void* params[] = {&a, &b};
    note("cuLaunchKernel", s, f, cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr));
  };
  static char host[4096];
  for (int round = 0; round < 300; ++round) {
    for (int i = 0; i < 5; ++i) chain(p.stream, i % 2 == 0 ? p.function : second);
    note("cuMemcpyAsync", p.stream, nullptr, cuMemcpyAsync(p.buffers[4], p.buffers[5], 64, p.stream));
    for (int i = 0; i < 3; ++i) chain(other, p.function);
    note("cuEventRecord", p.stream, nullptr, cuEventRecord(event, p.stream));
    note("cuStreamWaitEvent", other, nullptr, cuStreamWaitEvent(other, event, 0));
    chain(other, second);
    chain(p.stream, p.function);
    if (round % 10 == 0) note("cuMemcpyHtoD_v2", nullptr, nullptr, cuMemcpyHtoD(p.buffers[6], host, 64));
    if (round % 7 == 0) note("cuStreamSynchronize", other, nullptr, cuStreamSynchronize(other));
  }
  note("cuCtxSynchronize", nullptr, nullptr, cuCtxSynchronize());
  // The driver's log, restricted to the program's calls: its entry points, on its streams.
  std::vector<fake_call> seen;
  fake_call c;
  for (std::size_t i = 0, n = fake_cuda_call_count(); i < n; ++i) {
    if (fake_cuda_call_at(i, &c) == 0) continue;
    const bool ours = c.stream == p.stream || c.stream == other || c.stream == nullptr;
    bool named = false;
    for (const char* name : {"cuLaunchKernel", "cuMemcpyAsync", "cuEventRecord", "cuStreamWaitEvent",
                             "cuMemcpyHtoD_v2", "cuStreamSynchronize", "cuCtxSynchronize"})
      named = named || std::strcmp(c.name, name) == 0;
    if (ours && named) seen.push_back(c);
  }
  std::size_t same = 0;
  while (same < made.size() && same < seen.size() && std::strcmp(made[same].name, seen[same].name) == 0 &&
         made[same].stream == seen[same].stream && made[same].function == seen[same].function)
    ++same;
  std::printf("calls made: %zu, the driver received: %zu, in the same order: %zu\n", made.size(), seen.size(), same);
  if (same < made.size() && same < seen.size())
    std::fprintf(stderr, "fake_driver_app: call %zu: made %s on %p, the driver received %s on %p\n", same,
                 made[same].name, static_cast<void*>(made[same].stream), seen[same].name,
                 static_cast<void*>(seen[same].stream));
  expect(same == made.size() && seen.size() == made.size(), "the driver received the calls in another order");
  return failures == 0 ? 0 : 1;
}

}  // namespace

// No CUDA call comes first: only what happened when the libraries loaded counts.
int membarrier_fence() {
  const long supported = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (supported <= 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
    std::printf("membarrier: unsupported here\n");
    return 0;
  }
  const bool fenced = syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
  std::printf("membarrier: the expedited fence %s\n", fenced ? "works (registered at load)" : "is refused (not registered)");
  return 0;
}

int thread_count() {
  int n = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(tasks))
      if (e->d_name[0] != '.') ++n;
    closedir(tasks);
  }
  return n;
}

int threads_at_first_call() {
  const int before = thread_count();
  expect(cuInit(0) == CUDA_SUCCESS, "cuInit");
  // A thread may take a moment to show in /proc after its creation returned: wait up to 1 s.
  int after = thread_count();
  for (int i = 0; i < 100 && after == before; ++i) {
    usleep(10000);
    after = thread_count();
  }
  std::printf("threads started by the first CUDA call: %d\n", after - before);
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "membarrier_fence") == 0) return membarrier_fence();
  if (std::strcmp(mode, "threads_at_first_call") == 0) return threads_at_first_call();
  if (std::strcmp(mode, "deferred_error_sticky") == 0) return sticky(false);
  if (std::strcmp(mode, "deferred_error_sticky_chain") == 0) return sticky(true);
  if (std::strcmp(mode, "chain_replay") == 0) return chain_replay();
  if (std::strcmp(mode, "graph_arguments") == 0) return graph_arguments();
  if (std::strcmp(mode, "deferred_error_fault") == 0) return fault();
  if (std::strcmp(mode, "deferred_error_attribute") == 0) return attribute();
  if (std::strcmp(mode, "attribute_repeats") == 0) return attribute_repeats(false);
  if (std::strcmp(mode, "kernel_attribute_repeats") == 0) return attribute_repeats(true);
  if (std::strcmp(mode, "process_fork") == 0) return process_fork();
  if (std::strcmp(mode, "side_effects_cuda") == 0) return side_effects();
  if (std::strcmp(mode, "launch_loop") == 0) return launch_loop(0);
  if (std::strcmp(mode, "launch_loop_busy_host") == 0) return launch_loop(50);
  if (std::strcmp(mode, "launch_sync_loop") == 0) return launch_sync_loop();
  if (std::strcmp(mode, "threads_handoff_loop") == 0) return threads_handoff_loop();
  if (std::strcmp(mode, "serial_phase_then_loop") == 0) return serial_phase_then_loop();
  if (std::strcmp(mode, "first_launch_lookups") == 0) return first_launch_lookups();
  if (std::strcmp(mode, "threads_serial_then_loop") == 0) return threads_serial_then_loop();
  if (std::strcmp(mode, "pdl_loop") == 0) return pdl_loop();
  if (std::strcmp(mode, "relay_order") == 0) return relay_order();
  std::fprintf(stderr, "usage: fake_driver_app deferred_error_sticky|deferred_error_sticky_chain|chain_replay|"
               "deferred_error_fault|deferred_error_attribute|process_fork|side_effects_cuda|launch_loop|"
               "launch_loop_busy_host|launch_sync_loop|serial_phase_then_loop|first_launch_lookups|threads_serial_then_loop|pdl_loop|"
               "relay_order\n");
  return 2;
}
