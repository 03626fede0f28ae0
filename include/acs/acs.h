/* acs annotation API: declare what GPU work reads and writes, so that the acs
 * scheduler can run independent kernels concurrently.
 *
 * Works with or without the preload. Every function here is a static inline
 * wrapper that looks its implementation up once, at run time, with
 * dlsym(RTLD_DEFAULT, "acs_v1_..."). When libacs.so is not in the process each
 * call does nothing and returns ACS_NOT_LOADED: there is no link-time
 * dependency, and a program annotated with it runs unchanged without acs.
 * (Link with -ldl on glibc older than 2.34.)
 *
 * Example, per launch:
 *
 *   acs_range in[]  = {{x, n * sizeof(float)}};
 *   acs_range out[] = {{y, n * sizeof(float)}};
 *   acs_next_launch(in, 1, out, 1, ACS_EXACT);
 *   saxpy<<<blocks, threads>>>(n, a, x, y);
 *
 * Per scope, around a library call whose kernels are unknown:
 *
 *   acs_scope_begin(ab, 2, c, 1, ACS_DEFAULT);
 *   cublasSgemm(handle, ...);
 *   acs_scope_end();
 *
 * Per kernel, once, from its arguments (the ACS paper's get_addresses):
 *
 *   static void saxpy_rule(acs_footprint* fp, void* const* args, void* user) {
 *     int n = *(const int*)args[0];
 *     acs_footprint_read(fp, *(const float* const*)args[2], n * sizeof(float));
 *     acs_footprint_write(fp, *(float* const*)args[3], n * sizeof(float));
 *   }
 *   cudaFunction_t f;
 *   cudaGetFuncBySymbol(&f, (const void*)saxpy);
 *   acs_register_kernel(f, saxpy_rule, NULL, ACS_EXACT);
 *
 * C++ (below): acs::next_launch(acs::reads(...), acs::writes(...)), the guard
 * acs::scope, and acs::register_kernel(kernel, typed rule).
 *
 * Semantics
 * ---------
 * Declarations are per thread: they apply to launches made by the calling
 * thread, on any stream. Which declaration a launch gets, first match wins:
 *   1. acs_next_launch: the next kernel launch of this thread, whatever it is
 *      (before a library call, that is the library's first kernel: use a
 *      scope there). A launch that passes straight through (stream capture,
 *      acs disabled...) uses the declaration up too;
 *   2. the innermost open scope of this thread (acs_scope_begin);
 *   3. a rule registered for the kernel (acs_register_kernel);
 *   4. nothing declared: with ACS_INFER=alloc (the default) acs infers the
 *      footprint, every allocation a pointer argument points into being read
 *      and written; with ACS_INFER=off the kernel conflicts with everything.
 * A declaration replaces inference for the launches it covers. Without
 * ACS_EXACT, and only with ACS_INFER=alloc, acs adds every known allocation
 * that a pointer argument points into (or right next to, as inference sees
 * it) and that neither the argument's value nor any declared range touches:
 * a forgotten argument, such as a library's workspace, stays ordered, while a
 * base pointer passed with an offset into a declared allocation adds nothing.
 * With ACS_EXACT, or with ACS_INFER=off, nothing is added: the declared
 * ranges are the whole footprint.
 *
 * Scopes: every launch of the thread between acs_scope_begin and the matching
 * acs_scope_end is part of one task. Launches of one stream inside it keep
 * their order among themselves, and each is ordered against other work by the
 * scope's ranges (launches on different streams are ordered by the
 * application, as always). Scopes nest: the innermost scope's ranges apply,
 * and the outermost scope makes the task (all launches inside it keep their
 * order). A per-launch declaration inside a scope gives that launch its own
 * ranges but keeps it in the scope's task. acs_scope_begin always opens a
 * scope when libacs.so is loaded, whatever it returns: pair every call with
 * one acs_scope_end, on the same thread. A scope left open applies to every
 * later launch of its thread; at thread exit it is closed with a warning.
 *
 * acs_barrier: the next launch of the thread waits for all earlier work of its
 * stream, whatever its ranges (later launches are ordered by their own).
 *
 * acs_suballocation(base, bytes, in_use): for allocators that keep many buffers
 * in one allocation (a caching allocator, an arena). While in use (in_use != 0),
 * [base, base + bytes) counts as an allocation of its own wherever acs maps a
 * pointer to its allocation: inference, and the allocations added to non-exact
 * declarations. Call it with in_use = 0 when the buffer is given back (bytes = 0
 * then drops the sub-allocation containing base; otherwise every one overlapping
 * the range is dropped). A new sub-allocation replaces those it overlaps. Only
 * the part of an allocation acs knows can be refined: a sub-allocation that is
 * not inside one known allocation is ignored. Once an allocation holds any, a
 * pointer into it that lies in none counts as reaching the whole allocation,
 * even where a declared range touches it. Process-wide (any thread may call it,
 * for any device), and honoured during stream capture. Register a buffer before
 * the kernels that use it are launched; memory reused at once stays ordered,
 * since acs compares bytes. Cost: a lock and a tree insertion or removal.
 *
 * Bad input never crashes and never loses ordering: a NULL pointer with a
 * non-zero size, a NULL array with a non-zero count, or more than
 * ACS_MAX_RANGES ranges make the launch touch all memory; a range past the
 * end of the address space is clamped; unknown flags are ignored, ACS_EXACT
 * with them; two acs_next_launch before one launch are merged (their union);
 * acs_scope_end without a scope does nothing. Each such call returns
 * ACS_INVALID and is reported once per process on stderr. Zero-size ranges
 * are ignored (not an error).
 *
 * ACS_CHECK=1 warns, once per kernel, when a pointer argument of an annotated
 * launch lies inside device memory but outside every declared range, or a
 * declared range lies outside every allocation acs knows.
 *
 * While any stream capture is in progress, acs_next_launch and acs_scope_begin
 * return ACS_IGNORED (captured launches pass straight through; a launch outside
 * the capture gets its inferred footprint); acs_barrier is always honoured.
 * With ACS_DISABLE=1 (or CUDA_LAUNCH_BLOCKING=1) every call returns ACS_IGNORED.
 *
 * ctypes and other foreign callers: the implementation's own names are
 * exported by libacs.so with the signatures of the acs_api_v1_*_fn types below:
 * acs_v1_next_launch, acs_v1_scope_begin, acs_v1_scope_end,
 * acs_v1_register_kernel, acs_v1_footprint_read, acs_v1_footprint_write,
 * acs_v1_barrier, acs_v1_active, acs_v1_suballocation. For example, in Python:
 *   lib = ctypes.CDLL(None)        # the process, preloaded libacs.so included
 *   active = getattr(lib, "acs_v1_active", None)   # None: acs is not loaded
 *
 * Platforms: Linux with GCC, Clang or nvcc. Elsewhere every function compiles
 * to a no-op that returns ACS_NOT_LOADED (acs itself is Linux-only).
 */
#ifndef ACS_ACS_H
#define ACS_ACS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACS_API_VERSION 1

/* The release: ACS_VERSION_MAJOR, _MINOR, _PATCH, ACS_VERSION_STRING and
 * ACS_VERSION (MAJOR * 10000 + MINOR * 100 + PATCH), from acs/version.h, which
 * the build generates from CMake's project(VERSION) and installs next to this
 * header. Used straight from the source tree, without a build, this header has
 * no release number: ACS_VERSION is then undefined. */
#if defined(__has_include)
#if __has_include(<acs/version.h>)
#include <acs/version.h>
#endif
#endif

/* More ranges than this in one declaration make it "all memory". */
#define ACS_MAX_RANGES 4096

/** @brief One byte range of device-accessible memory: [ptr, ptr + bytes). */
typedef struct acs_range {
  const void* ptr;
  size_t bytes;
} acs_range;

/** @brief Status of an annotation call. */
typedef enum acs_status {
  ACS_OK = 0,
  ACS_NOT_LOADED = 1, /* libacs.so is not in the process: the call did nothing */
  ACS_INVALID = 2,    /* bad input: one warning was logged, and it was made conservative */
  ACS_IGNORED = 3,    /* accepted but without effect (stream capture in progress, acs disabled) */
} acs_status;

/** @brief Flags for declarations. */
enum acs_flags {
  ACS_DEFAULT = 0,
  /* The declared ranges are everything the work touches: acs adds nothing to
   * them. Without it, allocations that pointer arguments point into and that
   * no declared range touches are added (ACS_INFER=alloc). */
  ACS_EXACT = 1u << 0,
};

/** @brief Opaque footprint that a kernel rule fills in. */
typedef struct acs_footprint acs_footprint;

/** @brief A per-kernel rule: adds the reads and writes of one launch, from its
 * arguments (`args[i]` points to the i-th kernel argument). Runs on the
 * launching thread, inside the launch call: keep it short, do not launch. */
typedef void (*acs_kernel_rule)(acs_footprint* fp, void* const* args, void* user);

/* Signatures of the implementation entry points exported by libacs.so. */
typedef acs_status (*acs_api_v1_next_launch_fn)(const acs_range*, size_t, const acs_range*, size_t, unsigned);
typedef acs_status (*acs_api_v1_scope_begin_fn)(const acs_range*, size_t, const acs_range*, size_t, unsigned);
typedef acs_status (*acs_api_v1_scope_end_fn)(void);
typedef acs_status (*acs_api_v1_register_kernel_fn)(const void*, acs_kernel_rule, void*, unsigned);
typedef void (*acs_api_v1_footprint_range_fn)(acs_footprint*, const void*, size_t);
typedef acs_status (*acs_api_v1_barrier_fn)(void);
typedef int (*acs_api_v1_active_fn)(void);
typedef acs_status (*acs_api_v1_suballocation_fn)(const void*, size_t, int);

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))

#include <dlfcn.h>
#include <string.h>

#ifdef RTLD_DEFAULT
#define ACS_DETAIL_RTLD_DEFAULT RTLD_DEFAULT
#else /* C without _GNU_SOURCE: glibc's and musl's value */
#define ACS_DETAIL_RTLD_DEFAULT ((void*)0)
#endif

/* Internal. The implementation called `name`, or NULL when libacs.so is not
 * loaded. Looked up on the first call and cached in `*slot` (a miss too, as
 * the slot's own address); threads racing on the first call only repeat the
 * lookup. libacs.so must be in the process before that first call (LD_PRELOAD). */
static inline void* acs_detail_lookup(void** slot, const char* name) {
  void* p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (p == NULL) {
    p = dlsym(ACS_DETAIL_RTLD_DEFAULT, name);
    if (p == NULL) p = (void*)slot;
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
  }
  return p == (void*)slot ? NULL : p;
}

/* Internal: declares `fn`, the implementation of `name` as an `type`, or
 * returns `absent` when libacs.so is not loaded. memcpy: ISO C has no cast
 * from an object pointer to a function pointer. */
#define ACS_DETAIL_RESOLVE(type, fn, name, absent)                  \
  static void* acs_detail_slot_;                                    \
  void* acs_detail_p_ = acs_detail_lookup(&acs_detail_slot_, name); \
  type fn;                                                          \
  if (acs_detail_p_ == NULL) return absent;                         \
  memcpy(&fn, &acs_detail_p_, sizeof fn)

/** @brief Whether libacs.so is in the process (active or not). */
static inline int acs_detail_loaded(void) {
  static void* slot;
  return acs_detail_lookup(&slot, "acs_v1_active") != NULL;
}

/** @brief Declares the reads and writes of the next kernel launch of the calling thread. */
static inline acs_status acs_next_launch(const acs_range* reads, size_t n_reads, const acs_range* writes,
                                         size_t n_writes, unsigned flags) {
  ACS_DETAIL_RESOLVE(acs_api_v1_next_launch_fn, fn, "acs_v1_next_launch", ACS_NOT_LOADED);
  return fn(reads, n_reads, writes, n_writes, flags);
}

/** @brief Opens a scope: the thread's launches until acs_scope_end are one task with these ranges. */
static inline acs_status acs_scope_begin(const acs_range* reads, size_t n_reads, const acs_range* writes,
                                         size_t n_writes, unsigned flags) {
  ACS_DETAIL_RESOLVE(acs_api_v1_scope_begin_fn, fn, "acs_v1_scope_begin", ACS_NOT_LOADED);
  return fn(reads, n_reads, writes, n_writes, flags);
}

/** @brief Closes the innermost scope opened on this thread. */
static inline acs_status acs_scope_end(void) {
  ACS_DETAIL_RESOLVE(acs_api_v1_scope_end_fn, fn, "acs_v1_scope_end", ACS_NOT_LOADED);
  return fn();
}

/** @brief Registers a rule for a kernel, by the handle its launches present:
 * CUfunction / cudaFunction_t (cudaGetFuncBySymbol, cuModuleGetFunction), or
 * CUkernel / cudaKernel_t (cudaGetKernel, cuLibraryGetKernel); register both
 * to be safe, and once per device (a CUfunction is per context). A NULL rule
 * removes the kernel's rule. Remove rules before unloading their module. */
static inline acs_status acs_register_kernel(const void* cuda_function, acs_kernel_rule rule, void* user,
                                             unsigned flags) {
  ACS_DETAIL_RESOLVE(acs_api_v1_register_kernel_fn, fn, "acs_v1_register_kernel", ACS_NOT_LOADED);
  return fn(cuda_function, rule, user, flags);
}

/** @brief Adds a read range to a footprint; only inside a kernel rule, with its `fp`. */
static inline void acs_footprint_read(acs_footprint* fp, const void* ptr, size_t bytes) {
  ACS_DETAIL_RESOLVE(acs_api_v1_footprint_range_fn, fn, "acs_v1_footprint_read", );
  fn(fp, ptr, bytes);
}

/** @brief Adds a write range to a footprint; only inside a kernel rule, with its `fp`. */
static inline void acs_footprint_write(acs_footprint* fp, const void* ptr, size_t bytes) {
  ACS_DETAIL_RESOLVE(acs_api_v1_footprint_range_fn, fn, "acs_v1_footprint_write", );
  fn(fp, ptr, bytes);
}

/** @brief Orders the next launch of this thread after every earlier launch on its stream. */
static inline acs_status acs_barrier(void) {
  ACS_DETAIL_RESOLVE(acs_api_v1_barrier_fn, fn, "acs_v1_barrier", ACS_NOT_LOADED);
  return fn();
}

/** @brief 1 when libacs.so is loaded and active (not disabled, driver not known unusable), else 0. */
static inline int acs_active(void) {
  ACS_DETAIL_RESOLVE(acs_api_v1_active_fn, fn, "acs_v1_active", 0);
  return fn();
}

/** @brief Inside a known allocation, [base, base + bytes) counts as an allocation of its own
 * while in_use != 0 (see the top of this file). */
static inline acs_status acs_suballocation(const void* base, size_t bytes, int in_use) {
  ACS_DETAIL_RESOLVE(acs_api_v1_suballocation_fn, fn, "acs_v1_suballocation", ACS_NOT_LOADED);
  return fn(base, bytes, in_use);
}

#undef ACS_DETAIL_RESOLVE

#else /* not Linux with a GNU-compatible compiler: acs is not supported, every call is a no-op */

static inline int acs_detail_loaded(void) { return 0; }
static inline acs_status acs_next_launch(const acs_range* r, size_t nr, const acs_range* w, size_t nw,
                                         unsigned f) {
  (void)r, (void)nr, (void)w, (void)nw, (void)f;
  return ACS_NOT_LOADED;
}
static inline acs_status acs_scope_begin(const acs_range* r, size_t nr, const acs_range* w, size_t nw,
                                         unsigned f) {
  (void)r, (void)nr, (void)w, (void)nw, (void)f;
  return ACS_NOT_LOADED;
}
static inline acs_status acs_scope_end(void) { return ACS_NOT_LOADED; }
static inline acs_status acs_register_kernel(const void* k, acs_kernel_rule r, void* u, unsigned f) {
  (void)k, (void)r, (void)u, (void)f;
  return ACS_NOT_LOADED;
}
static inline void acs_footprint_read(acs_footprint* fp, const void* p, size_t n) {
  (void)fp, (void)p, (void)n;
}
static inline void acs_footprint_write(acs_footprint* fp, const void* p, size_t n) {
  (void)fp, (void)p, (void)n;
}
static inline acs_status acs_barrier(void) { return ACS_NOT_LOADED; }
static inline int acs_active(void) { return 0; }
static inline acs_status acs_suballocation(const void* b, size_t n, int u) {
  (void)b, (void)n, (void)u;
  return ACS_NOT_LOADED;
}

#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ------------------------------------------------------------------------ */
/* C++ helpers (C++17 and later). Everything is noexcept and header-only.    */
#if defined(__cplusplus) && __cplusplus >= 201703L

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#define ACS_DETAIL_HAVE_SPAN 1
#endif

/* The names below are the public C++ API. (libacs.so's internals share the
 * namespace and must not define them; acs_active has no C++ twin for that reason.)
 *
 * Example:
 *
 *   acs::next_launch(acs::reads(acs::elements(x, n)), acs::writes(acs::elements(y, n)), ACS_EXACT);
 *   saxpy<<<blocks, threads>>>(n, a, x, y);
 *
 *   {
 *     acs::scope task(acs::reads(acs::elements(a, m * k), acs::elements(b, k * n)),
 *                     acs::writes(acs::elements(c, m * n)));
 *     cublasSgemm(handle, ...);
 *   }  // the scope ends here
 *
 *   acs::register_kernel(saxpy, [](acs::footprint& fp, int n, float, const float* x, float* y) {
 *     fp.reads(x, n);
 *     fp.writes(y, n);
 *   }, ACS_EXACT);
 */
namespace acs {

namespace detail {
/* count * sizeof(T), saturated: an overflow becomes a range past the end of the
 * address space, which acs clamps conservatively instead of under-declaring. */
template <class T>
constexpr std::size_t bytes_of(std::size_t count) noexcept {
  static_assert(!std::is_void_v<T>, "use acs::bytes for untyped memory");
  return count > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1) : count * sizeof(T);
}
inline constexpr acs_range as_range(const acs_range& r) noexcept { return r; }
#ifdef ACS_DETAIL_HAVE_SPAN
template <class T, std::size_t E>
constexpr acs_range as_range(std::span<T, E> s) noexcept {
  return {s.data(), s.size_bytes()};
}
#endif
template <class T>
struct identity {
  using type = T;
};
}  // namespace detail

/** @brief `bytes` bytes from `p`. */
inline constexpr acs_range bytes(const void* p, std::size_t n) noexcept { return {p, n}; }

/** @brief `count` elements of T from `p`. */
template <class T>
constexpr acs_range elements(const T* p, std::size_t count) noexcept {
  return {p, detail::bytes_of<T>(count)};
}

#ifdef ACS_DETAIL_HAVE_SPAN
/** @brief The bytes of a span (of device memory). */
template <class T, std::size_t E>
constexpr acs_range elements(std::span<T, E> s) noexcept {
  return detail::as_range(s);
}
#endif

/** @brief Ranges read, for next_launch and scope. */
template <std::size_t N>
struct read_list {
  std::array<acs_range, N> ranges;
};
/** @brief Ranges written, for next_launch and scope. */
template <std::size_t N>
struct write_list {
  std::array<acs_range, N> ranges;
};

/** @brief Ranges read: acs_range values (acs::bytes, acs::elements) or std::span. */
template <class... R>
constexpr read_list<sizeof...(R)> reads(const R&... r) noexcept {
  return {{{detail::as_range(r)...}}};
}
/** @brief Ranges written: acs_range values (acs::bytes, acs::elements) or std::span. */
template <class... R>
constexpr write_list<sizeof...(R)> writes(const R&... r) noexcept {
  return {{{detail::as_range(r)...}}};
}

/** @brief Declares the next launch of this thread (see acs_next_launch). */
template <std::size_t R, std::size_t W>
acs_status next_launch(const read_list<R>& r, const write_list<W>& w, unsigned flags = ACS_DEFAULT) noexcept {
  return acs_next_launch(r.ranges.data(), R, w.ranges.data(), W, flags);
}
template <std::size_t W>
acs_status next_launch(const write_list<W>& w, unsigned flags = ACS_DEFAULT) noexcept {
  return next_launch(read_list<0>{}, w, flags);
}
template <std::size_t R>
acs_status next_launch(const read_list<R>& r, unsigned flags = ACS_DEFAULT) noexcept {
  return next_launch(r, write_list<0>{}, flags);
}

/** @brief RAII scope (see acs_scope_begin): ends when destroyed, on the same thread. */
class [[nodiscard]] scope {
 public:
  template <std::size_t R, std::size_t W>
  scope(const read_list<R>& r, const write_list<W>& w, unsigned flags = ACS_DEFAULT) noexcept
      : status_(acs_scope_begin(r.ranges.data(), R, w.ranges.data(), W, flags)) {}
  template <std::size_t W>
  explicit scope(const write_list<W>& w, unsigned flags = ACS_DEFAULT) noexcept
      : scope(read_list<0>{}, w, flags) {}
  template <std::size_t R>
  explicit scope(const read_list<R>& r, unsigned flags = ACS_DEFAULT) noexcept
      : scope(r, write_list<0>{}, flags) {}
  ~scope() {
    if (status_ != ACS_NOT_LOADED) acs_scope_end();  // begin opened one whatever it returned
  }
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;

  /** @brief What acs_scope_begin returned. */
  acs_status status() const noexcept { return status_; }

 private:
  acs_status status_;
};

/** @brief See acs_barrier. */
inline acs_status barrier() noexcept { return acs_barrier(); }

/** @brief See acs_suballocation: `r` counts as an allocation of its own while `in_use`. */
inline acs_status suballocation(const acs_range& r, bool in_use) noexcept {
  return acs_suballocation(r.ptr, r.bytes, in_use ? 1 : 0);
}

/** @brief The footprint a kernel rule fills in, typed. */
class footprint {
 public:
  explicit footprint(acs_footprint* fp) noexcept : fp_(fp) {}

  template <class T>
  void reads(const T* p, std::size_t count) noexcept {
    acs_footprint_read(fp_, p, detail::bytes_of<T>(count));
  }
  template <class T>
  void writes(const T* p, std::size_t count) noexcept {
    acs_footprint_write(fp_, p, detail::bytes_of<T>(count));
  }
  void reads(const acs_range& r) noexcept { acs_footprint_read(fp_, r.ptr, r.bytes); }
  void writes(const acs_range& r) noexcept { acs_footprint_write(fp_, r.ptr, r.bytes); }
#ifdef ACS_DETAIL_HAVE_SPAN
  template <class T, std::size_t E>
  void reads(std::span<T, E> s) noexcept {
    reads(detail::as_range(s));
  }
  template <class T, std::size_t E>
  void writes(std::span<T, E> s) noexcept {
    writes(detail::as_range(s));
  }
#endif
  acs_footprint* get() const noexcept { return fp_; }

 private:
  acs_footprint* fp_;
};

/** @brief A rule with the kernel's own parameter types, for register_kernel. */
template <class... Args>
using typed_rule = void (*)(footprint&, Args...);

namespace detail {
template <class... Args, std::size_t... I>
void call_typed(typed_rule<Args...> rule, acs_footprint* fp, void* const* args, std::index_sequence<I...>) {
  (void)args;  // unused for a kernel without parameters
  footprint f(fp);
  rule(f, *static_cast<const std::decay_t<Args>*>(args[I])...);
}
// The C rule that unpacks the arguments for a typed one, passed as `user`.
template <class... Args>
void typed_trampoline(acs_footprint* fp, void* const* args, void* user) {
  call_typed<Args...>(reinterpret_cast<typed_rule<Args...>>(user), fp, args,
                      std::index_sequence_for<Args...>{});
}
}  // namespace detail

}  // namespace acs

/* register_kernel needs the application's CUDA runtime: include <cuda_runtime.h>
 * before this header (.cu files get it automatically). */
#if defined(CUDART_VERSION)
namespace acs {
namespace detail {
/* Registers under both handles a launch may present (cudaFunction_t and,
 * from CUDA 12.5, cudaKernel_t), in the application's own CUDA runtime. Makes
 * no CUDA call unless acs is loaded and active, nor while a CUDA error is
 * pending (a failing lookup would replace it in cudaGetLastError): then it
 * returns ACS_INVALID and registers nothing. */
inline acs_status register_entry(const void* entry, acs_kernel_rule rule, void* user,
                                 unsigned flags) noexcept {
  if (!acs_detail_loaded()) return ACS_NOT_LOADED;
  if (!acs_active()) return ACS_IGNORED;
  if (entry == nullptr || cudaPeekAtLastError() != cudaSuccess) return ACS_INVALID;
  acs_status status = ACS_INVALID;
  cudaFunction_t function = nullptr;
  if (cudaGetFuncBySymbol(&function, entry) == cudaSuccess && function != nullptr)
    status = acs_register_kernel(reinterpret_cast<const void*>(function), rule, user, flags);
  else
    (void)cudaGetLastError();  // ours: no error was pending before
#if CUDART_VERSION >= 12050
  cudaKernel_t kernel = nullptr;
  if (cudaGetKernel(&kernel, entry) == cudaSuccess && kernel != nullptr) {
    const acs_status s = acs_register_kernel(reinterpret_cast<const void*>(kernel), rule, user, flags);
    if (status != ACS_OK) status = s;
  } else {
    (void)cudaGetLastError();
  }
#endif
  return status;
}
}  // namespace detail

/** @brief Registers a C rule for a __global__ function, on the current device (see
 * acs_register_kernel; call it again with each device current). */
template <class... Args>
acs_status register_kernel(void (*kernel)(Args...), acs_kernel_rule rule, void* user,
                           unsigned flags = ACS_DEFAULT) noexcept {
  return detail::register_entry(reinterpret_cast<const void*>(kernel), rule, user, flags);
}

/** @brief Registers a rule that takes the kernel's own arguments:
 * `void(acs::footprint&, Args...)`, e.g. a lambda without captures. */
template <class... Args>
acs_status register_kernel(void (*kernel)(Args...), typename detail::identity<typed_rule<Args...>>::type rule,
                           unsigned flags = ACS_DEFAULT) noexcept {
  if (rule == nullptr) return register_kernel(kernel, nullptr, nullptr, flags);
  return register_kernel(kernel, &detail::typed_trampoline<Args...>, reinterpret_cast<void*>(rule), flags);
}

/** @brief Removes a kernel's rule. */
template <class... Args>
acs_status unregister_kernel(void (*kernel)(Args...)) noexcept {
  return register_kernel(kernel, static_cast<acs_kernel_rule>(nullptr), nullptr, ACS_DEFAULT);
}
}  // namespace acs
#endif /* CUDART_VERSION */

#endif /* C++17 */

#endif /* ACS_ACS_H */
