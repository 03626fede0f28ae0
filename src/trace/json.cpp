#include "src/trace/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

namespace acs::trace {

namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

// Length of the valid UTF-8 sequence at s[i], or 0 if it is not valid.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // bounds of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

template <typename T>
void append_int(std::string& out, T value) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, r.ptr);
}

void append_double(std::string& out, double value) {
  if (!std::isfinite(value)) value = 0.0;  // JSON has no NaN or infinity
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", value);
  out += buf;
}

void append_hex(std::string& out, std::uintptr_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"0x%llx\"", static_cast<unsigned long long>(value));
  out += buf;
}

struct lane_key {
  std::uint32_t device;
  std::uint32_t stream;
  bool operator<(const lane_key& o) const {
    return device != o.device ? device < o.device : stream < o.stream;
  }
};

class writer {
 public:
  writer(const trace_view& v, const measured* m, const trace_metadata& meta, const json_sink& sink)
      : v_(v), d_(*v.data), m_(m), meta_(meta), sink_(sink) {}

  void run() {
    out_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":";
    other_data();
    out_ += ",\n\"traceEvents\":[";
    metadata();
    kernels();
    copies();
    flows();
    window_counter();
    running_counter();
    out_ += "\n]}\n";
    sink_(out_);
  }

 private:
  // Starts the next event: separator, and a chunk handed to the sink when full.
  std::string& event() {
    if (out_.size() >= chunk_bytes) {
      sink_(out_);
      out_.clear();
    }
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
    return out_;
  }

  std::uint64_t rel(std::uint64_t ns) const { return ns > v_.base_ns ? ns - v_.base_ns : 0; }

  void where(std::uint32_t pid, std::uint32_t tid, std::uint64_t ts_ns) {
    out_ += ",\"pid\":";
    append_int(out_, pid);
    out_ += ",\"tid\":";
    append_int(out_, tid);
    out_ += ",\"ts\":";
    append_us(out_, rel(ts_ns));
  }

  void other_data() {
    out_ += "{\"generator\":\"acs\",\"source\":";
    append_json_string(out_, meta_.source);
    out_ += ",\"time_unit\":\"us from the first record\",\"base_ns\":";
    append_int(out_, v_.base_ns);
    out_ += ",\"kernels\":";
    append_int(out_, d_.kernels.size());
    out_ += ",\"copies\":";
    append_int(out_, d_.copies.size());
    out_ += ",\"dispatches\":";
    append_int(out_, d_.dispatches.size());
    out_ += ",\"dropped\":";
    append_int(out_, d_.dropped);
    out_ += ",\"incomplete\":";
    append_int(out_, d_.incomplete);
    if (m_ != nullptr) {
      out_ += ",\"achieved_concurrency\":";
      append_double(out_, m_->achieved_concurrency);
      out_ += ",\"busy_fraction\":";
      append_double(out_, m_->busy_fraction);
      out_ += ",\"peak_concurrency\":";
      append_int(out_, m_->peak_concurrency);
    }
    out_ += "}";
  }

  // Process and lane names; pool lanes first, in pool order.
  void metadata() {
    std::map<lane_key, std::uint32_t> pool_of;  // lane -> pool index, for pool lanes
    std::map<std::uint32_t, bool> devices;
    std::map<lane_key, bool> lanes;
    for (std::size_t i = 0; i < d_.kernels.size(); ++i) {
      const kernel_record& k = d_.kernels[i];
      lanes[{k.device, k.stream}] = true;
      devices[k.device] = true;
      if (const std::uint32_t di = v_.kernel_dispatch[i]; di != no_index)
        pool_of[{k.device, k.stream}] = d_.dispatches[di].pool_stream;
    }
    for (const copy_record& c : d_.copies) {
      lanes[{c.device, c.stream}] = true;
      devices[c.device] = true;
    }
    for (const dispatch_entry& e : d_.dispatches) devices[e.device] = true;
    for (const auto& [dev, unused] : devices) {
      event() += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
      append_int(out_, dev);
      out_ += ",\"args\":{\"name\":\"GPU ";
      append_int(out_, dev);
      out_ += "\"}}";
      event() += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
      append_int(out_, dev);
      out_ += ",\"args\":{\"sort_index\":";
      append_int(out_, dev);
      out_ += "}}";
    }
    for (const auto& [lane, unused] : lanes) {
      const auto pool = pool_of.find(lane);
      const std::string name = pool != pool_of.end() ? "pool stream " + std::to_string(pool->second)
                                                     : "stream " + std::to_string(lane.stream);
      const std::uint64_t order = pool != pool_of.end() ? pool->second : 1000 + std::uint64_t{lane.stream};
      lane_metadata("thread_name", lane.device, lane.stream, "name");
      append_json_string(out_, name);
      out_ += "}}";
      lane_metadata("thread_sort_index", lane.device, lane.stream, "sort_index");
      append_int(out_, order);
      out_ += "}}";
    }
  }

  template <typename Record>
  std::vector<std::uint32_t> by_start(const std::vector<Record>& records) const {
    std::vector<std::uint32_t> order(records.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return records[a].start_ns < records[b].start_ns;
    });
    return order;
  }

  void kernels() {
    for (const std::uint32_t i : by_start(d_.kernels)) {
      const kernel_record& k = d_.kernels[i];
      if (k.end_ns <= k.start_ns) continue;
      event() += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":";
      append_json_string(out_, k.name < v_.display_names.size() ? v_.display_names[k.name] : "(unknown)");
      where(k.device, k.stream, k.start_ns);
      out_ += ",\"dur\":";
      append_us(out_, k.end_ns - k.start_ns);
      out_ += ",\"args\":{";
      if (const std::uint32_t di = v_.kernel_dispatch[i]; di != no_index) {
        const dispatch_entry& e = d_.dispatches[di];
        out_ += "\"acs\":\"dispatched\",\"launch_id\":";
        append_int(out_, launch_of(e.external));
        out_ += ",\"vstream\":";
        append_hex(out_, e.vstream);
        out_ += ",\"pool_stream\":";
        append_int(out_, e.pool_stream);
        out_ += ",\"waited_for\":[";
        for (std::uint32_t w = 0; w < e.waited_count; ++w) {
          if (w > 0) out_ += ",";
          append_int(out_, launch_of(d_.waited[e.waited_offset + w]));
        }
        out_ += "],\"window\":";
        append_int(out_, e.window_size);
      } else if (v_.kernel_external[i] != 0) {
        out_ += "\"acs\":\"dispatched\",\"launch_id\":";  // its dispatch entry was lost
        append_int(out_, launch_of(v_.kernel_external[i]));
      } else {
        out_ += "\"acs\":\"direct\"";
      }
      end_args(k.stream, k.correlation);
    }
  }

  // A metadata event of one lane (a track of a device), up to its one argument's value.
  void lane_metadata(const char* what, std::uint64_t device, std::uint64_t stream, const char* argument) {
    event() += "{\"ph\":\"M\",\"name\":\"";
    out_ += what;
    out_ += "\",\"pid\":";
    append_int(out_, device);
    out_ += ",\"tid\":";
    append_int(out_, stream);
    out_ += ",\"args\":{\"";
    out_ += argument;
    out_ += "\":";
  }

  // The arguments every slice ends with, and the end of the slice.
  void end_args(std::uint64_t stream, std::uint64_t correlation) {
    out_ += ",\"stream\":";
    append_int(out_, stream);
    out_ += ",\"correlation\":";
    append_int(out_, correlation);
    out_ += "}}";
  }

  void copies() {
    for (const std::uint32_t i : by_start(d_.copies)) {
      const copy_record& c = d_.copies[i];
      if (c.end_ns <= c.start_ns) continue;
      event() += "{\"ph\":\"X\",\"cat\":";
      out_ += c.kind == copy_kind::memset ? "\"memset\"" : "\"memcpy\"";
      out_ += ",\"name\":";
      append_json_string(out_, c.name < d_.names.size() ? d_.names[c.name] : "(unknown)");
      where(c.device, c.stream, c.start_ns);
      out_ += ",\"dur\":";
      append_us(out_, c.end_ns - c.start_ns);
      out_ += ",\"args\":{\"bytes\":";
      append_int(out_, c.bytes);
      end_args(c.stream, c.correlation);
    }
  }

  // Flows bind to the slice enclosing their timestamp: use each slice's middle.
  void flows() {
    std::uint64_t id = 0;
    for (std::size_t i = 0; i < d_.kernels.size(); ++i) {
      const std::uint32_t di = v_.kernel_dispatch[i];
      if (di == no_index) continue;
      const kernel_record& to = d_.kernels[i];
      if (to.end_ns <= to.start_ns) continue;
      const dispatch_entry& e = d_.dispatches[di];
      for (std::uint32_t w = 0; w < e.waited_count; ++w) {
        const auto from_it = v_.kernel_of_external.find(d_.waited[e.waited_offset + w]);
        if (from_it == v_.kernel_of_external.end()) continue;
        const kernel_record& from = d_.kernels[from_it->second];
        if (from.end_ns <= from.start_ns) continue;
        ++id;
        event() += "{\"ph\":\"s\",\"cat\":\"dependency\",\"name\":\"dependency\",\"id\":";
        append_int(out_, id);
        where(from.device, from.stream, from.start_ns + (from.end_ns - from.start_ns) / 2);
        out_ += "}";
        event() += "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"dependency\",\"name\":\"dependency\",\"id\":";
        append_int(out_, id);
        where(to.device, to.stream, to.start_ns + (to.end_ns - to.start_ns) / 2);
        out_ += "}";
      }
    }
  }

  void counter(const char* name, const char* key, std::uint32_t device, std::uint64_t ts_ns,
               std::uint64_t value) {
    event() += "{\"ph\":\"C\",\"name\":\"";
    out_ += name;
    out_ += "\",\"pid\":";
    append_int(out_, device);
    out_ += ",\"ts\":";
    append_us(out_, rel(ts_ns));
    out_ += ",\"args\":{\"";
    out_ += key;
    out_ += "\":";
    append_int(out_, value);
    out_ += "}}";
  }

  void window_counter() {
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < d_.dispatches.size(); ++i)
      if (d_.dispatches[i].host_ns != 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return d_.dispatches[a].host_ns < d_.dispatches[b].host_ns;
    });
    for (const std::uint32_t i : order) {
      const dispatch_entry& e = d_.dispatches[i];
      counter("window occupancy", "entries", e.device, e.host_ns, e.window_size);
    }
  }

  void running_counter() {
    std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, int>>> edges;
    for (const kernel_record& k : d_.kernels) {
      if (k.end_ns <= k.start_ns) continue;
      edges[k.device].emplace_back(k.start_ns, +1);
      edges[k.device].emplace_back(k.end_ns, -1);
    }
    for (auto& [device, list] : edges) {
      std::sort(list.begin(), list.end());
      std::int64_t running = 0;
      for (std::size_t i = 0; i < list.size(); ++i) {
        running += list[i].second;
        // One sample per timestamp, after all its edges.
        if (i + 1 == list.size() || list[i + 1].first != list[i].first)
          counter("kernels running", "kernels", device, list[i].first, static_cast<std::uint64_t>(running));
      }
    }
  }

  const trace_view& v_;
  const snapshot& d_;
  const measured* m_;
  const trace_metadata& meta_;
  const json_sink& sink_;
  std::string out_;
  bool first_ = true;
};

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if (const std::size_t n = utf8_length(text, i); n != 0) {
        out.append(text.substr(i, n));
        i += n;
      } else {
        out += "\\ufffd";
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

void append_us(std::string& out, std::uint64_t ns) {
  append_int(out, ns / 1000);
  const auto frac = static_cast<unsigned>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
}

void write_chrome_trace(const trace_view& view, const measured* figures, const trace_metadata& meta,
                        const json_sink& sink) {
  writer(view, figures, meta, sink).run();
}

}  // namespace acs::trace
