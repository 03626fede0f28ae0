// Several devices on the simulated device: which device owns what, and the backend that a
// scheduler of one device is given (sim_device::device_backend).
#include <sstream>
#include <stdexcept>

#include "sim_device.hpp"

namespace acs::sim {

backend& sim_device::on(unsigned device) {
  std::lock_guard lock(mutex_);
  if (device >= config_.devices) throw std::out_of_range("sim_device::on: no such device");
  if (!views_[device]) views_[device] = std::make_unique<device_backend>(*this, device);
  return *views_[device];
}

void sim_device::assign_cells(cell first, std::uint32_t count, unsigned device) {
  std::lock_guard lock(mutex_);
  if (device != no_device && device >= config_.devices) throw std::out_of_range("assign_cells: no such device");
  if (first + count > config_.cells) throw std::out_of_range("assign_cells: no such cell");
  for (cell c = first; c < first + count; ++c) owner_[c] = device;
}

void sim_device::enable_peer_access(unsigned from, unsigned to) {
  std::lock_guard lock(mutex_);
  if (from >= config_.devices || to >= config_.devices) throw std::out_of_range("enable_peer_access: no such device");
  peer_access_.insert({from, to});
}

unsigned sim_device::device_of(stream_handle stream) const {
  std::lock_guard lock(mutex_);
  return stream < streams_.size() ? streams_[stream].device : no_device;
}

unsigned sim_device::event_device(event_handle event) const {
  std::lock_guard lock(mutex_);
  return event >= 1 && event <= events_.size() ? events_[event - 1].device : no_device;
}

std::vector<std::string> sim_device::misuses() const {
  std::lock_guard lock(mutex_);
  return misuses_;
}

// ---- a scheduler's backend --------------------------------------------------------------

bool sim_device::device_backend::own(const char* call, stream_handle stream, event_handle event) {
  const unsigned stream_device = sim_.device_of(stream);
  const unsigned event_device = event == 0 ? device_ : sim_.event_device(event);
  if (stream_device == device_ && event_device == device_) return true;
  std::ostringstream out;
  out << "the scheduler of device " << device_ << " called " << call << " with stream " << stream << " (of device "
      << static_cast<int>(stream_device) << ')';
  if (event != 0) out << " and event " << event << " (of device " << static_cast<int>(event_device) << ')';
  std::lock_guard lock(sim_.mutex_);
  sim_.misuses_.push_back(out.str());
  return false;
}

backend_status sim_device::device_backend::create_stream(stream_handle* out) {
  return sim_.new_pool_stream(out, 0, device_);
}

backend_status sim_device::device_backend::create_stream_with_priority(stream_handle* out, int priority) {
  return sim_.new_pool_stream(out, priority, device_);
}

backend_status sim_device::device_backend::create_event(event_handle* out) { return sim_.new_event(out, device_); }

backend_status sim_device::device_backend::record_event(event_handle event, stream_handle stream) {
  return own("record_event", stream, event) ? sim_.record_event(event, stream) : status_invalid_handle;
}

// Stricter than CUDA, which lets a stream wait for another device's event: acs's own waits are
// for its own events, on its own device's streams.
backend_status sim_device::device_backend::wait_event(stream_handle stream, event_handle event) {
  return own("wait_event", stream, event) ? sim_.wait_event(stream, event) : status_invalid_handle;
}

event_state sim_device::device_backend::query_event(event_handle event) {
  if (sim_.event_device(event) != device_) {
    own("query_event", sim_device::legacy_stream_of(device_), event);
    return event_state::error;
  }
  return sim_.query_event(event);
}

backend_status sim_device::device_backend::synchronize(stream_handle stream) {
  return own("synchronize", stream, 0) ? sim_.synchronize(stream) : status_invalid_handle;
}

backend_status sim_device::device_backend::launch(const void* kernel, stream_handle stream) {
  return own("launch", stream, 0) ? sim_.launch(kernel, stream) : status_invalid_handle;
}

const void* sim_device::device_backend::detach(const void* kernel) { return sim_.detach_on(kernel, device_); }

backend_status sim_device::device_backend::launch_detached(const void* copy, stream_handle stream) {
  if (own("launch_detached", stream, 0)) return sim_.launch_detached(copy, stream);
  sim_.release_detached(copy);  // the copy from detach is ours to free
  return status_invalid_handle;
}

bool sim_device::device_backend::describe(const void* kernel, kernel_identity* out) {
  return sim_.describe(kernel, out);
}

backend_status sim_device::device_backend::graph_instantiate(const graph_description& graph, graph_handle* out) {
  return sim_.graph_instantiate(graph, out);
}

backend_status sim_device::device_backend::graph_update(graph_handle exec, const graph_description& graph) {
  return sim_.graph_update(exec, graph);
}

std::size_t sim_device::device_backend::graph_changes(graph_handle exec, const graph_description& graph,
                                                      std::uint32_t* changed) {
  return sim_.graph_changes(exec, graph, changed);
}

backend_status sim_device::device_backend::graph_launch(graph_handle exec, stream_handle stream) {
  return own("graph_launch", stream, 0) ? sim_.graph_launch(exec, stream) : status_invalid_handle;
}

void sim_device::device_backend::graph_destroy(graph_handle exec) noexcept { sim_.graph_destroy(exec); }

void sim_device::device_backend::release_detached(const void* kernel) noexcept { sim_.release_detached(kernel); }

void sim_device::device_backend::destroy_stream(stream_handle stream) noexcept { sim_.destroy_stream(stream); }

void sim_device::device_backend::destroy_event(event_handle event) noexcept { sim_.destroy_event(event); }

}  // namespace acs::sim
