#pragma once
// A simulated CUDA driver for the runtime's unit tests (test_runtime_dispatch.cpp,
// test_runtime_devices.cpp): a fake table of driver functions with any number of devices'
// primary contexts, streams, events and kernels, recording every call; and the fixture that
// launches through dispatch.hpp on it. Shared by the test files of one executable: one state.
#include <gtest/gtest.h>
#include <cuda.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <thread>
#include <vector>
#include "annotations/inferred/allocation_map.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/runtime/capture.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/runtime/devices.hpp"
#include "src/runtime/launch_conditions.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/streams.hpp"
#include "src/support/config.hpp"
#include "src/support/stats.hpp"

namespace acs::runtime_fake {

// ---------------------------------------------------------------- fake driver

struct call {
  enum kind { record, wait, launch, create_stream } what;
  CUstream stream;
  CUevent event;
  CUcontext current = nullptr;  // the calling thread's current context (CU_STREAM_LEGACY names its stream)
  std::uintptr_t tag = 0;       // a launch's tag (dispatch_test::launch), 0 for none
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
  std::set<CUstream> idle;  // streams whose cuStreamQuery says done; the others have work pending
  unsigned stream_queries = 0;  // cuStreamQuery calls
  std::map<CUfunction, std::vector<std::pair<size_t, size_t>>> layouts;
  std::set<CUfunction> sass_only;  // kernels whose name the fake does not tell: no PTX is found
  std::vector<call> calls;
  int throw_at_event_create = 0;  // > 0: that many creations throw, as acs's bookkeeping failing
  std::atomic<int> record_delay_us{0};  // > 0: each event record takes that long (widens races)

  template <class T>
  T handle() {
    next_handle += 0x40;
    return reinterpret_cast<T>(next_handle);
  }
  void log(call c);
};

inline fake_state& fake() {
  static fake_state s;
  return s;
}

// A handle nothing in the fake knows about.
template <class T>
T unknown_handle() {
  std::lock_guard lock(fake().mutex);
  return fake().handle<T>();
}
inline thread_local std::vector<CUcontext> context_stack;

inline void fake_state::log(call c) {
  c.current = context_stack.empty() ? nullptr : context_stack.back();
  calls.push_back(c);
}

inline CUresult ctx_get_current(CUcontext* c) {
  *c = context_stack.empty() ? nullptr : context_stack.back();
  return CUDA_SUCCESS;
}
inline CUresult ctx_push(CUcontext c) {
  context_stack.push_back(c);
  return CUDA_SUCCESS;
}
inline CUresult ctx_pop(CUcontext* c) {
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *c = context_stack.back();
  context_stack.pop_back();
  return CUDA_SUCCESS;
}
inline CUresult ctx_get_device(CUdevice* d) {
  std::lock_guard lock(fake().mutex);
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  const auto it = fake().contexts.find(context_stack.back());
  if (it == fake().contexts.end()) return CUDA_ERROR_INVALID_CONTEXT;
  *d = it->second.first;
  return CUDA_SUCCESS;
}
inline CUresult primary_get_state(CUdevice d, unsigned* flags, int* active) {
  std::lock_guard lock(fake().mutex);
  *flags = 0;
  *active = fake().primaries.count(d) ? 1 : 0;
  return CUDA_SUCCESS;
}
inline CUresult primary_retain(CUcontext* c, CUdevice d) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().primaries.find(d);
  if (it == fake().primaries.end()) return CUDA_ERROR_INVALID_DEVICE;
  *c = it->second;
  return CUDA_SUCCESS;
}
inline CUresult primary_release(CUdevice) { return CUDA_SUCCESS; }
inline CUresult stream_create(CUstream* s, unsigned flags) {
  std::lock_guard lock(fake().mutex);
  *s = fake().handle<CUstream>();
  fake().streams[*s] = {context_stack.empty() ? nullptr : context_stack.back(), flags};
  fake().pool_streams.insert(*s);
  fake().log({call::create_stream, *s, nullptr});
  return CUDA_SUCCESS;
}
inline CUresult stream_create_with_priority(CUstream* s, unsigned flags, int priority) {
  const CUresult r = stream_create(s, flags);
  std::lock_guard lock(fake().mutex);
  fake().priorities[*s] = priority;
  return r;
}
inline CUresult stream_get_priority(CUstream s, int* priority) {
  std::lock_guard lock(fake().mutex);
  if (fake().streams.count(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
  const auto it = fake().priorities.find(s);
  *priority = it == fake().priorities.end() ? 0 : it->second;
  return CUDA_SUCCESS;
}
inline CUresult stream_destroy(CUstream s) {
  std::lock_guard lock(fake().mutex);
  return fake().streams.erase(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
inline CUresult stream_get_ctx(CUstream s, CUcontext* c) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().streams.find(s);
  if (it == fake().streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *c = it->second.first;
  return CUDA_SUCCESS;
}
inline CUresult stream_get_flags(CUstream s, unsigned* flags) {
  std::lock_guard lock(fake().mutex);
  const auto it = fake().streams.find(s);
  if (it == fake().streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *flags = it->second.second;
  return CUDA_SUCCESS;
}
inline CUresult stream_is_capturing(CUstream s, CUstreamCaptureStatus* status) {
  std::lock_guard lock(fake().mutex);
  *status = fake().capturing.count(s) ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
inline CUresult stream_query(CUstream s) {
  std::lock_guard lock(fake().mutex);
  ++fake().stream_queries;
  return fake().idle.count(s) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
inline CUresult stream_wait_event(CUstream s, CUevent e, unsigned) {
  std::lock_guard lock(fake().mutex);
  fake().log({call::wait, s, e});
  return CUDA_SUCCESS;
}
inline CUresult event_create(CUevent* e, unsigned) {
  std::lock_guard lock(fake().mutex);
  if (fake().throw_at_event_create > 0) {
    --fake().throw_at_event_create;
    throw std::bad_alloc();
  }
  *e = fake().handle<CUevent>();
  return CUDA_SUCCESS;
}
inline CUresult event_record(CUevent e, CUstream s) {
  if (const int us = fake().record_delay_us.load(); us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
  std::lock_guard lock(fake().mutex);
  fake().log({call::record, s, e});
  return CUDA_SUCCESS;
}
inline CUresult event_query(CUevent) { return CUDA_ERROR_NOT_READY; }  // nothing ever retires
inline CUresult event_destroy(CUevent) { return CUDA_SUCCESS; }
inline CUresult pointer_get_attribute(void*, CUpointer_attribute, CUdeviceptr) { return CUDA_ERROR_INVALID_VALUE; }
// Layout reads made by the calling thread (a probe must leave them to acs's background thread).
inline thread_local unsigned param_info_reads_here = 0;

inline CUresult func_get_param_info(CUfunction f, size_t i, size_t* offset, size_t* size) {
  ++param_info_reads_here;
  std::lock_guard lock(fake().mutex);
  const auto it = fake().layouts.find(f);
  if (it == fake().layouts.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (i >= it->second.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = it->second[i].first;
  *size = it->second[i].second;
  return CUDA_SUCCESS;
}
inline CUresult kernel_get_param_info(CUkernel, size_t, size_t*, size_t*) { return CUDA_ERROR_INVALID_HANDLE; }
// Every kernel of the fake is fake_kernel(T* a, T* b) of one module, whose PTX writes through
// both: the runtime reads it as it reads a real kernel's code (without readable code a kernel
// conflicts with everything, docs/design.md section 4).
inline const int fake_module = 0;
inline constexpr const char* fake_kernel_ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry fake_kernel(.param .u64 fake_kernel_param_0, .param .u64 fake_kernel_param_1)
{
  .reg .f32 %f<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [fake_kernel_param_0];
  ld.param.u64 %rd2, [fake_kernel_param_1];
  ld.global.f32 %f1, [%rd1];
  st.global.f32 [%rd1], %f1;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";
inline CUresult func_get_name(const char** name, CUfunction f) {
  std::lock_guard lock(fake().mutex);
  if (fake().sass_only.count(f)) return CUDA_ERROR_NOT_FOUND;
  *name = "fake_kernel";
  return CUDA_SUCCESS;
}
inline CUresult func_get_module(CUmodule* m, CUfunction) {
  *m = reinterpret_cast<CUmodule>(const_cast<int*>(&fake_module));
  return CUDA_SUCCESS;
}
inline CUresult device_get_attribute(int* v, CUdevice_attribute a, CUdevice) {
  *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return CUDA_SUCCESS;
}

inline const driver::table& fake_table() {
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
    d.cuStreamQuery_ = stream_query;
    d.cuEventCreate_ = event_create;
    d.cuEventRecord_ = event_record;
    d.cuEventQuery_ = event_query;
    d.cuEventDestroy_ = event_destroy;
    d.cuPointerGetAttribute_ = pointer_get_attribute;
    d.cuFuncGetParamInfo_ = func_get_param_info;
    d.cuKernelGetParamInfo_ = kernel_get_param_info;
    d.cuFuncGetName_ = func_get_name;
    d.cuFuncGetModule_ = func_get_module;
    d.cuDeviceGetAttribute_ = device_get_attribute;
    return d;
  }();
  return t;
}

// ---------------------------------------------------------------- launches

// The hooks' closure: remembers the stream it was issued on.
struct app_launch {
  int status = 0;
  std::uintptr_t tag = 0;
  std::vector<CUstream> issued;
  static int issue(void* self, CUstream s) {
    auto* l = static_cast<app_launch*>(self);
    l->issued.push_back(s);
    std::lock_guard lock(fake().mutex);
    fake().log({call::launch, s, nullptr, nullptr, l->tag});
    return l->status;
  }
  launch_closure closure() { return {&app_launch::issue, this}; }
};

class dispatch_test : public testing::Test {
 protected:
  void SetUp() override {
    driver::use_for_testing(&fake_table());
    context_stack.clear();
    code_loaded(&fake_module, false, fake_kernel_ptx);
    // Until its PTX is analysed: a launch before that would count as touching everything.
    ASSERT_TRUE(analyses_done()) << "the fake module's PTX was not analysed within 10 s";
  }
  // Until nothing is analysed or read ahead any more (inference::work_ahead_pending), at most 10 s.
  static bool analyses_done() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (inference::work_ahead_pending()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
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
  bool warm_layouts = true;  // launch() reads the function's layout before dispatching
  // launch() names the kernel as the runtime hooks do: by a key that dispatch_launch looks up
  // (launch_request::find_function) only when it needs the function; counted in lookups.
  bool lazy_function = false;
  static inline std::atomic<unsigned> lookups{0};
  static CUfunction look_up(const void* kernel) noexcept {
    lookups.fetch_add(1);
    return static_cast<CUfunction>(const_cast<void*>(kernel));
  }
  CUstream launch(CUstream stream, CUfunction f, address a, address b,
                  default_stream zero = default_stream::legacy, int status = 0, std::uintptr_t tag = 0) {
    app_launch l;
    l.status = status;
    l.tag = tag;
    void* params[] = {&a, &b};
    launch_request r;
    r.stream = stream;
    r.stream_zero = zero;
    r.function = lazy_function ? nullptr : f;
    if (lazy_function) {
      r.find_function = look_up;
      r.kernel = f;
    }
    r.params = params;
    r.api = "test";
    // As for a function launched before: a probe finds its layout read (a first launch's
    // probe leaves the read to the background thread, which tests of the policy must not race).
    if (warm_layouts && f != nullptr) (void)inference::layout_of(f);
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
  // For each tagged launch in `cs`, the tagged launches it follows by the driver's rules: a
  // stream runs its calls in order, and a wait makes its stream follow what the event's latest
  // record followed (the legacy stream's implicit order is not modelled: use created streams).
  static std::map<std::uintptr_t, std::set<std::uintptr_t>> launch_order(const std::vector<call>& cs) {
    std::map<CUstream, std::set<std::uintptr_t>> stream_front;
    std::map<CUevent, std::set<std::uintptr_t>> event_front;
    std::map<std::uintptr_t, std::set<std::uintptr_t>> follows;
    for (const call& c : cs) {
      switch (c.what) {
        case call::record: event_front[c.event] = stream_front[c.stream]; break;
        case call::wait: stream_front[c.stream].insert(event_front[c.event].begin(), event_front[c.event].end()); break;
        case call::launch:
          if (c.tag == 0) break;
          follows[c.tag] = stream_front[c.stream];
          stream_front[c.stream].insert(c.tag);
          break;
        case call::create_stream: break;
      }
    }
    return follows;
  }
  device_runtime* runtime_of(CUcontext c) {
    context_entry* e = context_of(fake_table(), c);
    return e != nullptr ? e->runtime.load() : nullptr;
  }

  // Atomic: the threads tests launch from several threads at once.
  std::atomic<int> last_status{-1};
};

}  // namespace acs::runtime_fake
