#pragma once
// The store of GPU activity records. CUPTI hands over full buffers on its own
// thread (or on the thread that flushes); each buffer is converted into a
// batch without any lock, then appended under one lock. The launch path never
// touches this store (dispatch decisions live in the observers).
//
// Memory is bounded: past the limits, records are counted as dropped and the
// trace and the measured figures cover only what was kept.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/trace/records.hpp"

namespace acs::trace {

struct collector_limits {
  std::size_t kernels = std::size_t{1} << 22;  // about 100 MiB at most
  std::size_t copies = std::size_t{1} << 20;
  std::size_t correlations = std::size_t{1} << 23;
};

// Records of one buffer, before names are interned. `name` pointers must stay
// valid until append() returns (CUPTI's kernel names outlive the buffer).
struct record_batch {
  struct kernel {
    kernel_record record;
    const char* name = nullptr;
  };
  struct copy {
    copy_record record;
    const char* name = nullptr;
  };
  std::vector<kernel> kernels;
  std::vector<copy> copies;
  std::vector<correlation_record> correlations;
  std::uint64_t incomplete = 0;
  std::uint64_t dropped = 0;

  void clear() noexcept;
};

class collector {
 public:
  explicit collector(collector_limits limits = {});

  /// @brief Interns the batch's names and appends its records, up to the limits.
  void append(const record_batch& batch);

  /// @brief Counts records lost elsewhere (CUPTI's own drops).
  void add_dropped(std::uint64_t count);

  /// @brief Copies every record and the names table into `out` (replacing those parts).
  void copy_into(snapshot& out) const;

 private:
  name_id intern(const char* name);

  collector_limits limits_;
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, name_id> by_text_;
  std::unordered_map<const char*, name_id> by_pointer_;  // CUPTI shares one pointer per kernel
  std::vector<kernel_record> kernels_;
  std::vector<copy_record> copies_;
  std::vector<correlation_record> correlations_;
  std::uint64_t dropped_ = 0;
  std::uint64_t incomplete_ = 0;
};

}  // namespace acs::trace
