// acs.torch's compiled part (built by torch.utils.cpp_extension, python/acs/torch/_build.py).
// It does not link libacs.so: every acs call goes through include/acs/acs.h's run-time
// look-up, and without libacs.so in the process enable() installs nothing at all.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "integration.hpp"

namespace py = pybind11;

namespace {

// Installs the operator callback when libacs.so is loaded and active. Returns what it did.
std::string enable(bool cpu_tensors, std::vector<std::string> trusted) {
  if (!acs_detail_loaded()) return "acs not loaded";
  if (!acs_active()) return "acs not active";
  acs_torch::options o;
  o.cpu_tensors = cpu_tensors;
  o.trusted = std::move(trusted);
  return acs_torch::install_callbacks(o) ? "enabled" : "failed to install the operator callback";
}

py::dict counters() {
  const acs_torch::op_counters c = acs_torch::counters();
  const acs_torch::block_counters b = acs_torch::tracker_counters();
  py::dict d;
  d["operators"] = c.operators;
  d["declared"] = c.declared;
  d["everything"] = c.everything;
  d["ranges"] = c.ranges;
  d["blocks_allocated"] = b.allocated;
  d["blocks_freed"] = b.freed;
  d["segments_released"] = b.segments_released;
  return d;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "acs.torch: declares each PyTorch operator's tensors to acs, and the caching allocator's blocks";
  m.def("loaded", [] { return acs_detail_loaded() != 0; }, "whether libacs.so is in the process");
  m.def("active", [] { return acs_active() != 0; }, "whether libacs.so is loaded and active");
  m.def("enable", &enable, py::arg("cpu_tensors") = false,
        py::arg("trusted") = std::vector<std::string>{"aten", "prims", "torchvision"});
  m.def("disable", &acs_torch::remove_callbacks);
  m.def("installed", &acs_torch::callbacks_installed);
  m.def("open_operators", &acs_torch::open_operators, "operators open on this thread (tests)");
  m.def("attach_allocator", &acs_torch::attach_allocator_tracker);
  m.def("counters", &counters);
#if defined(ACS_TORCH_WITH_CUDA)
  m.attr("with_cuda") = true;
#else
  m.attr("with_cuda") = false;
#endif
}
