#include "trace_join.hpp"

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
  for (const copy_record& c : data.copies) base = std::min(base, c.start_ns);
  for (const dispatch_entry& d : data.dispatches) {
    if (d.host_ns != 0) base = std::min(base, d.host_ns);
    if (!v.kernel_of_external.contains(d.external)) ++v.dispatched_without_kernel;
  }
  v.base_ns = base == std::numeric_limits<std::uint64_t>::max() ? 0 : base;
  return v;
}

}  // namespace acs::trace
