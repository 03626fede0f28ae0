// What a test reads of the simulated device: races explained, memory, spans, the streams
// kernels ran on, counters.
#include <algorithm>
#include <sstream>

#include "sim_device.hpp"

namespace acs::sim {

std::vector<race> sim_device::races() const {
  std::lock_guard lock(mutex_);
  return checker_.races();
}

std::string sim_device::describe_stream(stream_handle s) const {
  const stream_state& st = streams_[s];
  std::ostringstream out;
  switch (st.origin) {
    case stream_origin::legacy: out << "the legacy stream"; break;
    case stream_origin::pool: out << "pool stream " << s; break;
    case stream_origin::app: out << "app stream " << s << " (" << name(st.kind) << ')'; break;
    case stream_origin::graph: out << "graph node lane " << s; break;
  }
  if (config_.devices > 1) out << " of device " << st.device;
  return out.str();
}

std::string sim_device::describe_op(std::uint64_t id) const {
  if (id == host_op) return "a host read";
  const op& o = ops_[id];
  static constexpr const char* names[] = {"kernel", "library call", "host function", "copy",
                                          "fill",   "marker",       "event record",  "event wait"};
  std::ostringstream out;
  out << "op " << id << " (" << names[static_cast<int>(o.kind)];
  if (o.kind == op_kind::kernel || o.kind == op_kind::library_call || o.kind == op_kind::host_function)
    out << ' ' << o.kernel_id;
  out << " on " << describe_stream(o.stream) << ", t=" << o.start << ".." << o.end << "ns)";
  return out.str();
}

std::string sim_device::explain(const race& r) const {
  std::lock_guard lock(mutex_);
  const bool first_wrote = r.kind != race_kind::write_after_read;
  const bool then_wrote = r.kind != race_kind::read_after_write;
  return "race on cell " + std::to_string(r.where) + ": " + describe_op(r.earlier) +
         (first_wrote ? " wrote it, " : " read it, ") + "then " + describe_op(r.later) +
         (then_wrote ? " wrote it" : " read it") + ", and neither is ordered before the other";
}

std::string sim_device::explain_races(std::size_t max) const {
  std::string out;
  const std::vector<race> all = races();
  for (std::size_t i = 0; i < all.size() && i < max; ++i) out += explain(all[i]) + "\n";
  if (all.size() > max) out += "... and " + std::to_string(all.size() - max) + " more\n";
  return out;
}

std::vector<value> sim_device::memory() const {
  std::lock_guard lock(mutex_);
  return memory_;
}

std::vector<memory_effect> sim_device::issued_effects() const {
  std::lock_guard lock(mutex_);
  std::vector<memory_effect> out;
  out.reserve(effect_ops_.size());
  for (std::uint64_t id : effect_ops_) out.push_back(ops_[id].effect);
  return out;
}

std::optional<op_span> sim_device::kernel_span(std::uint64_t kernel_id) const {
  std::lock_guard lock(mutex_);
  const auto it = latest_run_.find(kernel_id);
  if (it == latest_run_.end() || ops_[it->second].at == phase::waiting) return std::nullopt;
  const op& o = ops_[it->second];
  return op_span{o.start, o.at == phase::done ? o.end : o.start + o.duration};
}

unsigned sim_device::launches(std::uint64_t kernel_id) const {
  std::lock_guard lock(mutex_);
  const auto it = launch_counts_.find(kernel_id);
  return it == launch_counts_.end() ? 0 : it->second;
}

std::optional<stream_handle> sim_device::kernel_stream(std::uint64_t kernel_id) const {
  std::lock_guard lock(mutex_);
  const auto it = latest_run_.find(kernel_id);
  if (it == latest_run_.end()) return std::nullopt;
  if (const auto node = node_launch_stream_.find(it->second); node != node_launch_stream_.end()) return node->second;
  return ops_[it->second].stream;
}

int sim_device::priority(stream_handle stream) const {
  std::lock_guard lock(mutex_);
  return stream < streams_.size() ? streams_[stream].priority : 0;
}

bool sim_device::is_pool_stream(stream_handle stream) const {
  std::lock_guard lock(mutex_);
  return stream < streams_.size() && streams_[stream].origin == stream_origin::pool;
}

bool sim_device::deadlocked() const {
  std::lock_guard lock(mutex_);
  return !deadlock_.empty();
}

std::string sim_device::deadlock_report() const {
  std::lock_guard lock(mutex_);
  return deadlock_;
}

std::vector<sim_device::queued_pair> sim_device::queued_behind() const {
  std::lock_guard lock(mutex_);
  return queued_behind_;
}

nanos sim_device::now() const {
  std::lock_guard lock(mutex_);
  return now_;
}

nanos sim_device::last_completion() const {
  std::lock_guard lock(mutex_);
  return last_completion_;
}

unsigned sim_device::peak_concurrency() const {
  std::lock_guard lock(mutex_);
  return *std::max_element(peak_slots_.begin(), peak_slots_.end());
}

unsigned sim_device::peak_concurrency(unsigned device) const {
  std::lock_guard lock(mutex_);
  return device < peak_slots_.size() ? peak_slots_[device] : 0;
}

sim_device::call_counts sim_device::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

}  // namespace acs::sim
