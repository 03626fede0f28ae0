// A fake libcuda.so.1 for the preload tests: the entry points the tests use, with the exact
// ABIs of cuda.h (compiled with __CUDA_API_VERSION_INTERNAL, so that every variant has its own
// declaration to match), a cuGetProcAddress that picks variants by version and flags like the
// real one, and a log of which entry point actually ran.
//
// It also models one device well enough for the real libacs to schedule on it (fake_driver_app):
// device 0, whose primary context 0xc0 is always current; streams and events (work completes at
// once); every function takes two 8-byte parameters; a function's dynamic shared memory limit
// (cuFuncSetAttribute), beyond which its launches fail (a failure that is not sticky); and a
// context that fails, for good, after a given number of launches or when told to: then every
// call returns CUDA_ERROR_LAUNCH_FAILED, as after a kernel fault. FAKE_CUDA_LAYOUT_DELAY_US=N makes a
// function's first layout read (cuFuncGetParamInfo) take N µs, as a real module's PTX analysis does;
// FAKE_CUDA_LAUNCH_NS=N makes every launch take N ns, as a real driver's launch call does.
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fake_calls.hpp"

namespace {

std::mutex mutex;
std::vector<fake_call> calls;
std::set<CUstream> capturing;

// Streams with scripted behaviour.
const CUstream busy_stream = reinterpret_cast<CUstream>(0x5ca);   // capture runs, begin/end fail
const CUstream failing_stream = reinterpret_cast<CUstream>(0xfa1);  // begin fails, nothing runs
const CUstream broken_stream = reinterpret_cast<CUstream>(0xe77);   // synchronize fails
const CUfunction bad_function = reinterpret_cast<CUfunction>(0xbad);
std::uint64_t next_address = 0x7000000000;

const CUcontext primary_context = reinterpret_cast<CUcontext>(0xc0);
constexpr int default_shared_limit = 48 * 1024;

struct device_model {
  std::uintptr_t next_handle = 0x50000;
  std::map<CUstream, unsigned> streams;  // created streams, with their flags
  std::map<CUfunction, int> shared_limit;
  std::uint64_t launches_seen = 0;
  std::uint64_t launches_run = 0;
  std::uint64_t run_digest = 0;  // fake_kernel_digest summed over the kernels run
  std::uint64_t fail_after = ~std::uint64_t{0};  // launches before the context fails
  bool failed = false;
};
device_model model;

void log(const char* name, CUstream stream = nullptr, CUfunction function = nullptr, int programmatic = -1) {
  std::lock_guard lock(mutex);
  calls.push_back({name, stream, function, programmatic});
}

// CUDA_ERROR_LAUNCH_FAILED once the context failed, else `otherwise`.
CUresult unless_failed(CUresult otherwise = CUDA_SUCCESS) {
  std::lock_guard lock(mutex);
  return model.failed ? CUDA_ERROR_LAUNCH_FAILED : otherwise;
}

// FAKE_CUDA_LAUNCH_NS=N: each launch keeps its caller N ns, as a real driver's launch call does
// (2-5 µs on an H100 or H200: docs/design.md §7); 0 by default.
void launch_cost() {
  static const long ns = [] {
    const char* v = std::getenv("FAKE_CUDA_LAUNCH_NS");
    return v != nullptr ? std::atol(v) : 0L;
  }();
  if (ns <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// A kernel's two 8-byte parameters (0 where not given).
std::uint64_t parameter(void** params, int i) {
  std::uint64_t v = 0;
  if (params != nullptr && params[i] != nullptr) std::memcpy(&v, params[i], sizeof v);
  return v;
}

CUresult launch(const char* name, CUfunction f, CUstream stream, unsigned shared = 0, int programmatic = -1,
                void** params = nullptr) {
  launch_cost();
  log(name, stream, f, programmatic);
  std::lock_guard lock(mutex);
  if (model.launches_seen++ >= model.fail_after) model.failed = true;
  if (model.failed) return CUDA_ERROR_LAUNCH_FAILED;
  if (f == bad_function) return CUDA_ERROR_INVALID_HANDLE;
  const auto limit = model.shared_limit.find(f);
  if (static_cast<int>(shared) > (limit != model.shared_limit.end() ? limit->second : default_shared_limit))
    return CUDA_ERROR_INVALID_VALUE;
  ++model.launches_run;
  model.run_digest += fake_kernel_digest(f, parameter(params, 0), parameter(params, 1));
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned shared,
                        CUstream s, void** params, void**) {
  return launch("cuLaunchKernel", f, s, shared, -1, params);
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream s, void**, void**) {
  return launch("cuLaunchKernel_ptsz", f, s);
}
int programmatic_of(const CUlaunchConfig* c) {
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
        c->attrs[i].value.programmaticStreamSerializationAllowed != 0)
      return 1;
  return 0;
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void**, void**) {
  return launch("cuLaunchKernelEx", f, c->hStream, 0, programmatic_of(c));
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* c, CUfunction f, void**, void**) {
  return launch("cuLaunchKernelEx_ptsz", f, c->hStream);
}
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, CUstream s, void**) {
  return launch("cuLaunchCooperativeKernel", f, s);
}
CUresult cuMemcpyAsync(CUdeviceptr, CUdeviceptr, size_t, CUstream s) {
  log("cuMemcpyAsync", s);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream s) {
  log("cuMemcpyAsync_ptsz", s);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void*, size_t) {
  log("cuMemcpyHtoD_v2");
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void*, size_t) {
  log("cuMemcpyHtoD_v2_ptds");
  return CUDA_SUCCESS;
}
CUresult cuMemcpyPeer(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t) {
  log("cuMemcpyPeer");
  return CUDA_SUCCESS;
}
CUresult cuMemcpyPeer_ptds(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t) {
  log("cuMemcpyPeer_ptds");
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream s) {
  log("cuEventRecord", s);
  return unless_failed();
}

static CUresult begin(const char* name, CUstream s) {
  log(name, s);
  if (s == busy_stream) return CUDA_ERROR_ILLEGAL_STATE;
  if (s == failing_stream) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(mutex);
  capturing.insert(s);
  return CUDA_SUCCESS;
}
CUresult cuStreamBeginCapture(CUstream s) { return begin("cuStreamBeginCapture", s); }
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode) { return begin("cuStreamBeginCapture_v2", s); }
CUresult cuStreamEndCapture(CUstream s, CUgraph* g) {
  log("cuStreamEndCapture", s);
  if (g != nullptr) *g = nullptr;
  if (s == busy_stream) return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  std::lock_guard lock(mutex);
  return capturing.erase(s) != 0 ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_STATE;
}
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  std::lock_guard lock(mutex);
  *status = s == busy_stream || capturing.count(s) != 0 ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                       : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s) {
  log("cuStreamSynchronize", s);
  return s == broken_stream ? CUDA_ERROR_LAUNCH_FAILED : unless_failed();
}
CUresult cuStreamQuery(CUstream s) {
  log("cuStreamQuery", s);
  return unless_failed();
}
CUresult cuCtxSynchronize() {
  log("cuCtxSynchronize");
  return unless_failed();
}
// What the driver would read when it creates a context: acs must have set it by then.
std::string connections_at_init = "not called";
CUresult cuInit(unsigned) {
  log("cuInit");
  const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::lock_guard lock(mutex);
  connections_at_init = v != nullptr ? v : "unset";
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attribute, int value) {
  log("cuFuncSetAttribute", nullptr, f);
  std::lock_guard lock(mutex);
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) model.shared_limit[f] = value;
  return CUDA_SUCCESS;
}
// The fake's kernels are their functions: a CUkernel handle names the CUfunction of the same
// value, whose one limit both calls set (the real driver keeps a kernel's value per device, under
// a function's own; fake_driver_app's modes use one of the two).
CUresult cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel, CUdevice device) {
  log("cuKernelSetAttribute", nullptr, reinterpret_cast<CUfunction>(kernel));
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(mutex);
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    model.shared_limit[reinterpret_cast<CUfunction>(kernel)] = value;
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  log("cuStreamDestroy_v2", s);
  std::lock_guard lock(mutex);
  model.streams.erase(s);
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  log("cuMemAlloc_v2");
  std::lock_guard lock(mutex);
  *p = next_address;
  next_address += (bytes + 0xfff) & ~std::uint64_t{0xfff};
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr) {
  log("cuMemFree_v2");
  return CUDA_SUCCESS;
}
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream s) {
  log("cuMemAllocAsync", s);
  std::lock_guard lock(mutex);
  *p = next_address;
  next_address += (bytes + 0xfff) & ~std::uint64_t{0xfff};
  return CUDA_SUCCESS;
}
// Virtual memory: a reservation takes addresses like an allocation; maps and unmaps only log.
CUresult cuMemAddressReserve(CUdeviceptr* p, size_t size, size_t, CUdeviceptr, unsigned long long) {
  log("cuMemAddressReserve");
  std::lock_guard lock(mutex);
  *p = next_address;
  next_address += (size + 0xfff) & ~std::uint64_t{0xfff};
  return CUDA_SUCCESS;
}
CUresult cuMemAddressFree(CUdeviceptr, size_t) {
  log("cuMemAddressFree");
  return CUDA_SUCCESS;
}
CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) {
  log("cuMemMap");
  return CUDA_SUCCESS;
}
CUresult cuMemUnmap(CUdeviceptr, size_t) {
  log("cuMemUnmap");
  return CUDA_SUCCESS;
}
// Pinned host memory: addresses of their own; registering only logs.
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) {
  log("cuMemHostAlloc");
  static std::uint64_t next_host = 0x7f80'0000'0000;
  std::lock_guard lock(mutex);
  *p = reinterpret_cast<void*>(next_host);
  next_host += (bytes + 0xfff) & ~std::uint64_t{0xfff};
  return CUDA_SUCCESS;
}
CUresult cuMemHostRegister_v2(void*, size_t, unsigned) {
  log("cuMemHostRegister_v2");
  return CUDA_SUCCESS;
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  *base = p;
  *size = 4096;
  return CUDA_SUCCESS;
}
// A thread can be made to have no current context, as before its first runtime call (the
// runtime makes its device's primary context current lazily, in that call).
thread_local bool no_current_context = false;
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = no_current_context ? nullptr : primary_context;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  no_current_context = c == nullptr;
  return CUDA_SUCCESS;
}

// The device model: what the real libacs calls for itself (ACS_DRIVER_USED).
CUresult cuCtxPushCurrent_v2(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent_v2(CUcontext* c) {
  if (c != nullptr) *c = primary_context;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* d) {
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned* flags, int* active) {
  *flags = 0;
  *active = d == 0 ? 1 : 0;
  return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  *c = primary_context;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
  std::lock_guard lock(mutex);
  model.next_handle += 0x10;
  *s = reinterpret_cast<CUstream>(model.next_handle);
  model.streams[*s] = flags;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream s, CUcontext* c) {
  std::lock_guard lock(mutex);
  if (model.streams.count(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
  *c = primary_context;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetFlags(CUstream s, unsigned* flags) {
  std::lock_guard lock(mutex);
  const auto it = model.streams.find(s);
  if (it == model.streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *flags = it->second;
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent, unsigned) {
  log("cuStreamWaitEvent", s);
  return unless_failed();
}
CUresult cuEventCreate(CUevent* e, unsigned) {
  std::lock_guard lock(mutex);
  model.next_handle += 0x10;
  *e = reinterpret_cast<CUevent>(model.next_handle);
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent) { return unless_failed(); }  // the work completed at once
CUresult cuEventSynchronize(CUevent) { return unless_failed(); }
CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }
CUresult cuPointerGetAttribute(void*, CUpointer_attribute, CUdeviceptr) { return CUDA_ERROR_INVALID_VALUE; }
// FAKE_CUDA_LAYOUT_DELAY_US=N: the first read of a function's layout takes N µs, as a real
// function's first read with its module's PTX analysed does (a millisecond or more).
CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t* offset, size_t* size) {
  static const long delay_us = [] {
    const char* v = std::getenv("FAKE_CUDA_LAYOUT_DELAY_US");
    return v != nullptr ? std::atol(v) : 0L;
  }();
  if (delay_us > 0 && index == 0) {
    static std::mutex read_mutex;
    static std::set<CUfunction> read;
    std::lock_guard lock(read_mutex);
    if (read.insert(function).second) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  }
  // Every function takes two 8-byte parameters; the function 0x4a50 a 4-byte scalar after them,
  // as a kernel's step count or time (benchmarks/cpu/call_overhead_fake.cpp's updated row). No
  // test program launches it: acs copies the parameters a layout names, so a program that passed
  // two to a three-parameter kernel would have its stack read past the array, as by the driver.
  const std::size_t count = function == reinterpret_cast<CUfunction>(0x4a50) ? 3 : 2;
  if (index >= count) return CUDA_ERROR_INVALID_VALUE;
  *offset = 8 * index;
  *size = index < 2 ? 8 : 4;
  return CUDA_SUCCESS;
}
// A CUkernel's function in the current context: the tests use kernel + 1.
CUresult cuKernelGetFunction(CUfunction* f, CUkernel k) {
  if (no_current_context) return CUDA_ERROR_INVALID_CONTEXT;
  *f = reinterpret_cast<CUfunction>(reinterpret_cast<std::uintptr_t>(k) + 1);
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithParams(CUgraphExec* e, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS*) {
  log("cuGraphInstantiateWithParams");
  *e = nullptr;
  return CUDA_SUCCESS;
}
// Graphs of kernel nodes, offered by cuGetProcAddress only with FAKE_CUDA_GRAPHS=1 (the host-cost
// benchmark of graph replay, benchmarks/cpu/call_overhead_fake.cpp): without them acs replays
// its segments call by call, which the preload tests check. A launch of an executable counts
// each node as a launch of the device model.
struct fake_graph {
  std::vector<CUfunction> nodes;
  std::vector<std::uint64_t> parameters;  // two per node: what it runs with (fake_kernel_digest)
};
bool graphs_offered() {
  static const bool offered = [] {
    const char* v = std::getenv("FAKE_CUDA_GRAPHS");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return offered;
}
CUresult cuGraphCreate(CUgraph* g, unsigned) {
  log("cuGraphCreate");
  *g = reinterpret_cast<CUgraph>(new fake_graph);
  return CUDA_SUCCESS;
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode* node, CUgraph g, const CUgraphNode*, size_t,
                                 const CUDA_KERNEL_NODE_PARAMS_v2* p) {
  log("cuGraphAddKernelNode", nullptr, p->func);
  auto* graph = reinterpret_cast<fake_graph*>(g);
  graph->nodes.push_back(p->func);
  graph->parameters.push_back(parameter(p->kernelParams, 0));
  graph->parameters.push_back(parameter(p->kernelParams, 1));
  *node = reinterpret_cast<CUgraphNode>(graph->nodes.size());
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec* e, CUgraph g, unsigned long long) {
  log("cuGraphInstantiateWithFlags");
  *e = reinterpret_cast<CUgraphExec>(new fake_graph(*reinterpret_cast<fake_graph*>(g)));
  return CUDA_SUCCESS;
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v2* p) {
  log("cuGraphExecKernelNodeSetParams", nullptr, p->func);
  auto* graph = reinterpret_cast<fake_graph*>(e);
  const std::size_t i = reinterpret_cast<std::uintptr_t>(node) - 1;  // cuGraphAddKernelNode's handles
  if (i >= graph->nodes.size() || graph->nodes[i] != p->func) return CUDA_ERROR_INVALID_VALUE;
  graph->parameters[2 * i] = parameter(p->kernelParams, 0);
  graph->parameters[2 * i + 1] = parameter(p->kernelParams, 1);
  return CUDA_SUCCESS;
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
  log("cuGraphLaunch", s);
  std::lock_guard lock(mutex);
  const fake_graph& graph = *reinterpret_cast<fake_graph*>(e);
  model.launches_seen += graph.nodes.size();
  if (model.failed) return CUDA_ERROR_LAUNCH_FAILED;
  model.launches_run += graph.nodes.size();
  // A node's function is the one acs resolved through cuKernelGetFunction (kernel + 1 here, for any
  // handle): the digest names the handle that was launched, as a direct launch's does.
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    model.run_digest += fake_kernel_digest(reinterpret_cast<const char*>(graph.nodes[i]) - 1, graph.parameters[2 * i],
                                           graph.parameters[2 * i + 1]);
  return CUDA_SUCCESS;
}
CUresult cuGraphExecDestroy(CUgraphExec e) {
  log("cuGraphExecDestroy");
  delete reinterpret_cast<fake_graph*>(e);
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph g) {
  log("cuGraphDestroy");
  delete reinterpret_cast<fake_graph*>(g);
  return CUDA_SUCCESS;
}
// Loads succeed with handle 0x10 + n, except for the image "bad".
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  log("cuModuleLoadData");
  if (std::strcmp(static_cast<const char*>(image), "bad") == 0) return CUDA_ERROR_INVALID_IMAGE;
  *m = reinterpret_cast<CUmodule>(0x11);
  return CUDA_SUCCESS;
}
CUresult cuLibraryLoadData(CUlibrary* l, const void* image, CUjit_option*, void**, unsigned, CUlibraryOption*,
                           void**, unsigned) {
  log("cuLibraryLoadData");
  if (std::strcmp(static_cast<const char*>(image), "bad") == 0) return CUDA_ERROR_INVALID_IMAGE;
  *l = reinterpret_cast<CUlibrary>(0x12);
  return CUDA_SUCCESS;
}
CUresult cuLibraryUnload(CUlibrary) {
  log("cuLibraryUnload");
  return CUDA_SUCCESS;
}
// Exported by the real driver under a cu name, but in no table of acs's.
CUresult cuFakeUnlisted(CUstream s) {
  log("cuFakeUnlisted", s);
  return CUDA_SUCCESS;
}


CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status);
CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}

// How many entry points were looked up (cuGetProcAddress), by anyone.
std::atomic<std::uint64_t> proc_lookups{0};
std::uint64_t fake_cuda_proc_lookups() { return proc_lookups.load(); }

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  proc_lookups.fetch_add(1);
  const bool ptds = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  struct row {
    const char* name;
    int since;        // first version with this ABI
    void* legacy;     // the variant for default-stream semantics
    void* per_thread; // the variant for per-thread semantics
  };
  // Newest ABI first: the first row whose `since` the caller's version reaches wins.
  const row rows[] = {
      {"cuLaunchKernel", 4000, reinterpret_cast<void*>(&cuLaunchKernel), reinterpret_cast<void*>(&cuLaunchKernel_ptsz)},
      {"cuLaunchKernelEx", 11060, reinterpret_cast<void*>(&cuLaunchKernelEx),
       reinterpret_cast<void*>(&cuLaunchKernelEx_ptsz)},
      {"cuLaunchCooperativeKernel", 9000, reinterpret_cast<void*>(&cuLaunchCooperativeKernel), nullptr},
      {"cuMemcpyAsync", 4000, reinterpret_cast<void*>(&cuMemcpyAsync), reinterpret_cast<void*>(&cuMemcpyAsync_ptsz)},
      {"cuMemcpyHtoD", 3020, reinterpret_cast<void*>(&cuMemcpyHtoD_v2), reinterpret_cast<void*>(&cuMemcpyHtoD_v2_ptds)},
      {"cuMemcpyPeer", 4000, reinterpret_cast<void*>(&cuMemcpyPeer), reinterpret_cast<void*>(&cuMemcpyPeer_ptds)},
      {"cuEventRecord", 2000, reinterpret_cast<void*>(&cuEventRecord), nullptr},
      {"cuStreamBeginCapture", 10010, reinterpret_cast<void*>(&cuStreamBeginCapture_v2), nullptr},
      {"cuStreamBeginCapture", 10000, reinterpret_cast<void*>(&cuStreamBeginCapture), nullptr},
      {"cuStreamEndCapture", 10000, reinterpret_cast<void*>(&cuStreamEndCapture), nullptr},
      {"cuStreamIsCapturing", 10000, reinterpret_cast<void*>(&cuStreamIsCapturing), nullptr},
      {"cuStreamSynchronize", 2000, reinterpret_cast<void*>(&cuStreamSynchronize), nullptr},
      {"cuCtxSynchronize", 2000, reinterpret_cast<void*>(&cuCtxSynchronize), nullptr},
      {"cuStreamDestroy", 4000, reinterpret_cast<void*>(&cuStreamDestroy_v2), nullptr},
      {"cuMemAlloc", 3020, reinterpret_cast<void*>(&cuMemAlloc_v2), nullptr},
      {"cuMemFree", 3020, reinterpret_cast<void*>(&cuMemFree_v2), nullptr},
      {"cuMemAllocAsync", 11020, reinterpret_cast<void*>(&cuMemAllocAsync), nullptr},
      {"cuMemAddressReserve", 10020, reinterpret_cast<void*>(&cuMemAddressReserve), nullptr},
      {"cuMemAddressFree", 10020, reinterpret_cast<void*>(&cuMemAddressFree), nullptr},
      {"cuMemMap", 10020, reinterpret_cast<void*>(&cuMemMap), nullptr},
      {"cuMemUnmap", 10020, reinterpret_cast<void*>(&cuMemUnmap), nullptr},
      {"cuMemHostAlloc", 2020, reinterpret_cast<void*>(&cuMemHostAlloc), nullptr},
      {"cuMemHostRegister", 6050, reinterpret_cast<void*>(&cuMemHostRegister_v2), nullptr},
      {"cuMemGetAddressRange", 3020, reinterpret_cast<void*>(&cuMemGetAddressRange_v2), nullptr},
      {"cuCtxGetCurrent", 4000, reinterpret_cast<void*>(&cuCtxGetCurrent), nullptr},
      {"cuKernelGetFunction", 12000, reinterpret_cast<void*>(&cuKernelGetFunction), nullptr},
      {"cuGraphInstantiateWithParams", 12000, reinterpret_cast<void*>(&cuGraphInstantiateWithParams), nullptr},
      {"cuModuleLoadData", 2000, reinterpret_cast<void*>(&cuModuleLoadData), nullptr},
      {"cuLibraryLoadData", 12000, reinterpret_cast<void*>(&cuLibraryLoadData), nullptr},
      {"cuLibraryUnload", 12000, reinterpret_cast<void*>(&cuLibraryUnload), nullptr},
      {"cuFakeUnlisted", 1000, reinterpret_cast<void*>(&cuFakeUnlisted), nullptr},
      {"cuCtxPushCurrent", 4000, reinterpret_cast<void*>(&cuCtxPushCurrent_v2), nullptr},
      {"cuCtxPopCurrent", 4000, reinterpret_cast<void*>(&cuCtxPopCurrent_v2), nullptr},
      {"cuCtxGetDevice", 2000, reinterpret_cast<void*>(&cuCtxGetDevice), nullptr},
      {"cuDevicePrimaryCtxGetState", 7000, reinterpret_cast<void*>(&cuDevicePrimaryCtxGetState), nullptr},
      {"cuDevicePrimaryCtxRetain", 7000, reinterpret_cast<void*>(&cuDevicePrimaryCtxRetain), nullptr},
      {"cuDevicePrimaryCtxRelease", 11000, reinterpret_cast<void*>(&cuDevicePrimaryCtxRelease_v2), nullptr},
      {"cuStreamCreate", 2000, reinterpret_cast<void*>(&cuStreamCreate), nullptr},
      {"cuStreamGetCtx", 9020, reinterpret_cast<void*>(&cuStreamGetCtx), nullptr},
      {"cuStreamGetFlags", 5050, reinterpret_cast<void*>(&cuStreamGetFlags), nullptr},
      {"cuStreamWaitEvent", 3020, reinterpret_cast<void*>(&cuStreamWaitEvent), nullptr},
      {"cuEventCreate", 2000, reinterpret_cast<void*>(&cuEventCreate), nullptr},
      {"cuEventQuery", 2000, reinterpret_cast<void*>(&cuEventQuery), nullptr},
      {"cuEventDestroy", 4000, reinterpret_cast<void*>(&cuEventDestroy_v2), nullptr},
      {"cuPointerGetAttribute", 4000, reinterpret_cast<void*>(&cuPointerGetAttribute), nullptr},
      {"cuFuncGetParamInfo", 12040, reinterpret_cast<void*>(&cuFuncGetParamInfo), nullptr},
      {"cuFuncSetAttribute", 9000, reinterpret_cast<void*>(&cuFuncSetAttribute), nullptr},
      {"cuKernelSetAttribute", 12000, reinterpret_cast<void*>(&cuKernelSetAttribute), nullptr},
      {"cuEventSynchronize", 2000, reinterpret_cast<void*>(&cuEventSynchronize), nullptr},
      {"cuStreamQuery", 2000, reinterpret_cast<void*>(&cuStreamQuery), nullptr},
      {"cuInit", 2000, reinterpret_cast<void*>(&cuInit), nullptr},
      {"cuCtxSetCurrent", 4000, reinterpret_cast<void*>(&cuCtxSetCurrent), nullptr},
      {"cuGetProcAddress", 12000, reinterpret_cast<void*>(&cuGetProcAddress_v2), nullptr},
      {"cuGetProcAddress", 11030, reinterpret_cast<void*>(&cuGetProcAddress), nullptr},
  };
  static const row graph_rows[] = {
      {"cuGraphCreate", 10000, reinterpret_cast<void*>(&cuGraphCreate), nullptr},
      {"cuGraphAddKernelNode", 12000, reinterpret_cast<void*>(&cuGraphAddKernelNode_v2), nullptr},
      {"cuGraphInstantiateWithFlags", 11040, reinterpret_cast<void*>(&cuGraphInstantiateWithFlags), nullptr},
      {"cuGraphExecKernelNodeSetParams", 12000, reinterpret_cast<void*>(&cuGraphExecKernelNodeSetParams_v2), nullptr},
      {"cuGraphLaunch", 10000, reinterpret_cast<void*>(&cuGraphLaunch), nullptr},
      {"cuGraphExecDestroy", 10000, reinterpret_cast<void*>(&cuGraphExecDestroy), nullptr},
      {"cuGraphDestroy", 10000, reinterpret_cast<void*>(&cuGraphDestroy), nullptr},
  };
  if (graphs_offered()) {
    for (const row& r : graph_rows) {
      if (std::strcmp(r.name, symbol) != 0 || version < r.since) continue;
      *pfn = r.legacy;
      if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  }
  for (const row& r : rows) {
    if (std::strcmp(r.name, symbol) != 0 || version < r.since) continue;
    *pfn = ptds && r.per_thread != nullptr ? r.per_thread : r.legacy;
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  *pfn = nullptr;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

// The test's window on the fake.
std::size_t fake_cuda_call_count() {
  std::lock_guard lock(mutex);
  return calls.size();
}
int fake_cuda_call_at(std::size_t i, fake_call* out) {
  std::lock_guard lock(mutex);
  if (i >= calls.size()) return 0;
  *out = calls[i];
  return 1;
}
void fake_cuda_reset() {
  std::lock_guard lock(mutex);
  calls.clear();
  capturing.clear();
}
// The device model's controls, for fake_driver_app.
void fake_cuda_fail_after_launches(std::uint64_t n) {
  std::lock_guard lock(mutex);
  model.fail_after = model.launches_seen + n;
}
// This thread has no current context until a runtime call (or cuCtxSetCurrent) makes one.
void fake_cuda_drop_current_context() { no_current_context = true; }
void fake_cuda_fail_now() {
  std::lock_guard lock(mutex);
  model.failed = true;
}
const char* fake_cuda_connections_at_init() {
  std::lock_guard lock(mutex);
  return connections_at_init.c_str();
}
std::uint64_t fake_cuda_run_digest() {
  std::lock_guard lock(mutex);
  return model.run_digest;
}
void fake_cuda_launches(std::uint64_t* seen, std::uint64_t* run) {
  std::lock_guard lock(mutex);
  *seen = model.launches_seen;
  *run = model.launches_run;
}
// The fake's own definition of `symbol`, found without dlsym.
void* fake_cuda_self(const char* symbol) {
  void* p = nullptr;
  if (cuGetProcAddress_v2(symbol, &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr) == CUDA_SUCCESS) return p;
  if (std::strcmp(symbol, "cuLaunchKernel_ptsz") == 0) return reinterpret_cast<void*>(&cuLaunchKernel_ptsz);
  if (std::strcmp(symbol, "cuStreamBeginCapture") == 0) return reinterpret_cast<void*>(&cuStreamBeginCapture);
  return nullptr;
}

}  // extern "C"
