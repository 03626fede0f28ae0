// The exported dlsym.
//
// Why: statically linked cudart, the libraries that embed it, Triton and CuPy find the driver with
// dlopen("libcuda.so.1") + dlsym(handle, "cuGetProcAddress" / "cuLaunchKernelEx" / ...). For those
// names, when the pointer is libcuda's own definition, the wrapper is returned instead.
//
// RTLD_NEXT and RTLD_DEFAULT: glibc resolves both relative to the object that *called* dlsym
// (its return address): RTLD_NEXT searches the objects after the caller, RTLD_DEFAULT the
// caller's scope, which for a library dlopen()ed with RTLD_LOCAL includes its own dependencies.
// A hook that called the real dlsym normally would make libacs the caller: RTLD_NEXT from a
// malloc interposer would then search after libacs (finding that interposer itself again), and
// RTLD_DEFAULT would miss an RTLD_LOCAL library's dependencies. So for these two handles the hook
// is a tail jump, written in assembly: the return address on the stack is still the
// application's when glibc's dlsym reads it, and glibc computes the exact answer itself. (No
// wrapper substitution is needed there: libacs is preloaded, so the global scope already finds
// its exported hooks before libcuda's definitions.)
//
// For a real handle the caller does not matter to glibc; the C++ part below calls the real dlsym
// and swaps the result if it is libcuda's definition of a hooked symbol.
#include <dlfcn.h>

#include <atomic>

#include "interpose/hooks_guard.hpp"
#include "interpose/hooks_lookup.hpp"
#include "interpose/real_dl.hpp"

namespace {

// Nested dlsym calls on this thread (a library's constructor or malloc calling dlsym while
// acs's look-up runs) get the real answer without look-up: no recursion.
constinit thread_local bool in_dlsym [[gnu::tls_model("initial-exec")]] = false;

}  // namespace

extern "C" [[gnu::visibility("hidden"), gnu::used]] void* dlsym_hook_for_handle(void* handle,
                                                                                 const char* symbol) noexcept {
  void* const result = acs::real::real_dlsym()(handle, symbol);
  if (result == nullptr || in_dlsym) return result;
  in_dlsym = true;
  void* const swapped = acs::hooks::driver_wrapper_for_symbol(symbol, result);
  in_dlsym = false;
  return swapped;
}

#if defined(__x86_64__)
// dlsym(rdi = handle, rsi = symbol). RTLD_NEXT is (void*)-1, RTLD_DEFAULT is 0.
// dlsym_hook_real is the glibc dlsym (real_dl.cpp), resolved on first use by
// dlsym_hook_resolve_real; that slow path keeps the arguments across the call.
asm(R"(
    .text
    .globl  dlsym
    .type   dlsym, @function
    .p2align 4
dlsym:
    .cfi_startproc
    cmpq    $-1, %rdi
    je      1f
    testq   %rdi, %rdi
    je      1f
    jmp     dlsym_hook_for_handle
1:
    movq    dlsym_hook_real(%rip), %rax
    testq   %rax, %rax
    jz      2f
    jmp     *%rax
2:
    pushq   %rdi
    .cfi_adjust_cfa_offset 8
    pushq   %rsi
    .cfi_adjust_cfa_offset 8
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    call    dlsym_hook_resolve_real
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %rsi
    .cfi_adjust_cfa_offset -8
    popq    %rdi
    .cfi_adjust_cfa_offset -8
    jmp     *%rax
    .cfi_endproc
    .size   dlsym, .-dlsym
)");
#elif defined(__aarch64__)
// dlsym(x0 = handle, x1 = symbol). Untested: built for completeness, check before relying on it.
asm(R"(
    .text
    .globl  dlsym
    .type   dlsym, %function
    .p2align 4
dlsym:
    .cfi_startproc
    cmn     x0, #1
    b.eq    1f
    cbz     x0, 1f
    b       dlsym_hook_for_handle
1:
    adrp    x16, dlsym_hook_real
    ldr     x16, [x16, :lo12:dlsym_hook_real]
    cbz     x16, 2f
    br      x16
2:
    stp     x29, x30, [sp, #-32]!
    .cfi_def_cfa_offset 32
    .cfi_offset 29, -32
    .cfi_offset 30, -24
    stp     x0, x1, [sp, #16]
    bl      dlsym_hook_resolve_real
    mov     x16, x0
    ldp     x0, x1, [sp, #16]
    ldp     x29, x30, [sp], #32
    .cfi_def_cfa_offset 0
    br      x16
    .cfi_endproc
    .size   dlsym, .-dlsym
)");
#else
#error "acs: the dlsym hook needs a tail-call trampoline for this architecture"
#endif
