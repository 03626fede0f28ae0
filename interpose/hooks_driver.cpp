// Driver hooks: one exported wrapper per ACS_DRIVER_HOOKS line, the launch handlers, and the
// real-pointer -> wrapper map behind the dlsym and cuGetProcAddress hooks.
//
// Statically linked cudart (nvcc's default), and the copies inside cuBLAS, cuDNN, NCCL..., reach
// the driver only through dlopen("libcuda.so.1") + dlsym + cuGetProcAddress; Triton and CuPy
// dlsym cuLaunchKernelEx themselves. Those pointers are all swapped here for wrappers of the
// exact variant the caller obtained (cuGetProcAddress is called with the caller's own symbol,
// version and flags; the pointer it returns is looked up among the real pointers of every
// variant, resolved once by exact symbol). No suffix is ever derived from a name.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "interpose/hooks_entry.hpp"
#include "interpose/hooks_export.hpp"
#include "interpose/hooks_generic.hpp"
#include "interpose/hooks_launch.hpp"
#include "interpose/hooks_lookup.hpp"
#include "interpose/real_driver_hooked.hpp"
#include "src/support/config.hpp"
#include "src/support/thread_cache.hpp"

namespace acs::hooks {

using real::driver_id;
using real::driver_hook_count;

namespace {

constexpr std::size_t index(driver_id id) noexcept { return static_cast<std::size_t>(id); }

constinit hook_counters<driver_hook_count> counters;

void print_summary() noexcept {
  static constexpr const char* names[] = {ACS_DRIVER_HOOKS(ACS_HOOKS_NAME)};
  counters.print(names);
}

void count_call(driver_id id, bool nested) noexcept { counters.count(index(id), nested, print_summary); }

const real::driver_reals* driver_reals_now() noexcept {
  const real::driver_state* state = real::driver_state_now();
  return state != nullptr ? &state->reals : nullptr;
}

}  // namespace

template <>
struct special<hook_api::driver> {
  // cuLaunchKernel, cuLaunchKernel_ptsz
  template <class Entry>
  static CUresult call(decltype(&::cuLaunchKernel) real, CUfunction f, unsigned gx, unsigned gy,
                       unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       CUstream stream, void** params, void** extra) noexcept {
    struct arguments {
      decltype(&::cuLaunchKernel) real;
      CUfunction f;
      unsigned gx, gy, gz, bx, by, bz, shared;
      void** params;
      void** extra;
    } args{real, f, gx, gy, gz, bx, by, bz, shared, params, extra};
    const launch_closure issue{[](void* context, CUstream on) noexcept -> int {
                                 const auto& a = *static_cast<const arguments*>(context);
                                 return a.real(a.f, a.gx, a.gy, a.gz, a.bx, a.by, a.bz, a.shared, on,
                                               a.params, a.extra);
                               },
                               &args};
    launch_request request{stream, Entry::zero, f, params, extra, Entry::name,
                           {{gx, gy, gz}, {bx, by, bz}, shared, false}};
    return static_cast<CUresult>(dispatch(request, issue));
  }

  // cuLaunchKernelEx, cuLaunchKernelEx_ptsz: the stream is in the config.
  template <class Entry>
  static CUresult call(decltype(&::cuLaunchKernelEx) real, const CUlaunchConfig* config, CUfunction f,
                       void** params, void** extra) noexcept {
    if (config == nullptr) return real(config, f, params, extra);  // the driver reports the error
    const bool reorder_programmatic = settings().pdl_reorder;
    if (const auto why = ordering_of(config->attrs, config->numAttrs, reorder_programmatic)) {
      stream_work_begins(config->hStream, Entry::zero);
      const CUresult result = real(config, f, params, extra);
      launched_as_is(Entry::name, config->hStream, Entry::zero, *why);
      return result;
    }
    struct arguments {
      decltype(&::cuLaunchKernelEx) real;
      const CUlaunchConfig* config;
      CUfunction f;
      void** params;
      void** extra;
    } args{real, config, f, params, extra};
    const launch_closure issue{[](void* context, CUstream on) noexcept -> int {
                                 const auto& a = *static_cast<const arguments*>(context);
                                 CUlaunchConfig moved = *a.config;  // attributes shared, unchanged
                                 CUlaunchAttribute copy[max_moved_attributes];
                                 if (on != a.config->hStream)  // on a pool stream: no programmatic dependency
                                   moved.attrs = const_cast<CUlaunchAttribute*>(
                                       moved_attributes<CUlaunchAttribute>(a.config->attrs, a.config->numAttrs, copy));
                                 moved.hStream = on;
                                 return a.real(&moved, a.f, a.params, a.extra);
                               },
                               &args};
    const bool attributes = attributes_follow(config->attrs, config->numAttrs, reorder_programmatic);
    launch_request request{config->hStream, Entry::zero, f, params, extra, Entry::name,
                           {{config->gridDimX, config->gridDimY, config->gridDimZ},
                            {config->blockDimX, config->blockDimY, config->blockDimZ},
                            config->sharedMemBytes, attributes}};
    return static_cast<CUresult>(dispatch(request, issue));
  }

  // cuLaunchCooperativeKernelMultiDevice: one launch per device, each on its own stream.
  template <class Entry>
  static CUresult call(decltype(&::cuLaunchCooperativeKernelMultiDevice) real, CUDA_LAUNCH_PARAMS* list,
                       unsigned count, unsigned flags) noexcept {
    for (unsigned i = 0; list != nullptr && i < count; ++i) stream_work_begins(list[i].hStream, Entry::zero);
    const CUresult result = real(list, count, flags);
    for (unsigned i = 0; list != nullptr && i < count; ++i) {
      launched_as_is(Entry::name, list[i].hStream, Entry::zero, pass_reason::cooperative);
    }
    return result;
  }

  // cuGraphInstantiateWithParams: uploads into hUploadStream when asked to (the field is not
  // meaningful otherwise, so it is not touched then).
  template <class Entry>
  static CUresult call(decltype(&::cuGraphInstantiateWithParams) real, CUgraphExec* exec, CUgraph graph,
                       CUDA_GRAPH_INSTANTIATE_PARAMS* params) noexcept {
    const bool uploads = params != nullptr && (params->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) != 0;
    if (uploads) stream_work_begins(params->hUploadStream, Entry::zero);
    const CUresult result = real(exec, graph, params);
    if (uploads) stream_barrier(params->hUploadStream, Entry::zero);
    return result;
  }
};

namespace {

#define ACS_DRIVER_ENTRY(symbol, kind) ACS_HOOKS_ENTRY(symbol, kind, driver, driver_reals_now(), driver_id::symbol)
ACS_DRIVER_HOOKS(ACS_DRIVER_ENTRY)
#undef ACS_DRIVER_ENTRY
ACS_DRIVER_HOOKS(ACS_HOOKS_EXPORT_LINE)

struct hooked_symbol {
  const char* name;
  driver_id id;
  void* wrapper;
};

// The hooked lines only, with their wrappers. Function-local: built on first use, after which
// it is read-only. (Its initialiser only takes function addresses: it cannot call a hook.)
const hooked_symbol* hooked_begin(std::size_t* count) noexcept {
#define ACS_DRIVER_ROW_VALUES(symbol) \
  hooked_symbol{#symbol, driver_id::symbol, reinterpret_cast<void*>(&hook<entry_##symbol>::call)},
#define ACS_DRIVER_ROW(symbol, kind) ACS_HOOKED_##kind(ACS_DRIVER_ROW_VALUES(symbol))
  static const hooked_symbol rows[] = {ACS_DRIVER_HOOKS(ACS_DRIVER_ROW)};
#undef ACS_DRIVER_ROW
#undef ACS_DRIVER_ROW_VALUES
  *count = sizeof rows / sizeof rows[0];
  return rows;
}

constinit std::atomic<bool> unknown_variant_warned{false};

constexpr hook_kind kind_of(driver_id id) noexcept {
  switch (id) {
#define ACS_DRIVER_KIND_CASE(symbol, kind) \
  case driver_id::symbol:                  \
    return hook_kind::kind;
    ACS_DRIVER_HOOKS(ACS_DRIVER_KIND_CASE)
#undef ACS_DRIVER_KIND_CASE
    default:
      return hook_kind::pass;
  }
}

// Two hooked symbols with one real address: the pointer maps to the first one's wrapper. Harmless
// when both are classified alike; otherwise a variant would be handled as the other. Checked once,
// for the diagnostics (libcuda's exports are not known before it runs).
constinit std::atomic<bool> aliases_checked{false};
void check_aliases(const real::driver_state& state, const hooked_symbol* rows, std::size_t count) noexcept {
  if (!log::enabled(log_level::debug) || aliases_checked.exchange(true)) return;
  for (std::size_t i = 0; i < count; ++i) {
    void* const address = state.by_id[index(rows[i].id)];
    if (address == nullptr) {
      log::debug("libcuda does not export {}", rows[i].name);
      continue;
    }
    for (std::size_t j = i + 1; j < count; ++j) {
      if (state.by_id[index(rows[j].id)] != address) continue;
      const bool alike = kind_of(rows[i].id) == kind_of(rows[j].id) &&
                         per_thread_variant(rows[i].name) == per_thread_variant(rows[j].name);
      log::print(alike ? log_level::debug : log_level::warn, "{} and {} share one address in libcuda{}",
               rows[i].name, rows[j].name, alike ? "" : ", but acs classifies them differently");
    }
  }
}

// The hooked lines by real address, sorted, for one driver state: libraries may call
// cuGetProcAddress at every launch (one PyTorch run on the H200 made 2,694 such calls for ~3,000
// cuBLAS/cuDNN launches), so the swap must cost a binary search, not a scan of the table. Built on first use and published
// once (the table never changes afterwards); a build that loses the race is discarded.
struct wrapper_index {
  const real::driver_state* state = nullptr;
  std::vector<std::pair<void*, const hooked_symbol*>> by_real;
};

const wrapper_index* index_for(const real::driver_state& state) noexcept {
  static constinit std::atomic<const wrapper_index*> published{nullptr};
  if (const wrapper_index* i = published.load(std::memory_order_acquire); i != nullptr && i->state == &state) return i;
  try {
    auto built = std::make_unique<wrapper_index>();
    built->state = &state;
    std::size_t count = 0;
    const hooked_symbol* rows = hooked_begin(&count);
    for (std::size_t i = 0; i < count; ++i)
      if (void* real = state.by_id[index(rows[i].id)]) built->by_real.emplace_back(real, &rows[i]);
    // Aliases (two symbols, one address) keep the first line's wrapper, as the scan did.
    std::stable_sort(built->by_real.begin(), built->by_real.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const wrapper_index* expected = published.load(std::memory_order_acquire);
    if (expected != nullptr && expected->state == &state) return expected;
    if (published.compare_exchange_strong(expected, built.get(), std::memory_order_acq_rel)) return built.release();
    return nullptr;  // another thread published meanwhile: the caller falls back to the scan
  } catch (...) {
    return nullptr;
  }
}

const hooked_symbol* hooked_at(const real::driver_state& state, void* real) noexcept {
  if (const wrapper_index* i = index_for(state)) {
    const auto it = std::lower_bound(i->by_real.begin(), i->by_real.end(), real,
                                     [](const auto& entry, void* p) { return entry.first < p; });
    return it != i->by_real.end() && it->first == real ? it->second : nullptr;
  }
  std::size_t count = 0;
  const hooked_symbol* rows = hooked_begin(&count);
  for (std::size_t i = 0; i < count; ++i)
    if (state.by_id[index(rows[i].id)] == real) return &rows[i];
  return nullptr;
}

// Pointers this thread already saw handed out unhooked: the variant check below runs once each.
thread_local thread_cache<void*, bool, 32> checked_unhooked;

}  // namespace

void* driver_wrapper_for(void* real, const char* api, const char* symbol) noexcept {
  const real::driver_state* state = real::driver_state_now();
  if (state == nullptr || real == nullptr) return real;
  std::size_t count = 0;
  const hooked_symbol* rows = hooked_begin(&count);
  check_aliases(*state, rows, count);
  if (const hooked_symbol* row = hooked_at(*state, real)) {
    log::debug("{}({}) -> wrapper of {}", api ? api : "?", symbol ? symbol : "?", row->name);
    return row->wrapper;
  }
  if (checked_unhooked.find(real, 0) != nullptr) return real;
  checked_unhooked.store(real, 0, true);
  // Not hooked. Harmless unless it is a variant of something acs hooks, which would be a
  // variant missing from the table: its calls would bypass acs.
  if (symbol != nullptr) {
    for (std::size_t i = 0; i < count; ++i) {
      if (same_family(rows[i].name, symbol) || same_family(symbol, rows[i].name)) {
        log::print_once(unknown_variant_warned, log_level::warn,
                 "{}({}) returned a variant of a hooked entry point that is not in acs's table; "
                 "its calls bypass acs (further cases at debug level)",
                 api ? api : "?", symbol);
        log::debug("{}({}): unknown variant {} passed through", api ? api : "?", symbol, real);
        return real;
      }
    }
  }
  log::trace("{}({}): not hooked", api ? api : "?", symbol ? symbol : "?");
  return real;
}

namespace {
// The hooked lines by name, sorted: dlsym(handle, "cu...") looks a name up with a binary search.
const hooked_symbol* hooked_named(const char* symbol) noexcept {
  static const std::vector<const hooked_symbol*>* const by_name = []() noexcept -> std::vector<const hooked_symbol*>* {
    try {
      std::size_t count = 0;
      const hooked_symbol* rows = hooked_begin(&count);
      auto* v = new std::vector<const hooked_symbol*>;  // never freed: dlsym may come at exit
      for (std::size_t i = 0; i < count; ++i) v->push_back(&rows[i]);
      std::stable_sort(v->begin(), v->end(), [](const auto* a, const auto* b) { return std::strcmp(a->name, b->name) < 0; });
      return v;
    } catch (...) {
      return nullptr;
    }
  }();
  if (by_name == nullptr) return nullptr;
  const auto it = std::lower_bound(by_name->begin(), by_name->end(), symbol,
                                   [](const hooked_symbol* row, const char* s) { return std::strcmp(row->name, s) < 0; });
  return it != by_name->end() && std::strcmp((*it)->name, symbol) == 0 ? *it : nullptr;
}
}  // namespace

void* driver_wrapper_for_symbol(const char* symbol, void* real) noexcept {
  if (symbol == nullptr || real == nullptr || symbol[0] != 'c' || symbol[1] != 'u') return real;
  // Passing everything through (ACS_DISABLE...): the real function, once the settings are read
  // (not read from inside dlsym: before that, the wrapper passes the calls through itself).
  if (const config* c = acs::detail::settings_made.load(std::memory_order_acquire); c != nullptr && c->hands_out_real_functions())
    return real;
  if (const hooked_symbol* row = hooked_named(symbol)) {
    const real::driver_state* state = real::driver_state_now();
    // Only the libcuda definition is swapped: another library's function of the same name
    // (a stub, a mock, another interposer) is none of acs's business.
    if (state != nullptr && state->by_id[index(row->id)] == real) {
      log::debug("dlsym({}) -> wrapper", symbol);
      return row->wrapper;
    }
    log::debug("dlsym({}): not libcuda's definition, returned as is", symbol);
    return real;
  }
  return real;
}

}  // namespace acs::hooks
