#pragma once
// The oracle's schedule for one stage, without CUDA (tested on the CPU by
// test_oracle_plan.cpp): which stream runs each op, which earlier ops' events it waits
// for, and which ops must record an event.
//
// Dependencies per buffer, as CUDASTF keeps them: a read waits for the last writer; a write
// waits for the last writer and for every reader since. Streams: the op's lane if it has one
// (a hand-written assignment), else the stream whose last op it depends on (a chain stays on
// its stream), else the next stream round-robin. A dependency on the same stream needs no
// wait; a wait is skipped when the stream already waited for a later op of the same other
// stream (streams run in order).
#include <cstddef>
#include <vector>

namespace acs_bench {

// One op's footprint as the planner sees it: buffer indices and an optional lane.
struct plan_input {
  const std::vector<int>* reads;
  const std::vector<int>* writes;
  int lane;  // -1: chosen by the planner
};

class oracle_plan {
 public:
  struct step {
    int stream = 0;
    bool first_on_stream = false;  // waits for the stage's fork event first
    bool record = false;           // records its event after its launch
    size_t wait_begin = 0, wait_end = 0;  // into waits(): ops whose events it waits for
  };

  void build(const std::vector<plan_input>& ops, int n_streams) {
    const size_t n = ops.size(), ns = (size_t)n_streams;
    steps_.assign(n, step{});
    waits_.clear();
    deps_.clear();
    dep_begin_.assign(n + 1, 0);
    tail_.assign(ns, -1);
    mark_.assign(n, -1);
    ++epoch_;
    for (size_t i = 0; i < n; ++i) {
      dep_begin_[i] = deps_.size();
      auto add_dep = [&](int d) {
        if (d >= 0 && mark_[(size_t)d] != (int)i) {
          mark_[(size_t)d] = (int)i;
          deps_.push_back(d);
        }
      };
      for (int id : *ops[i].reads) add_dep(last_writer(id));
      for (int id : *ops[i].writes) {
        add_dep(last_writer(id));
        for (int r : readers_[(size_t)id]) add_dep(r);
      }
      for (int id : *ops[i].reads) readers_[(size_t)id].push_back((int)i);
      for (int id : *ops[i].writes) {
        writer_[(size_t)id] = (int)i;
        readers_[(size_t)id].clear();
      }
      int chosen = -1;
      if (ops[i].lane >= 0) {
        chosen = ops[i].lane % n_streams;
      } else {
        for (size_t k = dep_begin_[i]; k < deps_.size() && chosen < 0; ++k) {
          const int d = deps_[k];
          if (tail_[(size_t)steps_[(size_t)d].stream] == d) chosen = steps_[(size_t)d].stream;
        }
        if (chosen < 0) chosen = next_stream_++ % n_streams;
      }
      steps_[i].stream = chosen;
      steps_[i].first_on_stream = tail_[(size_t)chosen] < 0;
      tail_[(size_t)chosen] = (int)i;
    }
    dep_begin_[n] = deps_.size();

    waited_.assign(ns * ns, -1);
    for (size_t i = 0; i < n; ++i) {
      const size_t si = (size_t)steps_[i].stream;
      steps_[i].wait_begin = waits_.size();
      for (size_t k = dep_begin_[i]; k < dep_begin_[i + 1]; ++k) {
        const int d = deps_[k];
        const size_t sd = (size_t)steps_[(size_t)d].stream;
        if (sd == si || waited_[si * ns + sd] >= d) continue;
        waits_.push_back(d);
        waited_[si * ns + sd] = d;
        steps_[(size_t)d].record = true;
      }
      steps_[i].wait_end = waits_.size();
    }
  }

  const std::vector<step>& steps() const { return steps_; }
  const std::vector<int>& waits() const { return waits_; }
  // Every true dependency of op i (for tests).
  std::vector<int> deps_of(size_t i) const {
    return {deps_.begin() + (long)dep_begin_[i], deps_.begin() + (long)dep_begin_[i + 1]};
  }

 private:
  // Per-buffer state is reset lazily: an epoch per stage.
  int last_writer(int id) {
    if ((size_t)id >= writer_.size()) {
      writer_.resize((size_t)id + 1, -1);
      readers_.resize((size_t)id + 1);
      epoch_of_.resize((size_t)id + 1, 0);
    }
    if (epoch_of_[(size_t)id] != epoch_) {
      epoch_of_[(size_t)id] = epoch_;
      writer_[(size_t)id] = -1;
      readers_[(size_t)id].clear();
    }
    return writer_[(size_t)id];
  }

  std::vector<step> steps_;
  std::vector<int> waits_, deps_, tail_, mark_, waited_;
  std::vector<size_t> dep_begin_;
  std::vector<int> writer_;
  std::vector<std::vector<int>> readers_;
  std::vector<unsigned> epoch_of_;
  unsigned epoch_ = 0;
  int next_stream_ = 0;
};

}  // namespace acs_bench
