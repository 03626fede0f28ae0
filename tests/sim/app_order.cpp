#include "app_order.hpp"

#include <algorithm>

namespace acs::sim {

app_order::app_order(std::vector<stream_kind> kinds, unsigned events, std::uint32_t cells,
                     std::vector<unsigned> devices)
    : kinds_(std::move(kinds)),
      devices_(devices.empty() ? std::vector<unsigned>(kinds_.size(), 0) : std::move(devices)),
      clocks_(kinds_.size()),
      ticks_(kinds_.size(), 0),
      events_(events),
      cells_(cells) {}

// What an operation issued on `v` now would happen after.
vector_clock app_order::next_clock(unsigned v) const {
  vector_clock c = clocks_[v];
  c.join(host_);
  for (unsigned u = 0; u < kinds_.size(); ++u) {
    const bool implicit = (kinds_[v] == stream_kind::legacy && kinds_[u] == stream_kind::blocking) ||
                          (kinds_[v] == stream_kind::blocking && kinds_[u] == stream_kind::legacy);
    if (implicit && devices_[u] == devices_[v]) c.join(clocks_[u]);  // each device has its own legacy stream
  }
  return c;
}

void app_order::advance(unsigned v, vector_clock c) {
  c.set(v, ++ticks_[v]);
  clocks_[v] = std::move(c);
}

std::vector<unsigned> app_order::unordered(unsigned v, const std::vector<cell>& reads,
                                           const std::vector<cell>& writes) const {
  const vector_clock c = next_clock(v);
  std::vector<unsigned> out;
  const auto check = [&](const access& a) {
    if (a.stream != v && c.get(a.stream) < a.tick && std::find(out.begin(), out.end(), a.stream) == out.end())
      out.push_back(a.stream);
  };
  for (cell x : reads)
    if (cells_.at(x).last_write) check(*cells_[x].last_write);
  for (cell x : writes) {
    if (cells_.at(x).last_write) check(*cells_[x].last_write);
    for (const access& r : cells_[x].reads) check(r);
  }
  return out;
}

void app_order::issue(unsigned v, const std::vector<cell>& reads, const std::vector<cell>& writes) {
  advance(v, next_clock(v));
  const access me{v, ticks_[v]};
  for (cell x : reads) {
    std::vector<access>& rs = cells_.at(x).reads;
    const auto same = std::find_if(rs.begin(), rs.end(), [&](const access& r) { return r.stream == v; });
    if (same != rs.end()) {
      *same = me;
    } else {
      rs.push_back(me);
    }
  }
  for (cell x : writes) {
    cells_.at(x).last_write = me;
    cells_[x].reads.clear();
  }
}

void app_order::record(unsigned v, unsigned event) {
  issue(v, {}, {});
  events_.at(event) = clocks_[v];
}

void app_order::wait(unsigned v, unsigned event) {
  if (!events_.at(event)) return;
  vector_clock c = next_clock(v);
  c.join(*events_[event]);
  advance(v, std::move(c));
}

void app_order::sync_event(unsigned event) {
  if (events_.at(event)) host_.join(*events_[event]);
}

void app_order::sync_device() {
  for (const vector_clock& c : clocks_) host_.join(c);
}

void app_order::sync_device(unsigned device) {
  for (unsigned v = 0; v < clocks_.size(); ++v)
    if (devices_[v] == device) host_.join(clocks_[v]);
}

std::optional<unsigned> app_order::host_unordered_writer(cell c) const {
  const auto& w = cells_.at(c).last_write;
  if (w && host_.get(w->stream) < w->tick) return w->stream;
  return std::nullopt;
}

}  // namespace acs::sim
