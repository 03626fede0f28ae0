#include "src/runtime/background.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "scheduler/thread_name.hpp"

namespace acs::background {

namespace {

constinit std::atomic<std::uint64_t> begun{0};

struct worker {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::function<void()>> jobs;
  bool started = false;

  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return !jobs.empty(); });
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      begun.fetch_add(1, std::memory_order_relaxed);
      try {
        job();
      } catch (...) {  // a job's failure is its own: the next one runs
      }
    }
  }
};

worker& the_worker() {
  static auto* const w = new worker;  // never destroyed (see header)
  return *w;
}

// Under w.mutex.
void start_locked(worker& w) {
  if (w.started) return;
  std::thread([&w] {
    name_this_thread("acs-background");
    w.run();
  }).detach();
  w.started = true;
}

}  // namespace

std::uint64_t jobs_begun() noexcept { return begun.load(std::memory_order_relaxed); }

void start() noexcept {
  try {
    worker& w = the_worker();
    std::lock_guard lock(w.mutex);
    start_locked(w);
  } catch (...) {  // no thread now: post() tries again
  }
}

bool post(std::function<void()> job) noexcept {
  try {
    worker& w = the_worker();
    {
      std::lock_guard lock(w.mutex);
      start_locked(w);
      w.jobs.push_back(std::move(job));
    }
    w.ready.notify_one();
    return true;
  } catch (...) {  // no thread, no memory: the work is done when first needed instead
    return false;
  }
}

}  // namespace acs::background
