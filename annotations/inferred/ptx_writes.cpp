#include "annotations/inferred/ptx_writes.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "annotations/inferred/ptx_entry.hpp"
#include "annotations/inferred/ptx_module.hpp"

// The module parser (ptx_module.hpp) hands each entry to the analysis of its body (ptx_entry.hpp).

namespace acs::inference {

bool kernel_writes::may_write(std::uint32_t param, std::uint32_t byte_offset) const noexcept {
  if (param >= param_bytes.size() || byte_offset >= param_bytes[param]) return true;
  return std::binary_search(written_words.begin(), written_words.end(),
                            std::pair<std::uint32_t, std::uint32_t>{param, byte_offset / 8});
}

std::vector<kernel_writes> analyse_ptx(std::string_view text) {
  std::vector<kernel_writes> out;
  try {
    const ptx::module_end end = ptx::for_each_entry(text, [&](const ptx::module_state& mod, ptx::entry&& e) {
      try {
        out.push_back(ptx::entry_analysis(mod, std::move(e.params), std::move(e.body)).run(e.name));
      } catch (const ptx::parse_error&) {
      }
    });
    if (end == ptx::module_end::not_understood) out.clear();  // trust nothing
  } catch (const std::exception&) {
    // Out of memory or similar: the entries analysed so far stand; the rest are left out.
  }
  return out;
}

}  // namespace acs::inference
