#pragma once
// The code images the process loaded into the driver (modules and libraries), by
// handle, and what their PTX says each kernel writes through (ptx_writes.hpp).
// Loading only records the image (copied unless it lies in a loaded object file,
// where it stays until that file is unloaded); the PTX is unpacked and analysed
// the first time a kernel of that image needs it, or ahead of time on a thread of the
// runtime's (analyse_ahead: a module's analysis can take milliseconds, which a first launch
// should not wait for; the runtime starts that only once some launch needs a footprint). A
// launch that needs an image being analysed (ahead, or for another launch) waits for it, so the
// answer is the same either way. No analysis holds the registry's lock: loads and look-ups of
// other images go on meanwhile.
#include <condition_variable>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "annotations/inferred/param_layout.hpp"
#include "annotations/inferred/ptx_writes.hpp"

namespace acs::inference {

enum class code_handle_kind : std::uint8_t { module, library };

class loaded_code {
 public:
  using kernel_map = std::unordered_map<std::string, std::shared_ptr<const kernel_writes>>;
  /// What reads an image's PTX for a device (`bytes`, `cc`): the PTX analysis; tests pass another.
  using analyser = std::function<kernel_map(const void* bytes, std::uint32_t cc)>;

  loaded_code();
  explicit loaded_code(analyser analyse) : analyse_(std::move(analyse)) {}

  /// @brief `handle` (a CUmodule or CUlibrary) was loaded from `image`: a fatbin, a
  /// fatbin wrapper or PTX text. Other images (cubins) are not recorded: they carry no PTX.
  void loaded(const void* handle, code_handle_kind kind, const void* image);

  /// @brief `handle` was unloaded; the handle may come back for other code.
  void unloaded(const void* handle);

  /// @brief The recorded module or library that `module` is, or was found to be loaded
  /// from (`found_in`); nullptr when none.
  const void* owner_of_module(const void* module) const;

  /// @brief `module` (a context's module of a library) was found to come from `library`:
  /// later functions of that module resolve at once.
  void found_in(const void* module, const void* library);

  /// @brief The recorded libraries, newest first.
  std::vector<const void*> libraries() const;

  /// @brief Every recorded module and library, in load order.
  std::vector<const void*> handles() const;

  /// @brief What kernel `name` of the code loaded as `handle` writes through, for a
  /// device of compute capability `cc` (major * 10 + minor); nullptr when unknown
  /// (no PTX for that device, the kernel not in it, or not analysable).
  std::shared_ptr<const kernel_writes> writes(const void* handle, std::string_view name, std::uint32_t cc);

  /// @brief Analyses the image loaded as `handle` for devices of compute capability `cc` now,
  /// without holding the registry's lock (call it off the launch path). Does nothing when the
  /// image is gone, already analysed for `cc`, or being analysed.
  void analyse_ahead(const void* handle, std::uint32_t cc);

  /// @brief The PTX analysis itself, what the default analyser runs: every kernel of the image at
  /// `bytes` (a fatbin, a fatbin wrapper or PTX text) for compute capability `cc`, by name. Pure;
  /// public for benchmarks/cpu/code_analysis_time.cpp, which times it on real programs' images.
  static kernel_map analyse(const void* bytes, std::uint32_t cc);

 private:
  struct image {
    code_handle_kind kind = code_handle_kind::module;
    std::shared_ptr<const std::vector<std::byte>> copy;  // when the caller's image may go away
    const void* bytes = nullptr;                         // the fatbin or PTX text
    std::uint64_t order = 0;                             // load order
    std::uint32_t analysed_for = 0;                      // cc of `kernels`, 0: not yet
    std::uint32_t analysing_for = 0;                     // cc being analysed now, 0: none
    std::unordered_map<std::string, std::shared_ptr<const kernel_writes>> kernels;
  };

  // One analysis, made without the lock: what it reads, kept alive, and which load it is of.
  struct analysis {
    const void* bytes = nullptr;
    std::shared_ptr<const std::vector<std::byte>> keep;
    std::uint64_t order = 0;
  };
  bool begin_analysis(const void* handle, std::uint32_t cc, analysis& a);
  std::shared_ptr<const kernel_writes> end_analysis(const void* handle, std::uint32_t cc, const analysis& a,
                                                    kernel_map* found, std::string_view name);

  analyser analyse_;
  mutable std::mutex mutex_;
  std::condition_variable analysed_;  // an analysis ahead ended (or its image went)
  std::unordered_map<const void*, image> images_;
  std::unordered_map<const void*, const void*> module_library_;  // from found_in
  std::uint64_t loads_ = 0;
};

/// @brief The process's loaded code, fed by the module and library load hooks. Never destroyed.
loaded_code& process_code() noexcept;

/// @brief Merges two analyses of kernels of the same name (several PTX entries):
/// the union of what either writes; nullptr when their parameters differ.
std::shared_ptr<const kernel_writes> merge_writes(const kernel_writes& a, const kernel_writes& b);

/// @brief Narrows a layout's written words to what the PTX analysis allows, and records what
/// else the code reaches (param_layout's flags); false (layout unchanged) when the analysis's
/// parameters do not match the layout's.
bool apply_writes(const kernel_writes& writes, param_layout& layout) noexcept;

}  // namespace acs::inference
