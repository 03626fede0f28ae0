#include "src/trace/cupti_api.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace acs::trace::cupti {

namespace {

using dlsym_fn = void* (*)(void*, const char*);

// libc's dlsym, never the one libacs exports: looked up by symbol version.
dlsym_fn real_dlsym() noexcept {
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"})
    if (void* f = dlvsym(RTLD_NEXT, "dlsym", version)) return reinterpret_cast<dlsym_fn>(f);
  return nullptr;
}

// Resolves every function of `out` from `handle`; the first missing required one is named.
bool resolve(void* handle, dlsym_fn lookup, api& out, std::string& missing) {
  bool complete = true;
#define ACS_CUPTI_RESOLVE(name, required)                                 \
  out.name = reinterpret_cast<decltype(out.name)>(lookup(handle, #name)); \
  if (out.name == nullptr && (required) && complete) {                    \
    complete = false;                                                     \
    missing = #name;                                                      \
  }
  ACS_CUPTI_FUNCTIONS(ACS_CUPTI_RESOLVE)
#undef ACS_CUPTI_RESOLVE
  return complete;
}

}  // namespace

std::vector<std::string> default_candidates() {
  std::vector<std::string> c = {"libcupti.so.13", "libcupti.so"};
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(var);
    if (root == nullptr || *root == '\0') continue;
    c.push_back(std::string(root) + "/lib64/libcupti.so.13");
    c.push_back(std::string(root) + "/extras/CUPTI/lib64/libcupti.so.13");
  }
  c.emplace_back("/usr/local/cuda/lib64/libcupti.so.13");
  c.emplace_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  return c;
}

bool load(const std::vector<std::string>& candidates, api& out, std::string& why) noexcept {
  // Candidates that are missing set dlerror(): the application must not read acs's errors.
  struct clear_dlerror {
    ~clear_dlerror() { dlerror(); }
  } clear;
  try {
    const dlsym_fn lookup = real_dlsym();
    if (lookup == nullptr) {
      why = "libc's dlsym was not found";
      return false;
    }
    why = "libcupti was not found (tried";
    for (const std::string& c : candidates) why += " " + c;
    why += ")";
    for (const std::string& path : candidates) {
      // A name without a slash also finds a copy the program already loaded
      // (by soname): there must be one CUPTI per process.
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) continue;
      std::string missing;
      api candidate;
      if (!resolve(handle, lookup, candidate, missing)) {
        why = path + " lacks " + missing;
        dlclose(handle);
        continue;
      }
      std::uint32_t version = 0;
      if (candidate.cuptiGetVersion(&version) != CUPTI_SUCCESS || version < min_version ||
          version > max_version) {
        why = path + " has CUPTI API version " + std::to_string(version) + ", acs needs " +
              std::to_string(min_version) + "..." + std::to_string(max_version);
        dlclose(handle);
        continue;
      }
      candidate.path = path;
      candidate.version = version;
      out = std::move(candidate);
      return true;
    }
    return false;
  } catch (...) {
    why = "out of memory while loading CUPTI";
    return false;
  }
}

std::string result_name(const api& cupti, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.cuptiGetResultString != nullptr && cupti.cuptiGetResultString(result, &text) == CUPTI_SUCCESS &&
      text != nullptr)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace acs::trace::cupti
