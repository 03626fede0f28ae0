#include "src/runtime/footprint.hpp"

#include "annotations/inferred/allocation_map.hpp"
#include "src/support/config.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/support/log.hpp"
#include "src/support/hot_path.hpp"

namespace acs {

namespace {

// What inference may assume, from the settings (read once).
const inference::inference_options& inference_settings() noexcept {
  static const inference::inference_options options{
      .trust_const = settings().infer == infer_mode::trust_const,
      .code_required = settings().no_ptx == no_ptx_mode::everything,
      .order_host_mapped = settings().host_mapped == host_mapped_mode::ordered,
  };
  return options;
}

// Every byte, read and written: the footprint that conflicts with everything (the vectors keep
// their capacity: the scratch footprint is reused by every launch of a thread).
void touch_everything(access_set& access) {
  access.reads.clear();
  access.writes.assign(1, whole_address_space);
}

}  // namespace

ACS_HOT void launch_passed_through() noexcept { declared::discard_pending(); }

bool plan_launch(const launch_request& request, declared::launch_footprint& out, bool may_wait) {
  if (declared::take(request.function, request.params, out, request.extra)) {
    // Declared or not, kernels on pinned host memory keep their order (docs/design.md rule 11).
    if (inference_settings().order_host_mapped) inference::order_host_memory(device_allocations(), out.access);
    return true;
  }
  access_set& access = out.access;
  if (settings().infer == infer_mode::off) {
    touch_everything(access);
    return true;
  }
  inference::code_needed();  // the PTX of the code loaded is read from now on (driver_inference.hpp)
  if (!may_wait && !inference::layout_ready(request.function)) {
    touch_everything(access);
    return false;
  }
  const inference::inference_result r =
      inference::infer(request.function, request.params, request.extra, inference_settings(), access);
  if (r == inference::inference_result::inferred) return true;
  ACS_LOG_DEBUG("{} of function {}: footprint unknown ({}); it waits for everything before it", request.api,
                static_cast<const void*>(request.function), inference::to_string(r));
  switch (r) {
    case inference::inference_result::unknown_pointer:
      log::print_once(log_level::info, "infer:unknown_pointer",
                      "a kernel argument points into device memory acs did not see allocated: such "
                      "kernels are ordered after everything before them");
      break;
    case inference::inference_result::no_layout:
      log::print_once(log_level::info, "infer:no_layout",
                      "a kernel's parameter layout cannot be read: such kernels are ordered after "
                      "everything before them");
      break;
    case inference::inference_result::no_code:
      log::print_once(log_level::info, "infer:no_code",
                      "a kernel whose code acs cannot read (no PTX: cuBLAS, cuDNN, ...) may reach memory "
                      "no argument shows: such kernels are ordered after everything before them "
                      "(ACS_NO_PTX=arguments trusts their arguments instead)");
      break;
    default: break;
  }
  return true;
}

}  // namespace acs
