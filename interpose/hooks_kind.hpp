#pragma once
// How a hooked entry point is classified (hooks_table.inc explains each kind). No CUDA
// headers here: the table-dump tool and the tests use it too.
#include <cstdint>
#include <string_view>

namespace acs::hooks {

enum class hook_kind : std::uint8_t {
  launch,
  cooperative,
  cooperative_multi,
  opaque_launch,
  barrier,
  graph_instantiate,
  legacy_barrier,
  peer_barrier,
  sync,
  device_sync,
  stream_destroy,
  capture_begin,
  capture_end,
  alloc,
  alloc_pitch,
  alloc_3d,
  alloc_at,
  alloc_unsized,
  alloc_host,
  alloc_host_at,
  free,
  reserve,
  unreserve,
  proc_address,
  teardown,
  unload,
  code_load,
  function_config,
  observe,
  pass,
};

constexpr std::string_view kind_name(hook_kind k) noexcept {
  switch (k) {
    case hook_kind::launch: return "launch";
    case hook_kind::cooperative: return "cooperative";
    case hook_kind::cooperative_multi: return "cooperative_multi";
    case hook_kind::opaque_launch: return "opaque_launch";
    case hook_kind::barrier: return "barrier";
    case hook_kind::graph_instantiate: return "graph_instantiate";
    case hook_kind::legacy_barrier: return "legacy_barrier";
    case hook_kind::peer_barrier: return "peer_barrier";
    case hook_kind::sync: return "sync";
    case hook_kind::device_sync: return "device_sync";
    case hook_kind::stream_destroy: return "stream_destroy";
    case hook_kind::capture_begin: return "capture_begin";
    case hook_kind::capture_end: return "capture_end";
    case hook_kind::alloc: return "alloc";
    case hook_kind::alloc_pitch: return "alloc_pitch";
    case hook_kind::alloc_3d: return "alloc_3d";
    case hook_kind::alloc_at: return "alloc_at";
    case hook_kind::alloc_unsized: return "alloc_unsized";
    case hook_kind::alloc_host: return "alloc_host";
    case hook_kind::alloc_host_at: return "alloc_host_at";
    case hook_kind::free: return "free";
    case hook_kind::reserve: return "reserve";
    case hook_kind::unreserve: return "unreserve";
    case hook_kind::proc_address: return "proc_address";
    case hook_kind::teardown: return "teardown";
    case hook_kind::unload: return "unload";
    case hook_kind::code_load: return "code_load";
    case hook_kind::function_config: return "function_config";
    case hook_kind::observe: return "observe";
    case hook_kind::pass: return "pass";
  }
  return "?";
}

// Whether calls of this kind launch kernels (counted as launches, ACS_STATS).
constexpr bool launches(hook_kind k) noexcept {
  return k == hook_kind::launch || k == hook_kind::cooperative || k == hook_kind::cooperative_multi ||
         k == hook_kind::opaque_launch;
}

// Per-thread default-stream twins. cuda.h and cuda_runtime_api.h derive these names with
// `api ## _ptsz` / `api ## _ptds`, so the suffix is the whole rule: in them, stream 0 means the
// calling thread's default stream instead of the legacy one.
constexpr bool per_thread_variant(std::string_view symbol) noexcept {
  return symbol.ends_with("_ptsz") || symbol.ends_with("_ptds");
}

// Whether a symbol is `base` itself or one of its ABI variants (`base_v2`, `base_ptsz`...),
// as opposed to another function that merely shares a prefix (cuLaunchKernelEx).
constexpr bool same_family(std::string_view symbol, std::string_view base) noexcept {
  return symbol == base || (symbol.size() > base.size() + 1 && symbol.starts_with(base) &&
                            symbol[base.size()] == '_');
}

}  // namespace acs::hooks
