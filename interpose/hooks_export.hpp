#pragma once
// Exports a wrapper under a CUDA symbol name.
//
// The wrappers are instances of a template (hooks_generic.hpp) whose signature comes from the
// real function's type, which C++ cannot give an extern "C" name. An assembler alias can:
// `.set cuMemcpyAsync, <address of the instance>` makes a global symbol at the wrapper's
// address, which the version script (libacs.map) exports. The instances have internal linkage
// (their Entry types live in an anonymous namespace), so the alias never points into a COMDAT
// copy that the linker could discard.
#if defined(__x86_64__)
#define ACS_HOOKS_FUNCTION_TYPE "@function"
#elif defined(__aarch64__)
#define ACS_HOOKS_FUNCTION_TYPE "%function"
#else
#error "acs: no symbol alias syntax for this architecture"
#endif

// Emits, inside a never-called function, the directives that alias `symbol` to `wrapper`
// (a constant function address: printed by the "c" operand modifier as a bare symbol).
#define ACS_HOOKS_EXPORT(symbol, wrapper)                                                  \
  [[gnu::used]] static void export_##symbol() {                                            \
    asm(".globl " #symbol "\n\t.type " #symbol ", " ACS_HOOKS_FUNCTION_TYPE "\n\t.set " #symbol \
        ", %c0" ::"i"(wrapper));                                                           \
  }

// ACS_HOOKED_<kind>(x): x for the kinds that get a wrapper, nothing for `pass` lines. Lets an
// X-macro body skip pass lines: ACS_HOOKED_##kind(...).
#define ACS_HOOKED_launch(x) x
#define ACS_HOOKED_cooperative(x) x
#define ACS_HOOKED_cooperative_multi(x) x
#define ACS_HOOKED_opaque_launch(x) x
#define ACS_HOOKED_barrier(x) x
#define ACS_HOOKED_graph_instantiate(x) x
#define ACS_HOOKED_legacy_barrier(x) x
#define ACS_HOOKED_peer_barrier(x) x
#define ACS_HOOKED_sync(x) x
#define ACS_HOOKED_device_sync(x) x
#define ACS_HOOKED_stream_destroy(x) x
#define ACS_HOOKED_capture_begin(x) x
#define ACS_HOOKED_capture_end(x) x
#define ACS_HOOKED_alloc(x) x
#define ACS_HOOKED_alloc_pitch(x) x
#define ACS_HOOKED_alloc_3d(x) x
#define ACS_HOOKED_alloc_at(x) x
#define ACS_HOOKED_alloc_unsized(x) x
#define ACS_HOOKED_alloc_host(x) x
#define ACS_HOOKED_alloc_host_at(x) x
#define ACS_HOOKED_free(x) x
#define ACS_HOOKED_reserve(x) x
#define ACS_HOOKED_unreserve(x) x
#define ACS_HOOKED_proc_address(x) x
#define ACS_HOOKED_teardown(x) x
#define ACS_HOOKED_unload(x) x
#define ACS_HOOKED_code_load(x) x
#define ACS_HOOKED_function_config(x) x
#define ACS_HOOKED_observe(x) x
#define ACS_HOOKED_pass(x)
