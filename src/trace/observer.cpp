#include "src/trace/observer.hpp"

#include <limits>

namespace acs::trace {

namespace {

// Which of this thread's open brackets really pushed an id: a push that failed
// must not be matched by a pop, which would take someone else's id. Brackets
// do not nest in practice (the scheduler's lock is held across one), but a
// bit per level keeps this right if they ever do.
thread_local unsigned bracket_depth = 0;
thread_local std::uint64_t pushed_bits = 0;

}  // namespace

observer::observer(std::uint64_t tag, unsigned device, correlation_hooks hooks, std::size_t max_entries)
    : tag_(tag), device_(device), hooks_(hooks), max_entries_(max_entries) {}

void observer::before_launch(std::uint64_t launch_id) noexcept {
  const bool pushed = hooks_.push != nullptr && hooks_.push(external_id(tag_, launch_id));
  if (bracket_depth < 64 && pushed) pushed_bits |= std::uint64_t{1} << bracket_depth;
  ++bracket_depth;
}

void observer::after_launch(std::uint64_t, backend_status) noexcept {
  if (bracket_depth == 0) return;  // unmatched: nothing of ours to pop
  --bracket_depth;
  if (bracket_depth >= 64) return;
  const std::uint64_t bit = std::uint64_t{1} << bracket_depth;
  if ((pushed_bits & bit) != 0 && hooks_.pop != nullptr) hooks_.pop();
  pushed_bits &= ~bit;
}

void observer::dispatched(const dispatch_record& record) noexcept {
  const std::uint64_t now = hooks_.now_ns != nullptr ? hooks_.now_ns() : 0;
  std::lock_guard lock(mutex_);
  if (entries_.size() >= max_entries_ ||
      waited_.size() + record.waited_count > std::numeric_limits<std::uint32_t>::max()) {
    ++dropped_;
    return;
  }
  try {
    dispatch_entry e;
    e.external = external_id(tag_, record.launch_id);
    e.host_ns = now;
    e.vstream = record.vstream;
    e.device = device_;
    e.pool_stream = record.pool_stream;
    if (hooks_.stream_id != nullptr) e.stream_id = hooks_.stream_id(record.pool_handle);
    e.window_size = record.window_size;
    e.waited_offset = static_cast<std::uint32_t>(waited_.size());
    e.waited_count = static_cast<std::uint32_t>(record.waited_count);
    for (std::size_t i = 0; i < record.waited_count; ++i)
      waited_.push_back(external_id(tag_, record.waited_for[i]));
    entries_.push_back(e);
  } catch (...) {  // out of memory: lose this entry, keep the lists consistent
    ++dropped_;
    if (!entries_.empty()) {
      const dispatch_entry& last = entries_.back();
      waited_.resize(last.waited_offset + last.waited_count);
    } else {
      waited_.clear();
    }
  }
}

void observer::copy_into(snapshot& out) const {
  std::lock_guard lock(mutex_);
  const auto base = static_cast<std::uint32_t>(out.waited.size());
  out.waited.insert(out.waited.end(), waited_.begin(), waited_.end());
  out.dispatches.reserve(out.dispatches.size() + entries_.size());
  for (dispatch_entry e : entries_) {
    e.waited_offset += base;
    out.dispatches.push_back(e);
  }
  out.dropped += dropped_;
}

}  // namespace acs::trace
