#pragma once
// The CUPTI functions the tracer calls, loaded at run time. libacs.so never
// links libcupti: it must load where CUPTI is absent and must not impose it on
// the host program. The library is dlopen'ed only when tracing or measuring is
// asked for, and its functions are resolved with libc's own dlsym (libacs
// exports a dlsym hook of its own, which must not see these lookups).
//
// Record layouts: CUPTI fills buffers with the record versions of its own
// release, and acs reads them with the structs of the headers it was built
// with. Only a CUPTI of the same major release (13) is accepted.
#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

// _(name, required): a missing optional function only disables a refinement.
#define ACS_CUPTI_FUNCTIONS(_)                    \
  _(cuptiGetVersion, true)                        \
  _(cuptiGetResultString, true)                   \
  _(cuptiSubscribe, true)                         \
  _(cuptiSubscribe_v2, false)                     \
  _(cuptiUnsubscribe, true)                       \
  _(cuptiActivityRegisterCallbacks, true)         \
  _(cuptiActivityEnable, true)                    \
  _(cuptiActivityDisable, true)                   \
  _(cuptiActivityFlushAll, true)                  \
  _(cuptiActivityGetNextRecord, true)             \
  _(cuptiActivityPushExternalCorrelationId, true) \
  _(cuptiActivityPopExternalCorrelationId, true)  \
  _(cuptiGetTimestamp, true)                      \
  _(cuptiActivityGetNumDroppedRecords, false)     \
  _(cuptiActivityEnableDriverApi, false)          \
  _(cuptiActivityEnableRuntimeApi, false)         \
  _(cuptiGetStreamIdEx, false)

namespace acs::trace::cupti {

inline constexpr std::uint32_t min_version = 130000;  // CUDA 13.0's CUPTI
inline constexpr std::uint32_t max_version = 139999;

struct api {
#define ACS_CUPTI_MEMBER(name, required) decltype(&::name) name = nullptr;
  ACS_CUPTI_FUNCTIONS(ACS_CUPTI_MEMBER)
#undef ACS_CUPTI_MEMBER
  std::string path;  // the candidate that was loaded
  std::uint32_t version = 0;
};

/// @brief Where to look for CUPTI: the soname (already loaded, or on the loader's
/// path), then CUDA_HOME / CUDA_PATH, then /usr/local/cuda.
std::vector<std::string> default_candidates();

/// @brief Loads the first usable candidate and resolves its functions. Returns
/// false with a one-line reason in `why` if none is usable. Never unloads it.
bool load(const std::vector<std::string>& candidates, api& out, std::string& why) noexcept;

/// @brief CUPTI's name for `result`, or its number.
std::string result_name(const api& cupti, CUptiResult result);

}  // namespace acs::trace::cupti
