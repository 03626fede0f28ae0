#include "src/runtime/background.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace acs::background {

namespace {

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

}  // namespace

bool post(std::function<void()> job) noexcept {
  try {
    worker& w = the_worker();
    {
      std::lock_guard lock(w.mutex);
      if (!w.started) {
        std::thread([&w] { w.run(); }).detach();
        w.started = true;
      }
      w.jobs.push_back(std::move(job));
    }
    w.ready.notify_one();
    return true;
  } catch (...) {  // no thread, no memory: the work is done when first needed instead
    return false;
  }
}

}  // namespace acs::background
