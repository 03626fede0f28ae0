#include "annotations/declared/launch_view.hpp"

#include <fmt/format.h>

#include "annotations/inferred/allocation_map.hpp"
#include "annotations/declared/services.hpp"

namespace acs::annotations {

namespace {

class process_launch_view final : public launch_view {
 public:
  bool pointer_arguments(CUfunction function, void* const* params, void* const* extra,
                         std::vector<inference::pointer_argument>& out) noexcept override {
    const auto query = services().pointer_arguments;
    return query != nullptr && query(function, params, extra, out);
  }

  bool allocated(const byte_range& r) noexcept override {
    try {
      const allocation_map::reader map(device_allocations());
      const auto a = map.find(r.first);
      return a && r.last <= a->last;
    } catch (...) {
      return true;  // cannot tell: no warning
    }
  }

  std::string kernel_name(CUfunction function) noexcept override {
    try {
      const auto name_of = services().kernel_name;
      return describe_kernel(function, name_of != nullptr ? name_of(function) : nullptr);
    } catch (...) {
      return {};
    }
  }
};

}  // namespace

launch_view& process_view() noexcept {
  static auto* const view = new process_launch_view;
  return *view;
}

std::string describe_kernel(CUfunction function, const char* name) {
  if (name != nullptr && *name != '\0') return fmt::format("kernel {}", name);
  return fmt::format("kernel at {}", static_cast<const void*>(function));
}

}  // namespace acs::annotations
