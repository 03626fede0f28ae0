// Interposition through the fake driver and runtime (fake/), with libacs_recording.so preloaded:
// which wrapper each path returns, which real variant then runs, and what the hooks report
// through dispatch.hpp. Runs without a GPU; CTest sets LD_PRELOAD and LD_LIBRARY_PATH.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "src/runtime/dispatch.hpp"
#include "fake/fake_calls.hpp"
#include "recording.hpp"

extern "C" {
void fake_cudart_register(const void* stub, CUfunction function);
int fake_cudart_stub_lookups();
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
}

namespace {

template <class F>
F lookup(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

CUstream stream(std::uintptr_t value) { return reinterpret_cast<CUstream>(value); }
CUfunction function(std::uintptr_t value) { return reinterpret_cast<CUfunction>(value); }

// The fake driver's scripted streams (fake/fake_cuda.cpp).
const CUstream busy_stream = stream(0x5ca);
const CUstream failing_stream = stream(0xfa1);
const CUstream broken_stream = stream(0xe77);

class interposition : public ::testing::Test {
 protected:
  void SetUp() override {
    count_ = lookup<acs_test_event_count_fn>(RTLD_DEFAULT, "acs_test_event_count");
    at_ = lookup<acs_test_event_at_fn>(RTLD_DEFAULT, "acs_test_event_at");
    reset_ = lookup<acs_test_reset_fn>(RTLD_DEFAULT, "acs_test_reset");
    redirect_ = lookup<acs_test_redirect_fn>(RTLD_DEFAULT, "acs_test_redirect");
    set_active_ = lookup<acs_test_set_active_fn>(RTLD_DEFAULT, "acs_test_set_active");
    ASSERT_TRUE(count_ && at_ && reset_ && redirect_ && set_active_)
        << "libacs_recording.so is not preloaded: run this test through ctest";
    cuda_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(cuda_, nullptr) << dlerror();
    fake_count_ = lookup<fake_call_count_fn>(cuda_, "fake_cuda_call_count");
    fake_at_ = lookup<fake_call_at_fn>(cuda_, "fake_cuda_call_at");
    fake_reset_ = lookup<fake_reset_fn>(cuda_, "fake_cuda_reset");
    fake_self_ = lookup<fake_self_fn>(cuda_, "fake_cuda_self");
    ASSERT_TRUE(fake_count_ && fake_at_ && fake_reset_ && fake_self_) << "libcuda.so.1 is not the test's fake";
    reset_();
    fake_reset_();
  }
  void TearDown() override {
    // Work issued directly on a stream is bracketed: the stream joins its redirected kernels
    // before the call (stream_work_begins / stream_sync_begins), whatever hook reported it.
    if (count_ != nullptr) {
      for (const recorded_event& e : events()) {
        if (e.what == recorded::barrier || e.what == recorded::launched_directly || e.what == recorded::synchronized) {
          EXPECT_EQ(e.bracketed, 1) << "event " << static_cast<int>(e.what) << " on stream " << e.stream
                                    << " was not preceded by its *_begins call";
        }
      }
    }
    if (cuda_ != nullptr) dlclose(cuda_);
  }

  // What the hooks reported, but the reports every failed call and every function-config call
  // also make (launch conditions, call_failed, an unload's unloading): all_events() has those.
  std::vector<recorded_event> events() const {
    std::vector<recorded_event> out;
    for (const recorded_event& e : all_events())
      if (e.what != recorded::conditions_change && e.what != recorded::conditions_changed &&
          e.what != recorded::call_failed && e.what != recorded::unloading)
        out.push_back(e);
    return out;
  }
  std::vector<recorded_event> all_events() const {
    std::vector<recorded_event> out(count_());
    for (std::size_t i = 0; i < out.size(); ++i) at_(i, &out[i]);
    return out;
  }
  std::vector<fake_call> calls() const {
    std::vector<fake_call> out(fake_count_());
    for (std::size_t i = 0; i < out.size(); ++i) fake_at_(i, &out[i]);
    return out;
  }
  void reset() const {
    reset_();
    fake_reset_();
  }
  // cuGetProcAddress_v2 as statically linked cudart obtains it: dlsym on libcuda.so.1.
  PFN_cuGetProcAddress_v12000 get_proc() const {
    return lookup<PFN_cuGetProcAddress_v12000>(cuda_, "cuGetProcAddress_v2");
  }
  template <class F>
  F proc(const char* symbol, int version, cuuint64_t flags = CU_GET_PROC_ADDRESS_DEFAULT) const {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status{};
    EXPECT_EQ(get_proc()(symbol, &p, version, flags, &status), CUDA_SUCCESS) << symbol;
    return reinterpret_cast<F>(p);
  }
  static std::string library_of(const void* p) {
    Dl_info info{};
    return dladdr(p, &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : "";
  }

  void* cuda_ = nullptr;
  acs_test_event_count_fn count_ = nullptr;
  acs_test_event_at_fn at_ = nullptr;
  acs_test_reset_fn reset_ = nullptr;
  acs_test_redirect_fn redirect_ = nullptr;
  acs_test_set_active_fn set_active_ = nullptr;
  fake_call_count_fn fake_count_ = nullptr;
  fake_call_at_fn fake_at_ = nullptr;
  fake_reset_fn fake_reset_ = nullptr;
  fake_self_fn fake_self_ = nullptr;
};

// --- dlsym ---------------------------------------------------------------------------------

TEST_F(interposition, dlsym_on_libcuda_returns_the_wrapper_of_a_hooked_symbol) {
  void* p = dlsym(cuda_, "cuLaunchKernel");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p, fake_self_("cuLaunchKernel"));
  EXPECT_NE(library_of(p).find("libacs_recording.so"), std::string::npos) << library_of(p);

  auto launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(p);
  std::uint64_t x = 7, y = 0;  // the fake driver's kernels take two 8-byte parameters
  void* params[] = {&x, &y};
  EXPECT_EQ(launch(function(0x1234), 1, 1, 1, 32, 1, 1, 0, stream(0x55), params, nullptr), CUDA_SUCCESS);

  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_STREQ(c[0].name, "cuLaunchKernel");
  EXPECT_EQ(c[0].stream, stream(0x55));
  EXPECT_EQ(c[0].function, function(0x1234));
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::launch);
  EXPECT_STREQ(e[0].api, "cuLaunchKernel");
  EXPECT_EQ(e[0].stream, stream(0x55));
  EXPECT_EQ(e[0].per_thread, 0);
  EXPECT_EQ(e[0].function, function(0x1234));
  EXPECT_EQ(e[0].params, params);
  EXPECT_EQ(e[0].nesting, 1);
}

TEST_F(interposition, dlsym_leaves_other_symbols_and_errors_alone) {
  EXPECT_EQ(dlsym(cuda_, "cuFakeUnlisted"), fake_self_("cuFakeUnlisted"));
  EXPECT_NE(library_of(dlsym(cuda_, "fake_cuda_reset")).find("fake_driver"), std::string::npos);
  (void)dlerror();
  EXPECT_EQ(dlsym(cuda_, "cuNoSuchFunction"), nullptr);
  EXPECT_NE(dlerror(), nullptr);
  EXPECT_TRUE(events().empty());
}

// --- cuGetProcAddress ---------------------------------------------------------------------

TEST_F(interposition, proc_address_keeps_the_per_thread_variant_asked_for) {
  auto per_thread = proc<PFN_cuLaunchKernel_v7000_ptsz>("cuLaunchKernel", 12000,
                                                        CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto legacy = proc<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 12000);
  ASSERT_NE(per_thread, nullptr);
  ASSERT_NE(legacy, nullptr);
  EXPECT_NE(reinterpret_cast<void*>(per_thread), fake_self_("cuLaunchKernel_ptsz"));
  EXPECT_NE(reinterpret_cast<void*>(per_thread), reinterpret_cast<void*>(legacy));

  per_thread(function(1), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr);
  legacy(function(2), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr);

  const auto c = calls();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_STREQ(c[0].name, "cuLaunchKernel_ptsz");
  EXPECT_STREQ(c[1].name, "cuLaunchKernel");
  const auto e = events();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_STREQ(e[0].api, "cuLaunchKernel_ptsz");
  EXPECT_EQ(e[0].per_thread, 1);
  EXPECT_STREQ(e[1].api, "cuLaunchKernel");
  EXPECT_EQ(e[1].per_thread, 0);
}

TEST_F(interposition, proc_address_keeps_the_version_asked_for) {
  // CUDA 10.0's cuStreamBeginCapture had no mode argument; 10.1 made it _v2.
  auto v1 = proc<PFN_cuStreamBeginCapture_v10000>("cuStreamBeginCapture", 10000);
  auto v2 = proc<PFN_cuStreamBeginCapture_v10010>("cuStreamBeginCapture", 12000);
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);
  EXPECT_NE(reinterpret_cast<void*>(v1), reinterpret_cast<void*>(v2));

  EXPECT_EQ(v1(stream(0x31)), CUDA_SUCCESS);
  EXPECT_EQ(v2(stream(0x32), CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);

  const auto c = calls();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_STREQ(c[0].name, "cuStreamBeginCapture");
  EXPECT_STREQ(c[1].name, "cuStreamBeginCapture_v2");
  const auto e = events();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].what, recorded::capture_began);
  EXPECT_EQ(e[0].stream, stream(0x31));
  EXPECT_EQ(e[0].detail, CU_STREAM_CAPTURE_MODE_GLOBAL);  // v1 captures in global mode
  EXPECT_EQ(e[1].what, recorded::capture_began);
  EXPECT_EQ(e[1].detail, CU_STREAM_CAPTURE_MODE_RELAXED);
}

TEST_F(interposition, proc_address_returns_unknown_pointers_unchanged) {
  void* p = nullptr;
  ASSERT_EQ(get_proc()("cuFakeUnlisted", &p, 12000, 0, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(p, fake_self_("cuFakeUnlisted"));
  p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(get_proc()("cuNoSuchFunction", &p, 12000, 0, nullptr), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(p, nullptr);
}

TEST_F(interposition, proc_address_of_itself_is_wrapped_too) {
  auto v2 = proc<void*>("cuGetProcAddress", 12000);
  auto v1 = proc<void*>("cuGetProcAddress", 11030);
  EXPECT_EQ(v2, reinterpret_cast<void*>(get_proc()));
  EXPECT_EQ(v1, dlsym(cuda_, "cuGetProcAddress"));
  EXPECT_NE(v1, fake_self_("cuGetProcAddress"));
  EXPECT_NE(library_of(v1).find("libacs_recording.so"), std::string::npos);
  // And the v1 wrapper keeps wrapping.
  void* launch = nullptr;
  ASSERT_EQ(reinterpret_cast<PFN_cuGetProcAddress_v11030>(v1)("cuLaunchKernel", &launch, 12000, 0), CUDA_SUCCESS);
  EXPECT_EQ(launch, dlsym(cuda_, "cuLaunchKernel"));
}

// --- barriers, syncs, capture, memory --------------------------------------------------------

TEST_F(interposition, stream_operations_are_barriers_on_their_stream) {
  proc<PFN_cuMemcpyAsync_v4000>("cuMemcpyAsync", 12000)(0, 0, 16, stream(0x77));
  proc<PFN_cuMemcpyAsync_v7000_ptsz>("cuMemcpyAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)(
      0, 0, 16, nullptr);
  proc<PFN_cuEventRecord_v2000>("cuEventRecord", 12000)(nullptr, stream(0x78));
  const auto e = events();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].what, recorded::barrier);
  EXPECT_EQ(e[0].stream, stream(0x77));
  EXPECT_EQ(e[0].per_thread, 0);
  EXPECT_EQ(e[1].what, recorded::barrier);
  EXPECT_EQ(e[1].stream, nullptr);
  EXPECT_EQ(e[1].per_thread, 1);
  EXPECT_EQ(e[2].what, recorded::barrier);
  EXPECT_EQ(e[2].stream, stream(0x78));
  const auto c = calls();
  ASSERT_EQ(c.size(), 3u);
  EXPECT_STREQ(c[1].name, "cuMemcpyAsync_ptsz");
}

TEST_F(interposition, synchronous_copies_are_barriers_on_their_default_stream) {
  proc<PFN_cuMemcpyHtoD_v3020>("cuMemcpyHtoD", 12000)(0, nullptr, 0);
  proc<PFN_cuMemcpyHtoD_v7000_ptds>("cuMemcpyHtoD", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)(
      0, nullptr, 0);
  const auto e = events();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].what, recorded::barrier);
  EXPECT_EQ(e[0].stream, CU_STREAM_LEGACY);
  EXPECT_EQ(e[0].per_thread, 0);
  EXPECT_EQ(e[1].what, recorded::barrier);
  EXPECT_EQ(e[1].stream, CU_STREAM_PER_THREAD);
  EXPECT_EQ(e[1].per_thread, 1);
  const auto c = calls();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_STREQ(c[0].name, "cuMemcpyHtoD_v2");
  EXPECT_STREQ(c[1].name, "cuMemcpyHtoD_v2_ptds");
}

// A synchronous peer copy is serialised with its source and destination devices' work too: the
// runtime is told before and after, around the current device's legacy barrier (docs/design.md
// rule 8).
class interposition_multigpu : public interposition {};

TEST_F(interposition_multigpu, synchronous_peer_copies_bracket_every_devices_default_stream) {
  proc<PFN_cuMemcpyPeer_v4000>("cuMemcpyPeer", 12000)(0, nullptr, 0, nullptr, 16);
  proc<PFN_cuMemcpyPeer_v7000_ptds>("cuMemcpyPeer", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)(
      0, nullptr, 0, nullptr, 16);
  const auto e = events();
  ASSERT_EQ(e.size(), 6u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(e[3 * i].what, recorded::peer_copy_begins);
    EXPECT_EQ(e[3 * i + 1].what, recorded::barrier);
    EXPECT_EQ(e[3 * i + 1].stream, i == 0 ? CU_STREAM_LEGACY : CU_STREAM_PER_THREAD);
    EXPECT_EQ(e[3 * i + 1].bracketed, 1);
    EXPECT_EQ(e[3 * i + 2].what, recorded::peer_copy_done);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(e[3 * i + k].per_thread, i) << "event " << 3 * i + k;
  }
  const auto c = calls();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_STREQ(c[0].name, "cuMemcpyPeer");
  EXPECT_STREQ(c[1].name, "cuMemcpyPeer_ptds");
}

TEST_F(interposition, synchronization_is_reported_only_when_it_succeeded) {
  auto sync = proc<PFN_cuStreamSynchronize_v2000>("cuStreamSynchronize", 12000);
  EXPECT_EQ(sync(stream(0x10)), CUDA_SUCCESS);
  EXPECT_EQ(sync(broken_stream), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(proc<PFN_cuCtxSynchronize_v2000>("cuCtxSynchronize", 12000)(), CUDA_SUCCESS);
  const auto e = events();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].what, recorded::synchronized);
  EXPECT_EQ(e[0].stream, stream(0x10));
  EXPECT_EQ(e[1].what, recorded::device_synchronized);
}

TEST_F(interposition, stream_destroy_is_reported_before_the_handle_dies) {
  proc<PFN_cuStreamDestroy_v4000>("cuStreamDestroy", 12000)(stream(0x44));
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::stream_destroyed);
  EXPECT_EQ(e[0].stream, stream(0x44));
}

TEST_F(interposition, capture_begin_is_undone_only_when_no_capture_runs) {
  auto begin = proc<PFN_cuStreamBeginCapture_v10010>("cuStreamBeginCapture", 12000);
  auto end = proc<PFN_cuStreamEndCapture_v10000>("cuStreamEndCapture", 12000);
  EXPECT_EQ(begin(failing_stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(begin(busy_stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);  // already capturing
  CUgraph graph = nullptr;
  EXPECT_EQ(end(busy_stream, &graph), CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);            // still capturing
  EXPECT_EQ(begin(stream(0x60), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  EXPECT_EQ(end(stream(0x60), &graph), CUDA_SUCCESS);

  const auto e = events();
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].what, recorded::capture_began);
  EXPECT_EQ(e[0].stream, failing_stream);
  EXPECT_EQ(e[1].what, recorded::capture_ended);  // the failed begin left no capture
  EXPECT_EQ(e[1].stream, failing_stream);
  EXPECT_EQ(e[2].what, recorded::capture_began);  // busy: its earlier capture still runs
  EXPECT_EQ(e[2].stream, busy_stream);
  EXPECT_EQ(e[3].what, recorded::capture_began);
  EXPECT_EQ(e[3].detail, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  EXPECT_EQ(e[4].what, recorded::capture_ended);
  EXPECT_EQ(e[4].stream, stream(0x60));
}

TEST_F(interposition, allocations_and_frees_are_reported) {
  CUdeviceptr p = 0;
  ASSERT_EQ(proc<PFN_cuMemAlloc_v3020>("cuMemAlloc", 12000)(&p, 1000), CUDA_SUCCESS);
  CUdeviceptr q = 0;
  ASSERT_EQ(proc<PFN_cuMemAllocAsync_v11020>("cuMemAllocAsync", 12000)(&q, 64, stream(0x9)), CUDA_SUCCESS);
  ASSERT_EQ(proc<PFN_cuMemFree_v3020>("cuMemFree", 12000)(p), CUDA_SUCCESS);
  const auto e = events();
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].what, recorded::allocated);
  EXPECT_EQ(e[0].address, p);
  EXPECT_EQ(e[0].bytes, 1000u);
  EXPECT_EQ(e[1].what, recorded::allocated);
  EXPECT_EQ(e[1].address, q);
  EXPECT_EQ(e[1].bytes, 64u);
  EXPECT_EQ(e[2].what, recorded::barrier);  // stream-ordered allocation
  EXPECT_EQ(e[2].stream, stream(0x9));
  EXPECT_EQ(e[3].what, recorded::freed);
  EXPECT_EQ(e[3].address, p);
  EXPECT_EQ(e[4].what, recorded::work_issued);  // a free waits for work acs may not have issued yet
}

// A virtual-memory reservation reaches the runtime as one (docs/design.md rule 10): reserved and
// freed around the mappings, which are still reported as allocations inside it [vmm_reservation].
class interposition_vmm_reservation : public interposition {};

TEST_F(interposition_vmm_reservation, reserve_maps_unmaps_and_free_each_reach_the_runtime) {
  CUdeviceptr base = 0;
  ASSERT_EQ(proc<PFN_cuMemAddressReserve_v10020>("cuMemAddressReserve", 12000)(&base, 4 << 20, 0, 0, 0), CUDA_SUCCESS);
  const auto map = proc<PFN_cuMemMap_v10020>("cuMemMap", 12000);
  ASSERT_EQ(map(base, 2 << 20, 0, 1, 0), CUDA_SUCCESS);
  ASSERT_EQ(map(base + (2 << 20), 2 << 20, 0, 2, 0), CUDA_SUCCESS);
  const auto unmap = proc<PFN_cuMemUnmap_v10020>("cuMemUnmap", 12000);
  ASSERT_EQ(unmap(base, 2 << 20), CUDA_SUCCESS);
  ASSERT_EQ(unmap(base + (2 << 20), 2 << 20), CUDA_SUCCESS);
  ASSERT_EQ(proc<PFN_cuMemAddressFree_v10020>("cuMemAddressFree", 12000)(base, 4 << 20), CUDA_SUCCESS);
  const auto e = events();
  std::vector<recorded> what;
  for (const auto& x : e) what.push_back(x.what);
  EXPECT_EQ(what, (std::vector<recorded>{recorded::reserved, recorded::allocated, recorded::allocated, recorded::freed,
                                         recorded::work_issued, recorded::freed, recorded::work_issued,
                                         recorded::unreserved}));
  ASSERT_EQ(e.size(), 8u);
  EXPECT_EQ(e[0].address, base);
  EXPECT_EQ(e[0].bytes, 4u << 20);
  EXPECT_EQ(e[2].address, base + (2 << 20));
  EXPECT_EQ(e[2].detail, static_cast<int>(acs::memory_kind::device));
  EXPECT_EQ(e[7].address, base);
  // The real functions ran, once each.
  EXPECT_EQ(calls().size(), 6u);
}

TEST_F(interposition_vmm_reservation, the_exported_hooks_report_too_and_a_null_address_nothing) {
  CUdeviceptr base = 0;
  // Through dlsym, as a program linked against libcuda would call it: the hook, then the fake.
  const auto reserve = lookup<PFN_cuMemAddressReserve_v10020>(RTLD_DEFAULT, "cuMemAddressReserve");
  ASSERT_NE(reserve, nullptr);
  ASSERT_EQ(reserve(&base, 1 << 20, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(events().size(), 1u);
  reset();
  ASSERT_EQ(lookup<PFN_cuMemAddressFree_v10020>(RTLD_DEFAULT, "cuMemAddressFree")(0, 0), CUDA_SUCCESS);
  EXPECT_TRUE(events().empty());  // a null address names no reservation
}

// Pinned host memory is reported as such (docs/design.md rule 11) [host_mapped].
class interposition_host_mapped : public interposition {};

TEST_F(interposition_host_mapped, host_allocations_and_registrations_are_host_memory) {
  void* p = nullptr;
  ASSERT_EQ(proc<PFN_cuMemHostAlloc_v2020>("cuMemHostAlloc", 12000)(&p, 4096, 0), CUDA_SUCCESS);
  static char page[4096];
  ASSERT_EQ(proc<PFN_cuMemHostRegister_v6050>("cuMemHostRegister", 12000)(page, sizeof page, 0), CUDA_SUCCESS);
  void* q = nullptr;
  ASSERT_EQ(cudaHostAlloc(&q, 8192, cudaHostAllocMapped), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(page, sizeof page, cudaHostRegisterMapped), cudaSuccess);
  CUdeviceptr d = 0;
  ASSERT_EQ(proc<PFN_cuMemAlloc_v3020>("cuMemAlloc", 12000)(&d, 64), CUDA_SUCCESS);
  const auto e = events();
  ASSERT_EQ(e.size(), 5u);
  const std::uint64_t addresses[] = {reinterpret_cast<std::uint64_t>(p), reinterpret_cast<std::uint64_t>(page),
                                     reinterpret_cast<std::uint64_t>(q), reinterpret_cast<std::uint64_t>(page), d};
  const std::uint64_t sizes[] = {4096, sizeof page, 8192, sizeof page, 64};
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].what, recorded::allocated) << i;
    EXPECT_EQ(e[i].address, addresses[i]) << i;
    EXPECT_EQ(e[i].bytes, sizes[i]) << i;
    EXPECT_EQ(e[i].detail, static_cast<int>(i < 4 ? acs::memory_kind::host : acs::memory_kind::device)) << i;
  }
}

TEST_F(interposition, code_loads_and_unloads_are_reported_with_their_handles) {
  static const char image[] = "an image";
  CUmodule m = nullptr;
  ASSERT_EQ(proc<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 12000)(&m, image), CUDA_SUCCESS);
  CUlibrary l = nullptr;
  auto load_library = proc<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000);
  ASSERT_EQ(load_library(&l, image, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  // A failed load reports nothing, and its error comes back unchanged.
  EXPECT_EQ(load_library(&l, "bad", nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_ERROR_INVALID_IMAGE);
  ASSERT_EQ(proc<PFN_cuLibraryUnload_v12000>("cuLibraryUnload", 12000)(l), CUDA_SUCCESS);
  const auto e = events();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].what, recorded::code_loaded);
  EXPECT_EQ(e[0].address, 0x11u);
  EXPECT_EQ(e[0].bytes, reinterpret_cast<std::uint64_t>(image));
  EXPECT_EQ(e[0].detail, 0);
  EXPECT_EQ(e[1].what, recorded::code_loaded);
  EXPECT_EQ(e[1].address, 0x12u);
  EXPECT_EQ(e[1].detail, 1);
  EXPECT_EQ(e[2].what, recorded::unloaded);
  EXPECT_EQ(e[2].address, 0x12u);
}

TEST_F(interposition, graph_upload_is_a_barrier_only_when_requested) {
  auto instantiate = proc<PFN_cuGraphInstantiateWithParams_v12000>("cuGraphInstantiateWithParams", 12000);
  CUgraphExec exec = nullptr;
  CUDA_GRAPH_INSTANTIATE_PARAMS params{};
  params.flags = 0;
  params.hUploadStream = stream(0xdead);  // not meaningful without the flag
  instantiate(&exec, nullptr, &params);
  params.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
  params.hUploadStream = stream(0x5);
  instantiate(&exec, nullptr, &params);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::barrier);
  EXPECT_EQ(e[0].stream, stream(0x5));
}

// --- launches --------------------------------------------------------------------------------

TEST_F(interposition, the_closure_reissues_the_same_launch_on_another_stream) {
  redirect_(stream(0x99));
  auto launch = proc<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 12000);
  EXPECT_EQ(launch(function(0x77), 2, 2, 2, 4, 4, 4, 0, stream(0x55), nullptr, nullptr), CUDA_SUCCESS);
  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].stream, stream(0x99));
  EXPECT_EQ(c[0].function, function(0x77));
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].stream, stream(0x55));  // the request names the application's stream
}

TEST_F(interposition, a_launch_error_reaches_the_application_unchanged) {
  auto launch = proc<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 12000);
  EXPECT_EQ(launch(function(0xbad), 1, 1, 1, 1, 1, 1, 0, stream(0x55), nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(interposition, launch_attributes_decide_whether_a_launch_may_move) {
  auto launch_ex = proc<PFN_cuLaunchKernelEx_v11060>("cuLaunchKernelEx", 12000);
  redirect_(stream(0x99));
  CUlaunchAttribute attribute{};
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream(0x55);
  config.attrs = &attribute;
  config.numAttrs = 1;

  attribute.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;  // about the kernel itself: may move
  attribute.value.priority = 1;
  EXPECT_EQ(launch_ex(&config, function(0x10), nullptr, nullptr), CUDA_SUCCESS);
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  EXPECT_EQ(launch_ex(&config, function(0x11), nullptr, nullptr), CUDA_SUCCESS);
  attribute.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attribute.value.cooperative = 1;
  EXPECT_EQ(launch_ex(&config, function(0x12), nullptr, nullptr), CUDA_SUCCESS);
  attribute.id = static_cast<CUlaunchAttributeID>(15);  // unassigned today: newer than acs, keep it in order
  EXPECT_EQ(launch_ex(&config, function(0x13), nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(config.hStream, stream(0x55));  // the application's config is not modified

  const auto c = calls();
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].stream, stream(0x99));  // moved
  EXPECT_EQ(c[1].stream, stream(0x55));
  EXPECT_EQ(c[2].stream, stream(0x55));
  EXPECT_EQ(c[3].stream, stream(0x55));
  const auto e = events();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].what, recorded::launch);
  EXPECT_EQ(e[0].stream, stream(0x55));
  EXPECT_EQ(e[1].what, recorded::launched_directly);
  EXPECT_EQ(e[1].detail, static_cast<int>(acs::pass_reason::ordering_attribute));
  EXPECT_EQ(e[2].what, recorded::launched_directly);
  EXPECT_EQ(e[2].detail, static_cast<int>(acs::pass_reason::cooperative));
  EXPECT_EQ(e[3].what, recorded::launched_directly);
  EXPECT_EQ(e[3].detail, static_cast<int>(acs::pass_reason::ordering_attribute));
}

// [pdl] Programmatic dependent launch (interpose/hooks_launch.hpp, ACS_PDL): registered twice,
// with ACS_PDL unset (such launches pass straight through, attribute and all) and with
// ACS_PDL=reorder (scheduled like others; moved to a pool stream, they lose the attribute, and
// the program's own configuration is left as it was).
class interposition_pdl : public interposition {};

TEST_F(interposition_pdl, programmatic_launches_pass_through_or_move_without_their_attribute) {
  const char* setting = std::getenv("ACS_PDL");
  const bool reorder = setting != nullptr && std::string(setting) == "reorder";
  auto launch_ex = proc<PFN_cuLaunchKernelEx_v11060>("cuLaunchKernelEx", 12000);
  redirect_(stream(0x99));
  CUlaunchAttribute attributes[2]{};
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attributes[0].value.programmaticStreamSerializationAllowed = 1;
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  attributes[1].value.priority = 1;
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream(0x55);
  config.attrs = attributes;
  config.numAttrs = 1;
  EXPECT_EQ(launch_ex(&config, function(0x10), nullptr, nullptr), CUDA_SUCCESS);  // PDL alone
  config.numAttrs = 2;
  EXPECT_EQ(launch_ex(&config, function(0x11), nullptr, nullptr), CUDA_SUCCESS);  // PDL and a priority
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;  // stays in order, whatever ACS_PDL says
  EXPECT_EQ(launch_ex(&config, function(0x12), nullptr, nullptr), CUDA_SUCCESS);
  // The program's configuration is untouched.
  EXPECT_EQ(config.hStream, stream(0x55));
  EXPECT_EQ(attributes[0].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  EXPECT_EQ(attributes[0].value.programmaticStreamSerializationAllowed, 1u);

  const auto c = calls();
  ASSERT_EQ(c.size(), 3u);
  const auto e = events();
  ASSERT_EQ(e.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    if (reorder) {
      EXPECT_EQ(c[i].stream, stream(0x99)) << i;
      EXPECT_EQ(c[i].programmatic, 0) << i << ": moved with the attribute still on";
      EXPECT_EQ(e[i].what, recorded::launch) << i;
    } else {
      EXPECT_EQ(c[i].stream, stream(0x55)) << i;
      EXPECT_EQ(c[i].programmatic, 1) << i << ": the attribute was lost on the program's own stream";
      EXPECT_EQ(e[i].what, recorded::launched_directly) << i;
      EXPECT_EQ(e[i].detail, static_cast<int>(acs::pass_reason::ordering_attribute)) << i;
    }
  }
  if (reorder) {
    EXPECT_EQ(e[0].detail, 0) << "PDL alone needs no attribute once moved: acs may copy the launch";
    EXPECT_EQ(e[1].detail, 1) << "the priority must follow the launch";
  }
  EXPECT_EQ(c[2].stream, stream(0x55));
  EXPECT_EQ(c[2].programmatic, 1);
  EXPECT_EQ(e[2].what, recorded::launched_directly);
}

TEST_F(interposition, cooperative_launches_are_issued_as_is) {
  redirect_(stream(0x99));
  auto launch = proc<PFN_cuLaunchCooperativeKernel_v9000>("cuLaunchCooperativeKernel", 12000);
  EXPECT_EQ(launch(function(0x20), 1, 1, 1, 1, 1, 1, 0, stream(0x56), nullptr), CUDA_SUCCESS);
  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].stream, stream(0x56));
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::launched_directly);
  EXPECT_EQ(e[0].detail, static_cast<int>(acs::pass_reason::cooperative));
}

TEST_F(interposition, every_thread_has_its_own_guard) {
  auto launch = proc<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 12000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) launch(function(0x30), 1, 1, 1, 1, 1, 1, 0, stream(0x30), nullptr, nullptr);
    });
  }
  for (auto& t : threads) t.join();
  const auto e = events();
  ASSERT_EQ(e.size(), 200u);
  for (const auto& event : e) {
    EXPECT_EQ(event.what, recorded::launch);
    EXPECT_EQ(event.nesting, 1);
  }
}

// --- the runtime -----------------------------------------------------------------------------
// The fake cudart calls the driver through cuGetProcAddress pointers, i.e. through acs's driver
// wrappers: each operation must still be reported once, by the runtime hook.

void stub_a() {}
void stub_unregistered() {}

TEST_F(interposition, a_runtime_launch_is_reported_once_with_its_function) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_a), function(0xa0));
  std::uint64_t x = 1, y = 0;  // the fake driver's kernels take two 8-byte parameters
  void* args[] = {&x, &y};
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_a), dim3(1), dim3(1), args, 0, stream(0x42)),
            cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::launch);
  EXPECT_STREQ(e[0].api, "cudaLaunchKernel");
  EXPECT_EQ(e[0].stream, stream(0x42));
  EXPECT_EQ(e[0].function, function(0xa0));
  EXPECT_EQ(e[0].params, args);
  EXPECT_EQ(e[0].nesting, 1);
  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);  // the driver wrapper passed it through
  EXPECT_STREQ(c[0].name, "cuLaunchKernel");
}

TEST_F(interposition, a_per_thread_runtime_launch_keeps_its_default_stream) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_a), function(0xa0));
  redirect_(stream(0x99));
  EXPECT_EQ(cudaLaunchKernel_ptsz(reinterpret_cast<const void*>(&stub_a), dim3(1), dim3(1), nullptr, 0, nullptr),
            cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_STREQ(e[0].api, "cudaLaunchKernel_ptsz");
  EXPECT_EQ(e[0].per_thread, 1);
  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_STREQ(c[0].name, "cuLaunchKernel_ptsz");
  EXPECT_EQ(c[0].stream, stream(0x99));  // re-issued through the same (per-thread) entry point
}

TEST_F(interposition, chevron_launches_find_their_function_through_the_driver) {
  EXPECT_EQ(__cudaLaunchKernel(reinterpret_cast<cudaKernel_t>(0x1000), dim3(1), dim3(1), nullptr, 0, stream(0x43)),
            cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_STREQ(e[0].api, "__cudaLaunchKernel");
  EXPECT_EQ(e[0].function, function(0x1001));  // the fake's cuKernelGetFunction: kernel + 1
  EXPECT_EQ(calls().size(), 1u);
}

void stub_b() {}

// The hooks cache stub -> function per thread and context; unloading code must drop the cache,
// since a stub's function (and its handle) may change with the code that is loaded.
TEST_F(interposition, a_stubs_function_is_looked_up_again_after_code_is_unloaded) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_b), function(0xb0));
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_b), dim3(1), dim3(1), nullptr, 0, stream(0x42)),
            cudaSuccess);
  fake_cudart_register(reinterpret_cast<const void*>(&stub_b), function(0xb1));
  ASSERT_EQ(proc<PFN_cuLibraryUnload_v12000>("cuLibraryUnload", 12000)(reinterpret_cast<CUlibrary>(0x12)),
            CUDA_SUCCESS);
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_b), dim3(1), dim3(1), nullptr, 0, stream(0x42)),
            cudaSuccess);
  std::vector<CUfunction> functions;
  for (const auto& event : events())
    if (event.what == recorded::launch) functions.push_back(static_cast<CUfunction>(event.function));
  EXPECT_EQ(functions, (std::vector<CUfunction>{function(0xb0), function(0xb1)}));
}

TEST_F(interposition, a_failed_function_lookup_leaves_no_error_behind) {
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_unregistered), dim3(1), dim3(1), nullptr, 0,
                             stream(0x42)),
            cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].function, nullptr);  // unknown to the runtime: acs could not identify it
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(interposition, a_pending_error_is_neither_overwritten_nor_cleared) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_a), function(0xa0));
  void* p = nullptr;
  EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &p, 12000, cudaEnableDefault, nullptr),
            cudaErrorSymbolNotFound);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_unregistered), dim3(1), dim3(1), nullptr, 0,
                             stream(0x42)),
            cudaSuccess);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_a), dim3(1), dim3(1), nullptr, 0, stream(0x42)),
            cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorSymbolNotFound);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(interposition, runtime_barriers_and_allocations_are_reported_once) {
  EXPECT_EQ(cudaMemcpyAsync(nullptr, nullptr, 8, cudaMemcpyDeviceToDevice, stream(0x21)), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 100), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].what, recorded::barrier);
  EXPECT_EQ(e[0].stream, stream(0x21));
  EXPECT_EQ(e[1].what, recorded::allocated);
  EXPECT_EQ(e[1].address, reinterpret_cast<std::uint64_t>(p));
  EXPECT_EQ(e[1].bytes, 100u);
  EXPECT_EQ(e[2].what, recorded::freed);
  EXPECT_EQ(e[2].address, reinterpret_cast<std::uint64_t>(p));
  EXPECT_EQ(e[3].what, recorded::work_issued);
  for (const auto& event : e) EXPECT_EQ(event.nesting, 1);
  EXPECT_EQ(calls().size(), 3u);
}

TEST_F(interposition, runtime_entry_points_hand_out_wrappers) {
  void* p = nullptr;
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, nullptr), cudaSuccess);
  EXPECT_EQ(p, dlsym(cuda_, "cuLaunchKernel"));
  EXPECT_NE(p, fake_self_("cuLaunchKernel"));
}

TEST_F(interposition, another_major_version_of_the_runtime_is_left_alone) {
  // Its entry points may have other signatures under the same names: the runtime hooks carry
  // libcudart.so.13's symbol version, so a reference made against libcudart.so.12 skips them.
  void* consumer = dlopen(ACS_TEST_CONSUMER12, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(consumer, nullptr) << dlerror();
  auto copy = lookup<int (*)()>(consumer, "consumer12_copy");
  auto* calls12 = lookup<int*>(consumer, "fake_cudart12_calls");
  ASSERT_TRUE(copy != nullptr && calls12 != nullptr);
  EXPECT_EQ(copy(), 0);
  EXPECT_EQ(*calls12, 1);
  EXPECT_TRUE(events().empty());
  dlclose(consumer);
}

// The runtime hooks leave a host stub's look-up to dispatch_launch (launch_request::find_function),
// which the recording stand-in, like acs, makes only while acs is active: the hook makes none.
TEST_F(interposition, functions_are_not_looked_up_while_acs_is_inactive) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_a), function(0xa0));
  set_active_(0);
  const int lookups = fake_cudart_stub_lookups();
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&stub_a), dim3(1), dim3(1), nullptr, 0, stream(0x42)),
            cudaSuccess);
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::launch);
  EXPECT_EQ(e[0].function, nullptr);
  EXPECT_EQ(fake_cudart_stub_lookups(), lookups);
}

}  // namespace

// [disabled] Run with ACS_DISABLE=1 (preload.interposition_disabled): nothing of acs runs, and
// the pointers a program looks up are the driver's own, so its calls skip acs altogether.
class interposition_disabled : public interposition {};
// [disabled_stats] Also with ACS_STATS=1: the trace that measures the program's concurrency
// starts at a hook's call, so the wrappers are still handed out, and pass their calls through.
class interposition_disabled_stats : public interposition {};

TEST_F(interposition_disabled_stats, looked_up_functions_are_wrappers_that_pass_their_calls_through) {
  ASSERT_NE(std::getenv("ACS_DISABLE"), nullptr) << "run this suite through ctest (ACS_DISABLE=1 ACS_STATS=1)";
  ASSERT_NE(std::getenv("ACS_STATS"), nullptr) << "run this suite through ctest (ACS_DISABLE=1 ACS_STATS=1)";
  auto launch = proc<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 12000);
  ASSERT_NE(launch, nullptr);
  EXPECT_NE(reinterpret_cast<void*>(launch), fake_self_("cuLaunchKernel"));
  EXPECT_NE(dlsym(cuda_, "cuLaunchKernel"), fake_self_("cuLaunchKernel"));
  EXPECT_EQ(launch(function(0x1234), 1, 1, 1, 32, 1, 1, 0, stream(0x55), nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(calls().size(), 1u);
  EXPECT_TRUE(all_events().empty()) << "the hook handed a disabled call to acs's runtime";
}

TEST_F(interposition_disabled, proc_address_and_dlsym_hand_out_the_real_functions) {
  ASSERT_NE(std::getenv("ACS_DISABLE"), nullptr) << "run this suite through ctest (ACS_DISABLE=1)";
  EXPECT_EQ(proc<void*>("cuLaunchKernel", 12000), fake_self_("cuLaunchKernel"));
  EXPECT_EQ(proc<void*>("cuStreamSynchronize", 12000), fake_self_("cuStreamSynchronize"));
  EXPECT_EQ(dlsym(cuda_, "cuLaunchKernel"), fake_self_("cuLaunchKernel"));  // the settings are read by now
}

TEST_F(interposition_disabled, an_exported_hook_passes_its_call_through_unseen) {
  ASSERT_NE(std::getenv("ACS_DISABLE"), nullptr) << "run this suite through ctest (ACS_DISABLE=1)";
  // The preloaded export, as a program linked against libcuda reaches it.
  auto launch = lookup<PFN_cuLaunchKernel_v4000>(RTLD_DEFAULT, "cuLaunchKernel");
  ASSERT_NE(launch, nullptr);
  ASSERT_NE(library_of(reinterpret_cast<void*>(launch)).find("libacs_recording.so"), std::string::npos);
  std::uint64_t x = 7, y = 0;  // the fake driver's kernels take two 8-byte parameters
  void* params[] = {&x, &y};
  EXPECT_EQ(launch(function(0x1234), 1, 1, 1, 32, 1, 1, 0, stream(0x55), params, nullptr), CUDA_SUCCESS);
  const auto c = calls();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_STREQ(c[0].name, "cuLaunchKernel");
  EXPECT_EQ(c[0].stream, stream(0x55));
  EXPECT_TRUE(all_events().empty()) << "the hook handed a disabled call to acs's runtime";
}

// --- what decides whether a launch succeeds (docs/design.md rule 6) -------------------------

class preload_deferred_error : public interposition {};

// A function-attribute change reaches the driver between launch_conditions_change_begins and
// launch_conditions_changed (so that deferred launches are issued before it, and none counts as
// known to succeed after it); an unload is bracketed the same way, with graph replay's
// executables destroyed inside the bracket (modules_unloading), before the unloaded report.
TEST_F(preload_deferred_error, function_config_calls_are_bracketed_by_the_launch_conditions) {
  auto set_attribute = proc<PFN_cuFuncSetAttribute_v9000>("cuFuncSetAttribute", 12000);
  EXPECT_NE(reinterpret_cast<void*>(set_attribute), fake_self_("cuFuncSetAttribute")) << "not hooked";
  EXPECT_EQ(set_attribute(function(0x77), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 512), CUDA_SUCCESS);
  CUlibrary l = nullptr;
  static const char image[] = "an image";
  ASSERT_EQ(proc<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000)(&l, image, nullptr, nullptr, 0, nullptr,
                                                                             nullptr, 0),
            CUDA_SUCCESS);
  ASSERT_EQ(proc<PFN_cuLibraryUnload_v12000>("cuLibraryUnload", 12000)(l), CUDA_SUCCESS);
  std::vector<recorded> seen;
  for (const recorded_event& e : all_events()) seen.push_back(e.what);
  const std::vector<recorded> expected = {recorded::attribute_set,     recorded::conditions_change,
                                          recorded::conditions_changed, recorded::code_loaded,
                                          recorded::conditions_change,  recorded::unloading,
                                          recorded::conditions_changed, recorded::unloaded};
  EXPECT_EQ(seen, expected);
  const auto c = calls();
  ASSERT_FALSE(c.empty());
  EXPECT_STREQ(c[0].name, "cuFuncSetAttribute");
  EXPECT_EQ(c[0].function, function(0x77));
}

// A set of one function's attribute reaches the runtime with the function it belongs to, which
// is where acs remembers values set (launch_conditions::set_function_attribute): the CUfunction
// a driver call names, and for cudaFuncSetAttribute its host stub's CUfunction; the runtime's
// own driver call inside it passes straight through.
void stub_attribute() {}

TEST_F(preload_deferred_error, an_attribute_set_names_the_function_it_belongs_to) {
  fake_cudart_register(reinterpret_cast<const void*>(&stub_attribute), function(0xa7));
  auto set_attribute = proc<PFN_cuFuncSetAttribute_v9000>("cuFuncSetAttribute", 12000);
  EXPECT_EQ(set_attribute(function(0x77), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024), CUDA_SUCCESS);
  EXPECT_EQ(cudaFuncSetAttribute(reinterpret_cast<const void*>(&stub_attribute),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, 2048),
            cudaSuccess);
  std::vector<recorded_event> sets;
  for (const recorded_event& e : all_events())
    if (e.what == recorded::attribute_set) sets.push_back(e);
  ASSERT_EQ(sets.size(), 2u) << "each call reported once, the runtime's driver call inside it not again";
  EXPECT_EQ(sets[0].function, static_cast<void*>(function(0x77)));
  EXPECT_EQ(sets[0].detail, 1024);
  EXPECT_EQ(sets[1].function, static_cast<void*>(function(0xa7))) << "the stub's function, not the stub";
  EXPECT_EQ(sets[1].detail, 2048);
}

// Every hooked call that fails is reported with its status (after a context failure, no launch is
// deferred); a successful one is not. Event synchronisation and queries are hooked for that alone.
TEST_F(preload_deferred_error, failed_calls_are_reported_with_their_status) {
  auto sync = proc<PFN_cuStreamSynchronize_v2000>("cuStreamSynchronize", 12000);
  EXPECT_EQ(sync(stream(0x10)), CUDA_SUCCESS);
  EXPECT_EQ(sync(broken_stream), CUDA_ERROR_LAUNCH_FAILED);
  auto event_sync = proc<PFN_cuEventSynchronize_v2000>("cuEventSynchronize", 12000);
  EXPECT_NE(reinterpret_cast<void*>(event_sync), fake_self_("cuEventSynchronize")) << "not hooked";
  EXPECT_EQ(event_sync(reinterpret_cast<CUevent>(0xe1)), CUDA_SUCCESS);
  std::vector<int> failed;
  for (const recorded_event& e : all_events())
    if (e.what == recorded::call_failed) failed.push_back(e.detail);
  EXPECT_EQ(failed, std::vector<int>{CUDA_ERROR_LAUNCH_FAILED});
}

// A thread whose first runtime call is a <<<>>> launch (NVIDIA's simpleCooperativeGroups sample
// with -cudart shared): no context is current yet when the hook asks the driver for the kernel's
// function, and the runtime would make one current only inside the launch. The hook must still
// identify the kernel, or the launch passes straight through with "a launch whose kernel could
// not be identified".
class preload_unidentified_kernel : public interposition {};

TEST_F(preload_unidentified_kernel, a_threads_first_launch_finds_its_kernel_without_a_current_context) {
  const auto drop_current_context = lookup<void (*)()>(cuda_, "fake_cuda_drop_current_context");
  ASSERT_NE(drop_current_context, nullptr);
  cudaError_t status = cudaErrorUnknown;
  cudaError_t left = cudaErrorUnknown;
  std::thread([&] {
    drop_current_context();  // as on a fresh thread before any runtime call
    status = __cudaLaunchKernel(reinterpret_cast<cudaKernel_t>(0x3000), dim3(1), dim3(64), nullptr, 256, nullptr);
    left = cudaGetLastError();
  }).join();
  EXPECT_EQ(status, cudaSuccess);
  EXPECT_EQ(left, cudaSuccess) << "the look-up left an error behind";
  const auto e = events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].what, recorded::launch);
  EXPECT_EQ(e[0].function, function(0x3001)) << "the kernel was not identified";
}
