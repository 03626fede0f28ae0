#pragma once
// Inference in the running process: layouts from the real driver
// (cuFuncGetParamInfo, else cuKernelGetParamInfo), the process's allocation
// map, and cuPointerGetAttribute for words outside it. The entry points the
// runtime and the annotation layer call.
#include <cuda.h>

#include <vector>

#include "annotations/inferred/inference.hpp"

namespace acs::inference {

/// @brief The footprint of a launch of `function`, into `out` (see inference.hpp).
inference_result infer(CUfunction function, void* const* params, void* const* extra,
                       const inference_options& options, access_set& out);

/// @brief The arguments of a launch that are or may be device pointers (for ACS_CHECK).
words_status pointer_arguments(CUfunction function, void* const* params, void* const* extra,
                               std::vector<pointer_argument>& out);

/// @brief The cached layout of `function`, or nullptr when it cannot be read.
const param_layout* layout_of(CUfunction function);

/// @brief Code was loaded as `handle` (recorded in process_code()): once some launch has needed a
/// footprint (code_needed), its PTX is read on acs's background thread for the first device's
/// compute capability, so that the first launch of its kernels does not wait for that (a module's
/// analysis can take tens of milliseconds). Before that, nothing is read. A probe that comes
/// sooner does not wait either (layout_ready, footprint.hpp); a launch for the pool waits for it;
/// one on a device of another capability reads its own.
void read_code_ahead(const void* handle) noexcept;

/// @brief A launch needs an inferred footprint: the first call reads every image loaded so far
/// ahead (read_code_ahead), and later loads are read ahead as they come. One load after that.
void code_needed() noexcept;

/// @brief Tests only: as in a new process, no footprint has been needed yet.
void forget_code_needed_for_testing() noexcept;

/// @brief Whether `function`'s footprint can be inferred now without reading anything: its
/// layout is cached. When it is not, its layout is read on acs's background thread (once per
/// function) and this says false, so that a probe treats the launch as unsettled (footprint.hpp);
/// only where that cannot be done (no current context, no thread) it says true, and the probe
/// reads the layout itself, as before this rule. A function's first layout read and a module's
/// PTX analysis cost tens of microseconds to milliseconds, which a launch that stays on its
/// stream should not pay.
bool layout_ready(CUfunction function) noexcept;

/// @brief Whether `function`'s layout is known already; asks nothing of acs's thread.
bool layout_known(CUfunction function) noexcept;

/// @brief Whether analyses or layout reads posted to the background thread are unfinished.
bool work_ahead_pending() noexcept;

/// @brief Modules or libraries were unloaded: function handles may be reused, so
/// cached layouts are dropped. Hooks call it from cuModuleUnload / cuLibraryUnload.
void functions_unloaded() noexcept;

}  // namespace acs::inference
