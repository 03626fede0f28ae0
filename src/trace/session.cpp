#include "src/trace/session.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "src/trace/collector.hpp"
#include "src/trace/cupti_api.hpp"
#include "src/trace/cupti_records.hpp"
#include "src/trace/join.hpp"
#include "src/trace/json.hpp"
#include "src/trace/observer.hpp"

namespace acs::trace {

namespace {

constexpr std::size_t buffer_bytes = std::size_t{8} << 20;

// The launch entry points whose API records carry acs's external correlation
// ids to the kernels they launch. Both layers: a runtime launch's kernel
// correlates with the runtime call, a driver launch's with the driver call.
constexpr CUpti_driver_api_trace_cbid driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};
constexpr CUpti_runtime_api_trace_cbid runtime_launches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
constexpr CUpti_ActivityKind activity_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,  // never KIND_KERNEL: it serialises kernels
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
};

void default_log(bool warning, const char* message) noexcept {
  if (!warning) return;
  std::fprintf(stderr, "[acs] [warn] %s\n", message);
}

// "%p" becomes the process id; a relative path is taken from the working
// directory at start, so that a later chdir() does not move the trace.
std::string expand_path(const std::string& path) {
  std::string out;
  if (!path.empty() && path[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) != nullptr) out = std::string(cwd) + "/";
  }
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == 'p') {
      out += std::to_string(static_cast<long>(getpid()));
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

class session;
std::atomic<session*> active{nullptr};  // set once collection is on; never freed
std::atomic<bool> on{false};

class session {
 public:
  explicit session(const options& o) : path_(expand_path(o.path)), measure_(o.measure), log_(o.log) {
    if (log_ == nullptr) log_ = default_log;
  }

  // Loads CUPTI, makes sure no other client holds it, and enables the records.
  bool begin(const options& o) {
    std::string why;
    if (!cupti::load(o.cupti_candidates.empty() ? cupti::default_candidates() : o.cupti_candidates, api_,
                     why)) {
      warn("cannot use CUPTI: " + why + "; " + consequence());
      return false;
    }
    if (!probe_other_client()) return false;

    active.store(this, std::memory_order_release);  // buffer callbacks may come from now on
    CUptiResult r = api_.cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed);
    if (r != CUPTI_SUCCESS) {
      warn("cuptiActivityRegisterCallbacks failed (" + cupti::result_name(api_, r) + "); " + consequence());
      return false;
    }
    for (const CUpti_ActivityKind kind : activity_kinds) {
      r = api_.cuptiActivityEnable(kind);
      if (r != CUPTI_SUCCESS) {
        disable_enabled();
        warn("cuptiActivityEnable(" + std::to_string(static_cast<int>(kind)) + ") failed (" +
             cupti::result_name(api_, r) + "), is another CUPTI client active?; " + consequence());
        return false;
      }
      enabled_.push_back(kind);
    }
    // Linking kernels to acs's launches (pool lanes, arrows, wait counts) needs
    // API records, which cost host time on every CUDA call: only for a trace.
    // Measured figures alone (ACS_STATS) keep the launch path as it is.
    if (!o.path.empty()) {
      r = api_.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
      if (r == CUPTI_SUCCESS) enabled_.push_back(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
      if (r != CUPTI_SUCCESS || !enable_api_records(o.all_api_records)) {
        disable_enabled();
        warn("CUPTI could not record launch API calls; " + consequence());
        return false;
      }
    }
    pid_ = getpid();
    return true;
  }

  dispatch_observer* new_observer(unsigned device) {
    std::lock_guard lock(observers_mutex_);
    observers_.push_back(
        std::make_unique<observer>(observers_.size() + 1, device, correlation_hooks{&push, &pop, &now, &stream_id}));
    return observers_.back().get();
  }

  // Delivers CUPTI's buffers, then rewrites the trace file if there is one.
  // Only the final flush forces out buffers holding unfinished records: those
  // records would be lost, where CUPTI completes them if it keeps them.
  void flush(bool final_flush) {
    std::lock_guard lock(flush_mutex_);
    if (finalized_) return;
    api_.cuptiActivityFlushAll(0);
    if (final_flush) api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (!final_flush && path_.empty()) return;
    snapshot data = take_snapshot();
    const trace_view view = join(data);
    std::optional<measured> figures;
    if (measure_ || !path_.empty()) figures = measure(view);
    if (!path_.empty()) write_file(view, figures ? &*figures : nullptr, final_flush);
    if (final_flush) {
      diagnose(data);
      final_figures_ = std::move(figures);
      finalized_ = true;
    }
  }

  void at_exit() {
    if (getpid() != pid_) return;  // a forked child: the parent writes the trace
    flush(true);
  }

  std::optional<measured> figures() {
    if (!measure_) return std::nullopt;
    std::lock_guard lock(flush_mutex_);
    if (finalized_) return final_figures_;
    api_.cuptiActivityFlushAll(0);
    api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    snapshot data = take_snapshot();
    return measure(join(data));
  }

  void ingest(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t valid) {
    record_batch batch;
    CUpti_Activity* record = nullptr;
    while (api_.cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) convert(*record, batch);
    std::size_t dropped = 0;
    if (api_.cuptiActivityGetNumDroppedRecords != nullptr &&
        api_.cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
      batch.dropped += dropped;
    store_.append(batch);
  }

  const cupti::api& api() const { return api_; }

 private:
  std::string consequence() const {
    std::string what = !path_.empty() && measure_ ? "no trace and no measured figures"
                       : !path_.empty()           ? "no trace is written"
                                                  : "no measured figures";
    return what + " (the program runs unchanged)";
  }

  void warn(const std::string& message) { log_(true, message.c_str()); }
  void info(const std::string& message) { log_(false, message.c_str()); }

  // True when no other client holds CUPTI. acs does not stay subscribed, so
  // that a profiler started later still can.
  bool probe_other_client() {
    CUpti_SubscriberHandle subscriber = nullptr;
    CUptiResult r;
    char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
    if (api_.cuptiSubscribe_v2 != nullptr) {
      CUpti_SubscriberParams params{};
      params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
      params.subscriberName = "acs";
      params.oldSubscriberName = other;
      params.oldSubscriberSize = sizeof other;
      r = api_.cuptiSubscribe_v2(&subscriber, &ignore_callback, nullptr, &params);
    } else {
      r = api_.cuptiSubscribe(&subscriber, &ignore_callback, nullptr);
    }
    if (r == CUPTI_SUCCESS) {
      api_.cuptiUnsubscribe(subscriber);
      return true;
    }
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      other[sizeof other - 1] = '\0';
      warn(std::string("another CUPTI client is active") +
           (other[0] != '\0' ? " (" + std::string(other) + ")" : "") +
           " (a profiler, a debugger or the program itself): acs leaves CUPTI to it; " + consequence());
    } else {
      warn("CUPTI is unavailable (cuptiSubscribe: " + cupti::result_name(api_, r) + "); " + consequence());
    }
    return false;
  }

  bool enable_api_records(bool all) {
    if (!all && api_.cuptiActivityEnableDriverApi != nullptr &&
        api_.cuptiActivityEnableRuntimeApi != nullptr) {
      bool ok = true;
      for (const auto cbid : driver_launches)
        ok = ok && api_.cuptiActivityEnableDriverApi(cbid, 1) == CUPTI_SUCCESS;
      for (const auto cbid : runtime_launches)
        ok = ok && api_.cuptiActivityEnableRuntimeApi(cbid, 1) == CUPTI_SUCCESS;
      if (ok) return true;
      info("CUPTI's per-function API records failed: recording every API call instead");
    }
    for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME}) {
      if (api_.cuptiActivityEnable(kind) != CUPTI_SUCCESS) return false;
      enabled_.push_back(kind);
    }
    return true;
  }

  void disable_enabled() {
    for (const CUpti_ActivityKind kind : enabled_) api_.cuptiActivityDisable(kind);
    enabled_.clear();
  }

  snapshot take_snapshot() {
    snapshot s;
    store_.copy_into(s);
    std::lock_guard lock(observers_mutex_);
    for (const auto& o : observers_) o->copy_into(s);
    return s;
  }

  void write_file(const trace_view& view, const measured* figures, bool final_flush) {
    const std::string temp = path_ + ".partial";
    std::FILE* f = std::fopen(temp.c_str(), "w");
    bool ok = f != nullptr;
    int error = ok ? 0 : errno;
    if (ok) {
      write_chrome_trace(view, figures, {"CUPTI activity records (acs ACS_TRACE)"},
                         [&](std::string_view chunk) {
                           if (ok && std::fwrite(chunk.data(), 1, chunk.size(), f) != chunk.size()) {
                             ok = false;
                             error = errno;
                           }
                         });
      if (std::fclose(f) != 0 && ok) {
        ok = false;
        error = errno;
      }
    }
    if (ok && std::rename(temp.c_str(), path_.c_str()) != 0) {
      ok = false;
      error = errno;
    }
    if (!ok) {
      if (!write_failed_) warn("cannot write the trace to " + path_ + ": " + std::strerror(error));
      write_failed_ = true;
      std::remove(temp.c_str());
      return;
    }
    if (final_flush)
      info("trace written to " + path_ + " (" + std::to_string(view.data->kernels.size()) + " kernels)");
  }

  void diagnose(const snapshot& data) {
    if (data.dropped > 0)
      warn(std::to_string(data.dropped) +
           " activity records were dropped: the trace and the measured figures are partial");
    if (!path_.empty() && !data.dispatches.empty() && data.correlations.empty() && !data.kernels.empty() &&
        data.dispatches.front().stream_id == 0xffffffffu)
      warn(
          "CUPTI delivered no external correlation records: kernels are not linked to acs's launches "
          "(no pool lanes, dependency arrows or wait counts)");
  }

  static void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

  static void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    // malloc's alignment (16) meets CUPTI's (8). No buffer: CUPTI drops records.
    *buffer = static_cast<std::uint8_t*>(std::malloc(buffer_bytes));
    *size = *buffer != nullptr ? buffer_bytes : 0;
    *max_records = 0;
  }

  static void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                                        std::size_t, std::size_t valid) {
    if (session* s = active.load(std::memory_order_acquire); s != nullptr && buffer != nullptr) {
      try {
        s->ingest(context, stream, buffer, valid);
      } catch (...) {  // out of memory: these records are lost
      }
    }
    std::free(buffer);
  }

  static bool push(std::uint64_t external) noexcept {
    const session* s = active.load(std::memory_order_relaxed);
    return s != nullptr &&
           s->api_.cuptiActivityPushExternalCorrelationId(acs_correlation_kind, external) == CUPTI_SUCCESS;
  }
  static void pop() noexcept {
    if (const session* s = active.load(std::memory_order_relaxed))
      s->api_.cuptiActivityPopExternalCorrelationId(acs_correlation_kind, nullptr);
  }
  // Pool streams are few and long-lived: their ids are asked once each.
  static std::uint32_t stream_id(std::uintptr_t stream) noexcept {
    const session* s = active.load(std::memory_order_relaxed);
    if (s == nullptr || s->api_.cuptiGetStreamIdEx == nullptr) return 0xffffffffu;
    thread_local std::uintptr_t known_stream[64] = {};
    thread_local std::uint32_t known_id[64] = {};
    const std::size_t slot = (stream >> 4) % 64;
    if (known_stream[slot] == stream) return known_id[slot];
    std::uint32_t id = 0;
    if (s->api_.cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS)
      return 0xffffffffu;
    known_stream[slot] = stream;
    known_id[slot] = id;
    return id;
  }
  static std::uint64_t now() noexcept {
    std::uint64_t t = 0;
    const session* s = active.load(std::memory_order_relaxed);
    if (s == nullptr || s->api_.cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return 0;
    return t;
  }

  cupti::api api_;
  const std::string path_;
  const bool measure_;
  log_sink log_;
  pid_t pid_ = 0;
  std::vector<CUpti_ActivityKind> enabled_;
  collector store_;
  std::mutex observers_mutex_;
  std::vector<std::unique_ptr<observer>> observers_;
  std::mutex flush_mutex_;  // guards the rest
  bool finalized_ = false;
  bool write_failed_ = false;
  std::optional<measured> final_figures_;
};

void flush_at_exit() {
  if (session* s = active.load(std::memory_order_acquire);
      s != nullptr && on.load(std::memory_order_relaxed)) {
    try {
      s->at_exit();
    } catch (...) {
    }
  }
}

}  // namespace

namespace {
std::atomic<bool> decided{false};    // start() has run to its end
thread_local bool starting = false;  // this thread is inside start(): loading CUPTI re-entered acs
}  // namespace

bool start(const options& opts) noexcept {
  static std::mutex mutex;
  if (starting) return false;
  std::lock_guard lock(mutex);
  if (decided.load(std::memory_order_relaxed)) return on.load(std::memory_order_relaxed);
  if (!opts.path.empty() || opts.measure) {
    starting = true;
    try {
      // Never freed, even when it fails: CUPTI may deliver buffers until the very
      // end, and a failed one may already have registered its callbacks.
      static session* kept = nullptr;
      kept = new session(opts);
      if (kept->begin(opts)) {
        on.store(true, std::memory_order_release);
        std::atexit(flush_at_exit);
      } else {
        active.store(nullptr, std::memory_order_release);
      }
    } catch (...) {
      active.store(nullptr, std::memory_order_release);
    }
    starting = false;
  }
  decided.store(true, std::memory_order_release);
  return on.load(std::memory_order_relaxed);
}

bool start_once(options (*make)()) noexcept {
  if (decided.load(std::memory_order_acquire)) return on.load(std::memory_order_relaxed);
  if (starting || make == nullptr) return false;
  try {
    return start(make());
  } catch (...) {  // making the options threw: decide "off" for good
    return start(options{});
  }
}

bool start_decided() noexcept { return decided.load(std::memory_order_acquire); }

bool collecting() noexcept { return on.load(std::memory_order_relaxed); }

dispatch_observer* new_observer(unsigned device) noexcept {
  if (!collecting()) return nullptr;
  try {
    return active.load(std::memory_order_acquire)->new_observer(device);
  } catch (...) {
    return nullptr;
  }
}

std::optional<measured> measured_figures() noexcept {
  if (!collecting()) return std::nullopt;
  try {
    return active.load(std::memory_order_acquire)->figures();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace acs::trace

namespace acs {

void trace_flush() noexcept {
  if (!trace::collecting()) return;
  try {
    if (trace::session* s = trace::active.load(std::memory_order_acquire)) s->flush(false);
  } catch (...) {
  }
}

}  // namespace acs
