#pragma once
// The Chrome trace event format (JSON object form), as read by ui.perfetto.dev
// and chrome://tracing. Pure code, no CUDA.
//
//   pid  = device ("GPU 0"), tid = CUPTI stream id, one lane per CUDA stream:
//          "pool stream P" for acs's pool streams, "stream S" for others;
//   X    kernels (cat "kernel"), memcpys (cat "memcpy"), memsets (cat "memset");
//        kernels dispatched by acs carry args acs="dispatched", launch_id,
//        vstream (the application stream's key), pool_stream, waited_for
//        (launch ids), window; others carry acs="direct";
//   s/f  one flow (cat "dependency") per dependency a dispatched kernel waited
//        for, from the producer's slice to the consumer's;
//   C    counters per device: "window occupancy" (entries, sampled at each
//        dispatch) and "kernels running" (from the kernels' intervals);
//   ts/dur in microseconds (3 decimals: ns resolution) from the first record.
// otherData holds the run's totals and, when given, the measured figures.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "src/trace/join.hpp"
#include "src/trace/measure.hpp"

namespace acs::trace {

using json_sink = std::function<void(std::string_view)>;

struct trace_metadata {
  std::string source;  // where the records came from ("CUPTI", "synthetic ...")
};

/// @brief Writes the whole trace to `sink`, in chunks. `figures` may be null.
void write_chrome_trace(const trace_view& view, const measured* figures, const trace_metadata& meta,
                        const json_sink& sink);

/// @brief Appends `text` as a JSON string literal: quoted, escaped, invalid UTF-8 replaced by U+FFFD.
void append_json_string(std::string& out, std::string_view text);

/// @brief Appends `ns` nanoseconds as microseconds with three decimals ("12.345").
void append_us(std::string& out, std::uint64_t ns);

}  // namespace acs::trace
