#include "src/trace/join.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace acs::trace {

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? std::string(text) : name;
  std::free(text);
  return out;
}

namespace {

// Without correlation records (CUPTI gives none for launches made inside a
// statically linked runtime's call), kernels on a pool stream are matched to
// the dispatches on it in order: a stream runs its kernels in issue order, and
// only acs launches on its pool streams.
void join_by_stream_order(const snapshot& data, trace_view& v) {
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> dispatches_on;  // (device, stream) -> indices
  auto key = [](std::uint32_t device, std::uint32_t stream) { return std::uint64_t{device} << 32 | stream; };
  for (std::size_t i = 0; i < data.dispatches.size(); ++i) {
    const dispatch_entry& d = data.dispatches[i];
    if (d.stream_id != 0xffffffffu) dispatches_on[key(d.device, d.stream_id)].push_back(static_cast<std::uint32_t>(i));
  }
  if (dispatches_on.empty()) return;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> kernels_on;
  for (std::size_t i = 0; i < data.kernels.size(); ++i) {
    const kernel_record& k = data.kernels[i];
    if (dispatches_on.contains(key(k.device, k.stream))) kernels_on[key(k.device, k.stream)].push_back(static_cast<std::uint32_t>(i));
  }
  for (auto& [stream, kernels] : kernels_on) {
    std::sort(kernels.begin(), kernels.end(),
              [&](std::uint32_t a, std::uint32_t b) { return data.kernels[a].start_ns < data.kernels[b].start_ns; });
    std::vector<std::uint32_t>& dispatches = dispatches_on[stream];
    std::sort(dispatches.begin(), dispatches.end(), [&](std::uint32_t a, std::uint32_t b) {
      return data.dispatches[a].external < data.dispatches[b].external;
    });
    const std::size_t n = std::min(kernels.size(), dispatches.size());
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t external = data.dispatches[dispatches[j]].external;
      v.kernel_external[kernels[j]] = external;
      v.kernel_dispatch[kernels[j]] = dispatches[j];
      v.kernel_of_external.emplace(external, kernels[j]);
    }
  }
}

}  // namespace

trace_view join(const snapshot& data) {
  trace_view v;
  v.data = &data;
  v.display_names.reserve(data.names.size());
  for (const std::string& n : data.names) v.display_names.push_back(demangle(n));

  std::unordered_map<std::uint32_t, std::uint64_t> external_of;
  external_of.reserve(data.correlations.size());
  for (const correlation_record& c : data.correlations) external_of.emplace(c.correlation, c.external);

  std::unordered_map<std::uint64_t, std::uint32_t> dispatch_of;
  dispatch_of.reserve(data.dispatches.size());
  for (std::size_t i = 0; i < data.dispatches.size(); ++i)
    dispatch_of.emplace(data.dispatches[i].external, static_cast<std::uint32_t>(i));

  std::uint64_t base = std::numeric_limits<std::uint64_t>::max();
  v.kernel_external.assign(data.kernels.size(), 0);
  v.kernel_dispatch.assign(data.kernels.size(), no_index);
  v.kernel_of_external.reserve(data.dispatches.size());
  for (std::size_t i = 0; i < data.kernels.size(); ++i) {
    const kernel_record& k = data.kernels[i];
    base = std::min(base, k.start_ns);
    const auto e = external_of.find(k.correlation);
    if (e == external_of.end()) continue;
    v.kernel_external[i] = e->second;
    v.kernel_of_external.emplace(e->second, static_cast<std::uint32_t>(i));
    if (const auto d = dispatch_of.find(e->second); d != dispatch_of.end()) v.kernel_dispatch[i] = d->second;
  }
  if (data.correlations.empty()) join_by_stream_order(data, v);
  for (const copy_record& c : data.copies) base = std::min(base, c.start_ns);
  for (const dispatch_entry& d : data.dispatches) {
    if (d.host_ns != 0) base = std::min(base, d.host_ns);
    if (!v.kernel_of_external.contains(d.external)) ++v.dispatched_without_kernel;
  }
  v.base_ns = base == std::numeric_limits<std::uint64_t>::max() ? 0 : base;
  return v;
}

}  // namespace acs::trace
