// The runtime side of dispatch.hpp on a simulated CUDA driver (a fake table of
// driver functions): stream resolution, the default streams, capture, foreign
// contexts, barriers, syncs and stream-handle reuse. The fake records every
// call; tests check what reached it. The scheduler's own rules are proven in
// tests/sim; here the point is that the runtime feeds it correctly.
#include <gtest/gtest.h>

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "annotations/inferred/allocation_map.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/runtime/capture.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/runtime/devices.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/streams.hpp"
#include "src/support/stats.hpp"

namespace acs {
namespace {

// ---------------------------------------------------------------- fake driver

struct call {
  enum kind { record, wait, launch, create_stream } what;
  CUstream stream;
  CUevent event;
};

struct fake_state {
  std::mutex mutex;
  std::uintptr_t next_handle = 0x10'0000;
  std::map<CUcontext, std::pair<CUdevice, bool>> contexts;  // device, primary
  std::map<CUdevice, CUcontext> primaries;
  std::map<CUstream, std::pair<CUcontext, unsigned>> streams;  // context, flags
  std::set<CUstream> pool_streams;                             // created through cuStreamCreate*
  std::map<CUstream, int> priorities;                          // those not of the default priority
  std::set<CUstream> capturing;
  std::map<CUfunction, std::vector<std::pair<size_t, size_t>>> layouts;
  std::vector<call> calls;

  template <class T>
  T handle() {
    next_handle += 0x40;
    return reinterpret_cast<T>(next_handle);
  }
  void log(call c) { calls.push_back(c); }
};

fake_state& fake() {
  static fake_state s;
  return s;
}

// A handle nothing in the fake knows about.
template <class T>
T unknown_handle() {
  std::lock_guard lock(fake().mutex);
  return fake().handle<T>();
}
thread_local std::vector<CUcontext> context_stack;

CUresult ctx_get_current(CUcontext* c) {
  *c = context_stack.empty() ? nullptr : context_stack.back();
  return CUDA_SUCCESS;
}
CUresult ctx_push(CUcontext c) {
  context_stack.push_back(c);
  return CUDA_SUCCESS;
}
CUresult ctx_pop(CUcontext* c) {
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *c = context_stack.back();
  context_stack.pop_back();
  return CUDA_SUCCESS;
}
CUresult ctx_get_device(CUdevice* d) {
  std::lock_guard lock(fake().mutex);
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  const auto it = fake().contexts.find(context_stack.back());
  if (it == fake().contexts.end()) return CUDA_ERROR_INVALID_CONTEXT;
  *d = it->second.first;
  return CUDA_SUCCESS;
}
CUresult primary_get_state(CUdevice d, unsigned* flags, int* active) {
  std::lock_guard lock(fake().mutex);
  *flags = 0;
  *active = fake().primaries.count(d) ? 1 : 0;
  return CUDA_SUCCESS;
}
CUresult primary_retain(CUcontext* c, CUdevice d) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().primaries.find(d);
  if (it == fake().primaries.end()) return CUDA_ERROR_INVALID_DEVICE;
  *c = it->second;
  return CUDA_SUCCESS;
}
CUresult primary_release(CUdevice) { return CUDA_SUCCESS; }
CUresult stream_create(CUstream* s, unsigned flags) {
  std::lock_guard lock(fake().mutex);
  *s = fake().handle<CUstream>();
  fake().streams[*s] = {context_stack.empty() ? nullptr : context_stack.back(), flags};
  fake().pool_streams.insert(*s);
  fake().log({call::create_stream, *s, nullptr});
  return CUDA_SUCCESS;
}
CUresult stream_create_with_priority(CUstream* s, unsigned flags, int priority) {
  const CUresult r = stream_create(s, flags);
  std::lock_guard lock(fake().mutex);
  fake().priorities[*s] = priority;
  return r;
}
CUresult stream_get_priority(CUstream s, int* priority) {
  std::lock_guard lock(fake().mutex);
  if (fake().streams.count(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
  const auto it = fake().priorities.find(s);
  *priority = it == fake().priorities.end() ? 0 : it->second;
  return CUDA_SUCCESS;
}
CUresult stream_destroy(CUstream s) {
  std::lock_guard lock(fake().mutex);
  return fake().streams.erase(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult stream_get_ctx(CUstream s, CUcontext* c) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().streams.find(s);
  if (it == fake().streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *c = it->second.first;
  return CUDA_SUCCESS;
}
CUresult stream_get_flags(CUstream s, unsigned* flags) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().streams.find(s);
  if (it == fake().streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *flags = it->second.second;
  return CUDA_SUCCESS;
}
CUresult stream_is_capturing(CUstream s, CUstreamCaptureStatus* status) {
  std::lock_guard lock(fake().mutex);
  *status = fake().capturing.count(s) ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult stream_wait_event(CUstream s, CUevent e, unsigned) {
  std::lock_guard lock(fake().mutex);
  fake().log({call::wait, s, e});
  return CUDA_SUCCESS;
}
CUresult event_create(CUevent* e, unsigned) {
  std::lock_guard lock(fake().mutex);
  *e = fake().handle<CUevent>();
  return CUDA_SUCCESS;
}
CUresult event_record(CUevent e, CUstream s) {
  std::lock_guard lock(fake().mutex);
  fake().log({call::record, s, e});
  return CUDA_SUCCESS;
}
CUresult event_query(CUevent) { return CUDA_ERROR_NOT_READY; }  // nothing ever retires
CUresult event_destroy(CUevent) { return CUDA_SUCCESS; }
CUresult pointer_get_attribute(void*, CUpointer_attribute, CUdeviceptr) { return CUDA_ERROR_INVALID_VALUE; }
CUresult func_get_param_info(CUfunction f, size_t i, size_t* offset, size_t* size) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().layouts.find(f);
  if (it == fake().layouts.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (i >= it->second.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = it->second[i].first;
  *size = it->second[i].second;
  return CUDA_SUCCESS;
}
CUresult kernel_get_param_info(CUkernel, size_t, size_t*, size_t*) { return CUDA_ERROR_INVALID_HANDLE; }

const driver::table& fake_table() {
  static const driver::table t = [] {
    driver::table d{};
    d.cuCtxGetCurrent_ = ctx_get_current;
    d.cuCtxPushCurrent_ = ctx_push;
    d.cuCtxPopCurrent_ = ctx_pop;
    d.cuCtxGetDevice_ = ctx_get_device;
    d.cuDevicePrimaryCtxGetState_ = primary_get_state;
    d.cuDevicePrimaryCtxRetain_ = primary_retain;
    d.cuDevicePrimaryCtxRelease_ = primary_release;
    d.cuStreamCreate_ = stream_create;
    d.cuStreamCreateWithPriority_ = stream_create_with_priority;
    d.cuStreamGetPriority_ = stream_get_priority;
    d.cuStreamDestroy_ = stream_destroy;
    d.cuStreamGetCtx_ = stream_get_ctx;
    d.cuStreamGetFlags_ = stream_get_flags;
    d.cuStreamIsCapturing_ = stream_is_capturing;
    d.cuStreamWaitEvent_ = stream_wait_event;
    d.cuEventCreate_ = event_create;
    d.cuEventRecord_ = event_record;
    d.cuEventQuery_ = event_query;
    d.cuEventDestroy_ = event_destroy;
    d.cuPointerGetAttribute_ = pointer_get_attribute;
    d.cuFuncGetParamInfo_ = func_get_param_info;
    d.cuKernelGetParamInfo_ = kernel_get_param_info;
    return d;
  }();
  return t;
}

// ---------------------------------------------------------------- launches

// The hooks' closure: remembers the stream it was issued on.
struct app_launch {
  int status = 0;
  std::vector<CUstream> issued;
  static int issue(void* self, CUstream s) {
    auto* l = static_cast<app_launch*>(self);
    l->issued.push_back(s);
    std::lock_guard lock(fake().mutex);
    fake().log({call::launch, s, nullptr});
    return l->status;
  }
  launch_closure closure() { return {&app_launch::issue, this}; }
};

class dispatch_test : public testing::Test {
 protected:
  void SetUp() override {
    driver::use_for_testing(&fake_table());
    context_stack.clear();
  }
  void TearDown() override { context_stack.clear(); }

  // A device whose primary context is `ctx`, made current.
  CUcontext make_device() {
    std::lock_guard lock(fake().mutex);
    const CUcontext c = fake().handle<CUcontext>();
    const auto device = static_cast<CUdevice>(fake().primaries.size() + 100);
    fake().primaries[device] = c;
    fake().contexts[c] = {device, true};
    return c;
  }
  CUcontext make_foreign_context(CUcontext primary_of) {
    std::lock_guard lock(fake().mutex);
    const CUcontext c = fake().handle<CUcontext>();
    fake().contexts[c] = {fake().contexts[primary_of].first, false};
    return c;
  }
  CUstream make_stream(CUcontext c, unsigned flags = CU_STREAM_NON_BLOCKING) {
    std::lock_guard lock(fake().mutex);
    const CUstream s = fake().handle<CUstream>();
    fake().streams[s] = {c, flags};
    return s;
  }
  // A kernel taking (T* a, T* b).
  CUfunction make_kernel() {
    std::lock_guard lock(fake().mutex);
    const CUfunction f = fake().handle<CUfunction>();
    fake().layouts[f] = {{0, 8}, {8, 8}};
    return f;
  }
  // A fresh device allocation.
  address make_allocation() {
    static address next = 0x7e00'0000'0000;
    next += 0x20'0000;
    memory_allocated(next, 0x10'0000);
    return next;
  }
  static void make_current(CUcontext c) {
    context_stack.clear();
    if (c != nullptr) context_stack.push_back(c);
  }

  // Launches f(a, b) on `stream`; returns the stream it ran on.
  CUstream launch(CUstream stream, CUfunction f, address a, address b,
                  default_stream zero = default_stream::legacy, int status = 0) {
    app_launch l;
    l.status = status;
    void* params[] = {&a, &b};
    launch_request r;
    r.stream = stream;
    r.stream_zero = zero;
    r.function = f;
    r.params = params;
    r.api = "test";
    last_status = dispatch_launch(r, l.closure());
    EXPECT_EQ(l.issued.size(), 1u) << "the launch must be issued exactly once";
    return l.issued.empty() ? nullptr : l.issued.front();
  }

  static bool is_pool(CUstream s) {
    std::lock_guard lock(fake().mutex);
    return fake().pool_streams.count(s) != 0;
  }
  static std::size_t mark() {
    std::lock_guard lock(fake().mutex);
    return fake().calls.size();
  }
  static std::vector<call> calls_since(std::size_t from) {
    std::lock_guard lock(fake().mutex);
    return {fake().calls.begin() + static_cast<std::ptrdiff_t>(from), fake().calls.end()};
  }
  // After launching on pool stream p (from `from` on): `waiter` waits on an event recorded on p.
  static bool joins(std::size_t from, CUstream p, CUstream waiter) {
    const auto cs = calls_since(from);
    std::set<CUevent> on_p;
    bool launched = false;
    for (const call& c : cs) {
      if (c.what == call::launch && c.stream == p) launched = true;
      if (launched && c.what == call::record && c.stream == p) on_p.insert(c.event);
      if (c.what == call::wait && c.stream == waiter && on_p.count(c.event)) return true;
    }
    return false;
  }
  device_runtime* runtime_of(CUcontext c) {
    context_entry* e = context_of(fake_table(), c);
    return e != nullptr ? e->runtime.load() : nullptr;
  }

  int last_status = -1;
};

TEST_F(dispatch_test, launch_runs_on_a_pool_stream_and_the_application_stream_joins_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  EXPECT_EQ(last_status, 0);
  EXPECT_NE(p, s);
  EXPECT_TRUE(is_pool(p));
  EXPECT_FALSE(joins(from, p, s)) << "the join is lazy: not at the launch";
  (void)stream_sync_begins(s, default_stream::legacy);  // cudaStreamSynchronize / cudaStreamQuery
  EXPECT_TRUE(joins(from, p, s));
  ASSERT_NE(runtime_of(ctx), nullptr);
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
}

// docs/design.md rule 12: the priority of a created stream, read from the driver, is the
// priority of the pool streams its kernels run on; the default streams have the default one.
TEST_F(dispatch_test, stream_priority_of_the_application_stream_is_its_pool_streams) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream urgent = make_stream(ctx);
  {
    std::lock_guard lock(fake().mutex);
    fake().priorities[urgent] = -2;
  }
  const auto priority_of = [](CUstream p) {
    std::lock_guard lock(fake().mutex);
    const auto it = fake().priorities.find(p);
    return it == fake().priorities.end() ? 0 : it->second;
  };
  const CUstream p = launch(urgent, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  EXPECT_EQ(priority_of(p), -2);
  const CUstream q = launch(nullptr, make_kernel(), make_allocation(), make_allocation());  // the legacy stream
  ASSERT_TRUE(is_pool(q));
  EXPECT_EQ(priority_of(q), 0);
}

TEST_F(dispatch_test, pool_streams_live_in_the_primary_context_even_from_another_current_one) {
  const CUcontext ctx = make_device();
  make_current(make_foreign_context(ctx));  // another context is current on this thread
  const CUstream s = make_stream(ctx);
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  std::lock_guard lock(fake().mutex);
  EXPECT_EQ(fake().streams[p].first, ctx);
  EXPECT_EQ(fake().streams[p].second, static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
}

TEST_F(dispatch_test, launch_status_reaches_the_application_unchanged) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  launch(s, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy, 98);
  EXPECT_EQ(last_status, 98);
}

TEST_F(dispatch_test, stream_zero_is_the_legacy_or_the_per_thread_stream) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUfunction f = make_kernel();
  std::size_t from = mark();
  CUstream p = launch(nullptr, f, make_allocation(), make_allocation(), default_stream::legacy);
  EXPECT_TRUE(is_pool(p));
  stream_work_begins(nullptr, default_stream::legacy);  // e.g. cudaMemcpyAsync(..., 0)
  EXPECT_TRUE(joins(from, p, CU_STREAM_LEGACY));
  stream_barrier(nullptr, default_stream::legacy);
  from = mark();
  p = launch(nullptr, f, make_allocation(), make_allocation(), default_stream::per_thread);
  EXPECT_TRUE(is_pool(p));
  stream_work_begins(nullptr, default_stream::per_thread);
  EXPECT_TRUE(joins(from, p, CU_STREAM_PER_THREAD));
  stream_barrier(nullptr, default_stream::per_thread);
}

TEST_F(dispatch_test, per_thread_stream_keys_differ_between_threads_and_from_handles) {
  const std::uintptr_t mine = per_thread_stream_key();
  std::uintptr_t other = 0;
  std::thread([&] { other = per_thread_stream_key(); }).join();
  EXPECT_NE(mine, other);
  EXPECT_EQ(mine % 4, 3u);
  EXPECT_EQ(other % 4, 3u);
  EXPECT_EQ(per_thread_stream_key(), mine);
}

TEST_F(dispatch_test, dependent_kernels_are_ordered_independent_ones_are_not) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation(), x = make_allocation(), y = make_allocation();
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, a, b);
  const CUstream p2 = launch(s, f, x, y);  // touches nothing of the first
  const CUstream p3 = launch(s, f, b, x);  // depends on both
  EXPECT_NE(p1, p2);
  // The third follows both: on one's stream and after an event of the other.
  const auto cs = calls_since(from);
  const CUstream other = p3 == p1 ? p2 : p1;
  EXPECT_TRUE(p3 == p1 || p3 == p2);
  std::set<CUevent> recorded_on_other;
  bool waited = false;
  for (const call& c : cs) {
    if (c.what == call::record && c.stream == other) recorded_on_other.insert(c.event);
    if (c.what == call::wait && c.stream == p3 && recorded_on_other.count(c.event)) waited = true;
    if (c.what == call::launch && c.stream == p3 && waited) break;
  }
  EXPECT_TRUE(waited);
}

// True when a launch on `later` (after `from`) is ordered after kernel work already on `earlier`.
bool ordered_after(const std::vector<call>& cs, CUstream earlier, CUstream later) {
  if (earlier == later) return true;  // stream order
  std::set<CUevent> on_earlier;
  for (const call& c : cs) {
    if (c.what == call::record && c.stream == earlier) on_earlier.insert(c.event);
    if (c.what == call::wait && c.stream == later && on_earlier.count(c.event)) return true;
    if (c.what == call::launch && c.stream == later) return false;
  }
  return false;
}

TEST_F(dispatch_test, kernel_with_unreadable_layout_waits_for_everything_before_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p1 = launch(s, make_kernel(), make_allocation(), make_allocation());
  const CUfunction unknown = unknown_handle<CUfunction>();  // no layout in the fake
  const CUstream p2 = launch(s, unknown, make_allocation(), make_allocation());
  EXPECT_TRUE(ordered_after(calls_since(from), p1, p2));
  EXPECT_EQ(inference::layout_of(unknown), nullptr);
}

TEST_F(dispatch_test, kernels_on_unrelated_allocations_are_not_ordered) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, make_allocation(), make_allocation());
  const CUstream p2 = launch(s, f, make_allocation(), make_allocation());
  EXPECT_FALSE(ordered_after(calls_since(from), p1, p2));
}

TEST_F(dispatch_test, capturing_stream_passes_through_untouched) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  // Unjoined work from before the capture: joined when it begins, not during it.
  std::size_t from = mark();
  const CUstream before = launch(s, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(before));
  (void)stream_sync_begins(s, default_stream::legacy);  // what the capture-begin hook does first
  EXPECT_TRUE(joins(from, before, s));
  capture_began(s, CU_STREAM_CAPTURE_MODE_RELAXED);
  {
    std::lock_guard lock(fake().mutex);
    fake().capturing.insert(s);
  }
  from = mark();
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  EXPECT_EQ(p, s);
  stream_work_begins(s, default_stream::legacy);  // a barrier operation inside the capture
  stream_barrier(s, default_stream::legacy);
  (void)stream_sync_begins(s, default_stream::legacy);
  for (const call& c : calls_since(from)) {
    if (c.what == call::launch) continue;  // the application's own launch
    EXPECT_NE(c.stream, s) << "no acs call may touch a capturing stream";
  }
  capture_ended(s);
  std::lock_guard lock(fake().mutex);
  fake().capturing.erase(s);
}

TEST_F(dispatch_test, global_capture_on_another_thread_passes_every_launch_through) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  const CUfunction f = make_kernel();
  std::thread([&] { capture_began(captured, CU_STREAM_CAPTURE_MODE_GLOBAL); }).join();
  EXPECT_TRUE(capture_forbids_unsafe_calls());
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
  std::thread([&] { capture_ended(captured); }).join();
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
}

// A thread already inside the scheduler when a global capture begins elsewhere:
// capture_began returns only once it has left.
TEST_F(dispatch_test, global_capture_begin_waits_for_threads_inside_the_scheduler) {
  const CUstream captured = unknown_handle<CUstream>();
  std::atomic<bool> inside{false}, left{false};
  std::thread worker([&] {
    const unsafe_section section;
    EXPECT_TRUE(section.allowed());
    inside = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = true;
  });
  while (!inside) std::this_thread::yield();
  capture_began(captured, CU_STREAM_CAPTURE_MODE_GLOBAL);
  EXPECT_TRUE(left.load());
  worker.join();
  {
    const unsafe_section section;
    EXPECT_FALSE(section.allowed());
  }
  capture_ended(captured);
  const unsafe_section section;
  EXPECT_TRUE(section.allowed());
}

TEST_F(dispatch_test, relaxed_capture_forbids_nothing) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  capture_began(captured, CU_STREAM_CAPTURE_MODE_RELAXED);
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, make_kernel(), make_allocation(), make_allocation())));
  capture_ended(captured);
}

TEST_F(dispatch_test, thread_local_capture_forbids_unsafe_calls_on_its_thread_only) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  const CUfunction f = make_kernel();
  capture_began(captured, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  EXPECT_TRUE(capture_forbids_unsafe_calls());
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
  bool other_thread_forbidden = true;
  std::thread([&] { other_thread_forbidden = capture_forbids_unsafe_calls(); }).join();
  EXPECT_FALSE(other_thread_forbidden);
  capture_ended(captured);
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
}

TEST_F(dispatch_test, foreign_context_passes_through_and_gets_no_pool) {
  const CUcontext primary = make_device();
  const CUcontext foreign = make_foreign_context(primary);
  make_current(foreign);
  const CUstream s = make_stream(foreign);
  EXPECT_EQ(launch(s, make_kernel(), make_allocation(), make_allocation()), s);
  EXPECT_EQ(launch(nullptr, make_kernel(), make_allocation(), make_allocation()), nullptr);
  EXPECT_EQ(runtime_of(foreign), nullptr);
}

TEST_F(dispatch_test, no_current_context_passes_the_default_stream_through) {
  make_current(nullptr);
  EXPECT_EQ(launch(nullptr, make_kernel(), make_allocation(), make_allocation()), nullptr);
}

TEST_F(dispatch_test, unknown_function_passes_through) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  EXPECT_EQ(launch(s, nullptr, make_allocation(), make_allocation()), s);
}

TEST_F(dispatch_test, invalid_stream_passes_through_for_the_driver_to_reject) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream bogus = unknown_handle<CUstream>();
  EXPECT_EQ(launch(bogus, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy, 400),
            bogus);
  EXPECT_EQ(last_status, 400);
}

TEST_F(dispatch_test, a_launch_passed_through_is_a_barrier_for_later_ones) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s, f, make_allocation(), make_allocation());
  EXPECT_EQ(launch(s, nullptr, 0, 0), s);  // passed through
  const std::size_t from = mark();
  const CUstream p = launch(s, f, make_allocation(), make_allocation());  // independent
  ASSERT_TRUE(is_pool(p));
  // It must start after the direct launch: an event recorded on s after it, waited by p.
  std::set<CUevent> forks;
  bool ordered = false;
  for (const call& c : calls_since(from)) {
    if (c.what == call::record && c.stream == s) forks.insert(c.event);
    if (c.what == call::wait && c.stream == p && forks.count(c.event)) ordered = true;
    if (c.what == call::launch) break;
  }
  EXPECT_TRUE(ordered);
}

TEST_F(dispatch_test, stream_barrier_makes_the_next_launch_fork_after_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s, f, make_allocation(), make_allocation());
  stream_barrier(s, default_stream::legacy);
  const std::size_t from = mark();
  const CUstream p = launch(s, f, make_allocation(), make_allocation());
  std::set<CUevent> forks;
  bool ordered = false;
  for (const call& c : calls_since(from)) {
    if (c.what == call::record && c.stream == s) forks.insert(c.event);
    if (c.what == call::wait && c.stream == p && forks.count(c.event)) ordered = true;
    if (c.what == call::launch) break;
  }
  EXPECT_TRUE(ordered);
}

TEST_F(dispatch_test, per_thread_stream_is_forgotten_when_its_thread_exits) {
  const CUcontext ctx = make_device();
  const CUfunction f = make_kernel();
  std::thread([&] {
    make_current(ctx);
    EXPECT_TRUE(is_pool(launch(nullptr, f, make_allocation(), make_allocation(), default_stream::per_thread)));
    EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
  }).join();
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 0u);
}

TEST_F(dispatch_test, device_synchronize_clears_the_current_device_only) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUfunction f = make_kernel();
  make_current(d1);
  launch(make_stream(d1), f, make_allocation(), make_allocation());
  make_current(d0);
  launch(make_stream(d0), f, make_allocation(), make_allocation());
  ASSERT_EQ(runtime_of(d0)->sched.in_flight(), 1u);
  ASSERT_EQ(runtime_of(d1)->sched.in_flight(), 1u);
  device_synchronized(device_sync_begins());
  EXPECT_EQ(runtime_of(d0)->sched.in_flight(), 0u);
  EXPECT_EQ(runtime_of(d1)->sched.in_flight(), 1u);
}

TEST_F(dispatch_test, stream_synchronize_clears_that_stream_only) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s1 = make_stream(ctx), s2 = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s1, f, make_allocation(), make_allocation());
  launch(s2, f, make_allocation(), make_allocation());
  ASSERT_EQ(runtime_of(ctx)->sched.in_flight(), 2u);
  stream_synchronized(s1, default_stream::legacy, stream_sync_begins(s1, default_stream::legacy));
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
}

TEST_F(dispatch_test, destroyed_stream_handle_reused_in_a_foreign_context_is_seen_afresh) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
  {
    std::lock_guard lock(fake().mutex);
    fake().streams.erase(s);
  }
  stream_destroyed(s);
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 0u);
  // The driver hands the same handle out again, for a stream of a foreign context.
  const CUcontext foreign = make_foreign_context(ctx);
  {
    std::lock_guard lock(fake().mutex);
    fake().streams[s] = {foreign, CU_STREAM_NON_BLOCKING};
  }
  make_current(foreign);
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
}

TEST_F(dispatch_test, destroyed_context_handle_reused_gets_a_new_scheduler) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
  device_runtime* before = runtime_of(ctx);
  context_destroyed(ctx);  // cudaDeviceReset: same primary handle comes back
  EXPECT_TRUE(before->broken.load());
  const CUstream p = launch(s, f, make_allocation(), make_allocation());
  EXPECT_TRUE(is_pool(p));
  EXPECT_NE(runtime_of(ctx), before);
}

// No libcuda in the process (CI, or a program that never loaded it): every
// call passes straight through and nothing else happens.
TEST(runtime_without_driver, launches_pass_straight_through) {
  driver::use_for_testing(nullptr);
  const CUstream s = unknown_handle<CUstream>();
  app_launch l;
  l.status = 3;
  address a = 0x7e80'0000'0000;
  void* params[] = {&a, &a};
  launch_request r;
  r.stream = s;
  r.function = unknown_handle<CUfunction>();
  r.params = params;
  EXPECT_EQ(dispatch_launch(r, l.closure()), 3);
  ASSERT_EQ(l.issued.size(), 1u);
  EXPECT_EQ(l.issued[0], s);
  r.stream = nullptr;
  EXPECT_EQ(dispatch_launch(r, l.closure()), 3);
  ASSERT_EQ(l.issued.size(), 2u);
  EXPECT_EQ(l.issued[1], nullptr);
  // The rest of the contract is harmless without a driver.
  stream_work_begins(s, default_stream::legacy);
  stream_barrier(s, default_stream::legacy);
  stream_work_begins(CU_STREAM_LEGACY, default_stream::legacy);
  stream_barrier(CU_STREAM_LEGACY, default_stream::legacy);
  launched_directly(s, default_stream::per_thread, pass_reason::cooperative);
  stream_synchronized(s, default_stream::legacy, stream_sync_begins(s, default_stream::legacy));
  device_synchronized(device_sync_begins());
  stream_destroyed(s);
  EXPECT_EQ(driver::real(), nullptr);
  driver::use_for_testing(&fake_table());
}

TEST(runtime_stats, machine_line_has_every_key) {
  stats::summary s;
  s.kernels_seen = 10;
  s.passed[static_cast<std::size_t>(pass_reason::capturing)] = 3;
  s.scheduler.kernels = 7;
  s.scheduler.occupancy_sum = 14;
  s.devices = 1;
  const std::string line = stats::format_machine(s);
  EXPECT_EQ(line.rfind("acs-stats: ", 0), 0u);
  for (const char* key : {"kernels_seen=10", "dispatched=7", "independent=", "dependency_waits=", "barriers=",
                          "folds=", "mean_occupancy=2.00", "devices=1", "passed=3", "pass_capturing=3",
                          "pass_disabled=0", "pass_foreign_context=0", "pass_internal_error=0"})
    EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  EXPECT_NE(stats::format_human(s).find("capturing 3"), std::string::npos);
}

}  // namespace
}  // namespace acs
