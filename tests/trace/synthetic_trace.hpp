#pragma once
// Builds tracer snapshots from synthetic records, as CUPTI and the dispatch
// observer would deliver them: a kernel dispatched by acs gets a kernel
// record, the external correlation record of its launch and a dispatch entry.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/trace/records.hpp"

namespace acs::trace::testing {

struct launch {
  std::uint64_t tag = 1;  // the observer's
  std::uint64_t id = 0;   // the scheduler's launch id
  std::uint32_t device = 0;
  std::uint32_t pool = 0;    // pool stream index
  std::uint32_t stream = 0;  // CUPTI stream id of that pool stream
  std::uintptr_t vstream = 0x1000;
  std::vector<std::uint64_t> waits = {};  // launch ids (same tag)
  std::uint32_t window = 1;
  std::uint64_t host_ns = 0;
};

class synthetic {
 public:
  synthetic() { data.names.emplace_back("(unknown)"); }

  name_id name(const std::string& text) {
    for (std::size_t i = 0; i < data.names.size(); ++i)
      if (data.names[i] == text) return static_cast<name_id>(i);
    data.names.push_back(text);
    return static_cast<name_id>(data.names.size() - 1);
  }

  /// A kernel that did not go through acs's pool (passed through, or acs disabled).
  std::uint32_t direct(const std::string& kernel, std::uint32_t device, std::uint32_t stream,
                       std::uint64_t start, std::uint64_t end) {
    data.kernels.push_back({start, end, device, stream, next_correlation_++, name(kernel)});
    return static_cast<std::uint32_t>(data.kernels.size() - 1);
  }

  /// A kernel dispatched by acs: kernel record, external correlation, dispatch entry.
  std::uint32_t dispatched(const std::string& kernel, const launch& l, std::uint64_t start,
                           std::uint64_t end) {
    const std::uint32_t c = next_correlation_++;
    data.kernels.push_back({start, end, l.device, l.stream, c, name(kernel)});
    data.correlations.push_back({c, external_id(l.tag, l.id)});
    dispatch_entry e;
    e.external = external_id(l.tag, l.id);
    e.host_ns = l.host_ns;
    e.vstream = l.vstream;
    e.device = l.device;
    e.pool_stream = l.pool;
    e.window_size = l.window;
    e.waited_offset = static_cast<std::uint32_t>(data.waited.size());
    e.waited_count = static_cast<std::uint32_t>(l.waits.size());
    for (const std::uint64_t w : l.waits) data.waited.push_back(external_id(l.tag, w));
    data.dispatches.push_back(e);
    return static_cast<std::uint32_t>(data.kernels.size() - 1);
  }

  void copy(copy_kind kind, const std::string& what, std::uint32_t device, std::uint32_t stream,
            std::uint64_t start, std::uint64_t end, std::uint64_t bytes) {
    data.copies.push_back({start, end, bytes, device, stream, next_correlation_++, name(what), kind});
  }

  snapshot data;

 private:
  std::uint32_t next_correlation_ = 100;
};

}  // namespace acs::trace::testing
