// libacs_fake_cupti.so: a stand-in for libcupti with the calls acs makes, so
// that the tracing session (loading, probing for other clients, enabling,
// buffer delivery, flushes, the trace file) runs end to end on a CPU.
//
// It behaves as CUPTI documents: external correlation records are written
// only for API calls whose activity records are enabled; buffers come from
// the client's request callback and go back through its completion callback;
// cuptiSubscribe fails with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
// while another client holds it. The fake_cupti_* functions drive it.
#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr std::size_t slot = 256;  // one record per slot
static_assert(sizeof(CUpti_ActivityKernel10) <= slot && sizeof(CUpti_ActivityMemcpy6) <= slot &&
              sizeof(CUpti_ActivityExternalCorrelation) <= slot);

struct state {
  std::mutex mutex;
  std::string other_subscriber;  // empty: none
  bool subscribed = false;
  std::map<std::string, int> counts;
  std::set<int> kinds;
  std::set<int> driver_cbids, runtime_cbids;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::vector<std::vector<unsigned char>> pending;  // records not yet delivered
  std::uint32_t correlation = 0;
  std::uint64_t clock = 1'000'000;
};
state& s() {
  static state st;
  return st;
}
thread_local std::map<int, std::vector<std::uint64_t>> pushed;  // per kind, this thread's stack

template <typename Record>
void queue(const Record& r) {
  std::vector<unsigned char> bytes(slot, 0);
  std::memcpy(bytes.data(), &r, sizeof r);
  s().pending.push_back(std::move(bytes));
}

bool launch_api_recorded() {
  const state& st = s();
  return st.kinds.count(CUPTI_ACTIVITY_KIND_DRIVER) != 0 ||
         st.driver_cbids.count(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) != 0;
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  *version = 130001;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  *str = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
             ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
             : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*,
                                       CUpti_SubscriberParams* params) {
  std::lock_guard lock(s().mutex);
  ++s().counts["subscribe"];
  if (!s().other_subscriber.empty() || s().subscribed) {
    if (params != nullptr && params->oldSubscriberName != nullptr && params->oldSubscriberSize > 0) {
      std::strncpy(params->oldSubscriberName, s().other_subscriber.c_str(), params->oldSubscriberSize - 1);
      params->oldSubscriberName[params->oldSubscriberSize - 1] = '\0';
    }
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  s().subscribed = true;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(std::uintptr_t{1});
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* data) {
  return cuptiSubscribe_v2(subscriber, callback, data, nullptr);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle) {
  std::lock_guard lock(s().mutex);
  ++s().counts["unsubscribe"];
  s().subscribed = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  std::lock_guard lock(s().mutex);
  ++s().counts["register"];
  s().request = request;
  s().complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard lock(s().mutex);
  s().kinds.insert(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard lock(s().mutex);
  s().kinds.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard lock(s().mutex);
  if (enable) s().driver_cbids.insert(static_cast<int>(cbid));
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard lock(s().mutex);
  if (enable) s().runtime_cbids.insert(static_cast<int>(cbid));
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  std::vector<std::vector<unsigned char>> records;
  CUpti_BuffersCallbackRequestFunc request;
  CUpti_BuffersCallbackCompleteFunc complete;
  {
    std::lock_guard lock(s().mutex);
    ++s().counts["flush"];
    if (s().request == nullptr) return CUPTI_ERROR_INVALID_OPERATION;
    records.swap(s().pending);
    request = s().request;
    complete = s().complete;
  }
  std::size_t next = 0;
  while (next < records.size()) {
    std::uint8_t* buffer = nullptr;
    std::size_t size = 0, max_records = 0;
    request(&buffer, &size, &max_records);
    if (buffer == nullptr) return CUPTI_SUCCESS;  // declined: records dropped
    std::size_t valid = 0;
    for (; next < records.size() && valid + slot <= size; ++next, valid += slot)
      std::memcpy(buffer + valid, records[next].data(), slot);
    complete(nullptr, 0, buffer, size, valid);
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  std::uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<std::uint8_t*>(*record) + slot;
  if (next + slot > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  pushed[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                           uint64_t* last) {
  auto& stack = pushed[kind];
  if (stack.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  if (last != nullptr) *last = stack.back();
  stack.pop_back();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  std::lock_guard lock(s().mutex);
  *timestamp = s().clock += 100;
  return CUPTI_SUCCESS;
}

// ---- control

void fake_cupti_set_other_subscriber(const char* name) {
  std::lock_guard lock(s().mutex);
  s().other_subscriber = name != nullptr ? name : "";
}

int fake_cupti_count(const char* what) {
  std::lock_guard lock(s().mutex);
  const std::string w = what;
  if (w == "kinds") return static_cast<int>(s().kinds.size());
  if (w == "kind_kernel") return static_cast<int>(s().kinds.count(CUPTI_ACTIVITY_KIND_KERNEL));
  if (w == "kind_concurrent_kernel")
    return static_cast<int>(s().kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  if (w == "driver_cbids") return static_cast<int>(s().driver_cbids.size());
  if (w == "runtime_cbids") return static_cast<int>(s().runtime_cbids.size());
  if (w == "pushed") {
    int n = 0;
    for (const auto& [kind, stack] : pushed) n += static_cast<int>(stack.size());
    return n;
  }
  return s().counts[w];
}

// A kernel launched through cuLaunchKernel on this thread, ran [start, end).
void fake_cupti_launch(const char* name, std::uint32_t stream, std::uint64_t start, std::uint64_t end) {
  std::lock_guard lock(s().mutex);
  const std::uint32_t c = ++s().correlation;
  if (s().kinds.count(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) != 0 && launch_api_recorded()) {
    for (const auto& [kind, stack] : pushed) {
      if (stack.empty()) continue;
      CUpti_ActivityExternalCorrelation e{};
      e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
      e.externalKind = static_cast<CUpti_ExternalCorrelationKind>(kind);
      e.externalId = stack.back();
      e.correlationId = c;
      queue(e);
    }
  }
  if (s().kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != 0) {
    CUpti_ActivityKernel10 k;
    std::memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.streamId = stream;
    k.correlationId = c;
    k.name = name;  // a string literal of the caller: lives as long as CUPTI's would
    queue(k);
  }
}

void fake_cupti_memcpy(std::uint32_t stream, std::uint64_t start, std::uint64_t end, std::uint64_t bytes) {
  std::lock_guard lock(s().mutex);
  if (s().kinds.count(CUPTI_ACTIVITY_KIND_MEMCPY) == 0) return;
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.bytes = bytes;
  m.start = start;
  m.end = end;
  m.streamId = stream;
  m.correlationId = ++s().correlation;
  queue(m);
}

}  // extern "C"
