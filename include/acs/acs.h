/* acs annotation API: declare what GPU work reads and writes, so the acs
 * scheduler can run independent kernels concurrently.
 *
 * Works with or without the preload. Every function here is resolved at run
 * time (dlsym on the already-loaded process); when libacs.so is not loaded,
 * each call is a no-op that returns ACS_NOT_LOADED. No link-time dependency.
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
 *   acs_scope_begin(ab, 2, c, 1, ACS_EXACT);
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
 *   acs_register_kernel(cuda_function_of(saxpy), saxpy_rule, NULL, ACS_EXACT);
 */
#ifndef ACS_ACS_H
#define ACS_ACS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACS_API_VERSION 1

/** @brief One byte range on the device: [ptr, ptr + bytes). */
typedef struct acs_range {
  const void* ptr;
  size_t bytes;
} acs_range;

/** @brief Status of an annotation call. */
typedef enum acs_status {
  ACS_OK = 0,
  ACS_NOT_LOADED = 1,     /* libacs.so is not in the process: the call did nothing */
  ACS_INVALID = 2,        /* bad input; a warning was logged and the launch is treated conservatively */
  ACS_IGNORED = 3,        /* accepted but without effect here (stream capture, acs disabled) */
} acs_status;

/** @brief Flags for declarations. */
enum acs_flags {
  ACS_DEFAULT = 0,
  /* The work touches nothing on the device beyond the declared ranges: no
   * inference is added to them. Without it, declared ranges are still used in
   * place of inference for the kernels they cover. */
  ACS_EXACT = 1u << 0,
};

/** @brief Opaque footprint a kernel rule fills in. */
typedef struct acs_footprint acs_footprint;

/** @brief A per-kernel rule: fills in the reads and writes of one launch from its arguments. */
typedef void (*acs_kernel_rule)(acs_footprint* fp, void* const* args, void* user);

/** @brief Declares the reads and writes of the next kernel launch on the calling thread. */
acs_status acs_next_launch(const acs_range* reads, size_t n_reads, const acs_range* writes,
                           size_t n_writes, unsigned flags);

/** @brief Opens a scope: every launch until acs_scope_end on this thread is one task with these ranges. */
acs_status acs_scope_begin(const acs_range* reads, size_t n_reads, const acs_range* writes,
                           size_t n_writes, unsigned flags);

/** @brief Closes the innermost scope opened on this thread. */
acs_status acs_scope_end(void);

/** @brief Registers a rule for a kernel, identified by its CUfunction / cudaFunction_t. */
acs_status acs_register_kernel(const void* cuda_function, acs_kernel_rule rule, void* user,
                               unsigned flags);

/** @brief Adds a read range to a footprint; for use inside a kernel rule. */
void acs_footprint_read(acs_footprint* fp, const void* ptr, size_t bytes);

/** @brief Adds a write range to a footprint; for use inside a kernel rule. */
void acs_footprint_write(acs_footprint* fp, const void* ptr, size_t bytes);

/** @brief Orders the next launch on this thread after every earlier launch on its stream. */
acs_status acs_barrier(void);

/** @brief Whether the acs runtime is loaded and active in this process. */
int acs_active(void);

#ifdef __cplusplus
}
#endif

#endif /* ACS_ACS_H */
