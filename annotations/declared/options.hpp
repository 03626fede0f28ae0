#pragma once
// The settings the annotation layer depends on, taken from src/support/config.hpp
// (ACS_DISABLE / CUDA_LAUNCH_BLOCKING, ACS_INFER, ACS_CHECK) on first use.
namespace acs::annotations {

struct options {
  bool enabled = true;      // false: acs passes everything through, annotations are ignored
  bool infer_alloc = true;  // ACS_INFER=alloc: non-exact declarations get uncovered allocations added
  bool check = false;       // ACS_CHECK=1
};

/// @brief The process's options (read once from the settings). Never throws.
const options& current_options() noexcept;

/// @brief Replaces the options read from the settings: for tests only.
void override_options(const options& o) noexcept;

}  // namespace acs::annotations
