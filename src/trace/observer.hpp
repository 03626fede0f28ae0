#pragma once
// The scheduler's dispatch_observer for tracing: one per scheduler (device).
//  * before_launch / after_launch bracket the enqueue of a pool launch with an
//    external correlation id (the tagged launch id), so that CUPTI's records
//    of that launch carry it;
//  * dispatched() keeps what acs decided: virtual stream, pool stream,
//    dependencies, window size.
// It runs under the scheduler's lock, on the launch path: a push, a pop, a
// clock read and one append under an uncontended mutex (only a snapshot, at
// a flush, contends). The CUPTI calls come in as function pointers, so that
// this file needs no CUDA header and the unit tests can count the calls.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "scheduler/scheduler.hpp"
#include "src/trace/records.hpp"

namespace acs::trace {

struct correlation_hooks {
  /// Pushes an external correlation id for this thread; false if it was not pushed.
  bool (*push)(std::uint64_t external) noexcept = nullptr;
  /// Pops the id pushed last by this thread.
  void (*pop)() noexcept = nullptr;
  /// Now, on the clock of the activity records (0 if unknown).
  std::uint64_t (*now_ns)() noexcept = nullptr;
  /// CUPTI's id of a stream (no_stream_id if unknown), for the join by stream order.
  std::uint32_t (*stream_id)(std::uintptr_t stream) noexcept = nullptr;
};

class observer final : public dispatch_observer {
 public:
  static constexpr std::size_t default_max_entries = std::size_t{1} << 22;

  observer(std::uint64_t tag, unsigned device, correlation_hooks hooks,
           std::size_t max_entries = default_max_entries);

  void before_launch(std::uint64_t launch_id) noexcept override;
  void after_launch(std::uint64_t launch_id, backend_status status) noexcept override;
  void dispatched(const dispatch_record& record) noexcept override;

  /// @brief Appends this observer's entries to `out` (dispatches, waited, dropped).
  void copy_into(snapshot& out) const;

  std::uint64_t tag() const noexcept { return tag_; }
  unsigned device() const noexcept { return device_; }

 private:
  const std::uint64_t tag_;
  const unsigned device_;
  const correlation_hooks hooks_;
  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  // Deques: growing never moves what is stored, so no launch pays for a copy.
  std::deque<dispatch_entry> entries_;
  std::deque<std::uint64_t> waited_;  // external ids
  std::uint64_t dropped_ = 0;
};

}  // namespace acs::trace
