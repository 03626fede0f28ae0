#pragma once
// A bounded, thread-safe free list. Objects made on one thread and finished on another (a launch
// copied on the application's thread, issued on acs's) are reused instead of freed, so that the
// steady state does not allocate: a copied launch made three allocations, a quarter of a pool
// launch's host time on the fake driver. Taking and giving back cost one uncontended lock each:
// a futex_lock, one atomic instruction inline (std::mutex's two calls into libc were about 170 of a
// replayed launch's 2,900 instructions, scripts/launch_instructions.sh).
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "src/support/futex_lock.hpp"

namespace acs {

template <class T>
class recycler {
 public:
  // At most `capacity` objects wait for reuse; more given back are freed.
  explicit recycler(std::size_t capacity) : capacity_(capacity) { spare_.reserve(capacity); }
  recycler(const recycler&) = delete;
  recycler& operator=(const recycler&) = delete;

  /// @brief A spare object as it was given back (its members keep their capacity), or a new one.
  std::unique_ptr<T> take() {
    {
      std::lock_guard lock(mutex_);
      if (!spare_.empty()) {
        std::unique_ptr<T> p = std::move(spare_.back());
        spare_.pop_back();
        return p;
      }
    }
    return std::make_unique<T>();
  }

  /// @brief Keeps `p` for reuse, or frees it when `capacity` objects wait already.
  void give(std::unique_ptr<T> p) noexcept {
    if (p == nullptr) return;
    std::lock_guard lock(mutex_);
    if (spare_.size() < capacity_) spare_.push_back(std::move(p));  // reserved: never reallocates
  }

  /// @brief Keeps the `n` objects `object(0)`..`object(n - 1)` (T*, owned by the caller until
  /// now) for reuse, under one lock: a thread that finishes many at once (a graph's kernels) takes
  /// the lock's cache line from the thread that takes them once, not once per object. Those beyond
  /// `capacity` are freed.
  template <class ObjectAt>
  void give_all(std::size_t n, ObjectAt object) noexcept {
    std::size_t i = 0;
    {
      std::lock_guard lock(mutex_);
      for (; i < n && spare_.size() < capacity_; ++i) spare_.emplace_back(object(i));  // reserved
    }
    for (; i < n; ++i) delete object(i);
  }

  /// @brief How many objects wait for reuse.
  std::size_t spare() const {
    std::lock_guard lock(mutex_);
    return spare_.size();
  }

 private:
  const std::size_t capacity_;
  mutable futex_lock mutex_;
  std::vector<std::unique_ptr<T>> spare_;
};

}  // namespace acs
