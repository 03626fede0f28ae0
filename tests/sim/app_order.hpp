#pragma once
// The application's own happens-before order, at the level of its virtual
// streams: stream order, event record -> wait, the legacy stream's implicit
// synchronisation with blocking streams (of one device), and host syncs. The program generator
// asks it whether an operation would race with earlier work of another stream,
// so that it can order them first, as a correct application would.
#include <cstdint>
#include <optional>
#include <vector>

#include "memory_effect.hpp"
#include "scheduler/scheduler.hpp"
#include "vector_clock.hpp"

namespace acs::sim {

class app_order {
 public:
  // `devices`: each stream's device (empty: all on one).
  app_order(std::vector<stream_kind> kinds, unsigned events, std::uint32_t cells, std::vector<unsigned> devices = {});

  // The streams holding earlier accesses that an operation on `v` with this
  // footprint would conflict with without being ordered after them.
  std::vector<unsigned> unordered(unsigned v, const std::vector<cell>& reads,
                                  const std::vector<cell>& writes) const;

  void issue(unsigned v, const std::vector<cell>& reads, const std::vector<cell>& writes);
  void record(unsigned v, unsigned event);
  void wait(unsigned v, unsigned event);  // no-op for a never-recorded event, as in CUDA

  void sync_stream(unsigned v) { host_.join(clocks_.at(v)); }
  void sync_event(unsigned event);
  void sync_device();                 // every device
  void sync_device(unsigned device);  // that device's streams (what their work waited for too)

  // The stream whose unsynchronised write the host would read, if any.
  std::optional<unsigned> host_unordered_writer(cell c) const;

  void add_cells(std::uint32_t count) { cells_.resize(cells_.size() + count); }

 private:
  struct access {
    unsigned stream = 0;
    std::uint32_t tick = 0;
  };
  struct history {
    std::optional<access> last_write;
    std::vector<access> reads;  // since the last write; the latest per stream
  };

  vector_clock next_clock(unsigned v) const;
  void advance(unsigned v, vector_clock c);

  std::vector<stream_kind> kinds_;
  std::vector<unsigned> devices_;
  std::vector<vector_clock> clocks_;  // of each stream's latest operation
  std::vector<std::uint32_t> ticks_;
  std::vector<std::optional<vector_clock>> events_;
  vector_clock host_;
  std::vector<history> cells_;
};

}  // namespace acs::sim
