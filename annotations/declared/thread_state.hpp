#pragma once
// The annotation state of one application thread: its pending per-launch
// declaration, its pending barrier and its open scopes. Only the owning thread
// touches it, so nothing here locks.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "annotations/declared/declared_set.hpp"
#include "annotations/inferred/inference.hpp"

struct acs_footprint;

namespace acs::annotations {

struct declaration {
  declared_set set;
  bool exact = false;  // ACS_EXACT
};

struct scope_frame {
  declaration decl;
  bool inert = false;  // opened during a stream capture: declares nothing
};

// Deeper scopes are not recorded: each counts as one that declares all memory.
inline constexpr std::size_t max_scope_depth = 256;

class thread_state {
 public:
  thread_state() = default;
  ~thread_state();  // warns about what the thread left open
  thread_state(const thread_state&) = delete;
  thread_state& operator=(const thread_state&) = delete;

  std::optional<declaration> pending;                  // acs_next_launch, not consumed yet
  bool barrier = false;                                // acs_barrier, not consumed yet
  acs_footprint* rule_footprint = nullptr;             // of the kernel rule running on this thread
  std::vector<inference::pointer_argument> arguments;  // scratch of take(): keeps its capacity

  /// @brief Opens a scope; past max_scope_depth it is counted, not recorded.
  /// Returns the issues (issue_too_deep). May throw (allocation): the caller
  /// then calls open_unrecorded().
  unsigned open(declaration&& d, bool inert);
  /// @brief Opens a scope that declares all memory, without allocating.
  void open_unrecorded() noexcept;
  /// @brief Closes the innermost scope; false when none is open.
  bool close() noexcept;

  std::size_t depth() const noexcept { return scopes_.size() + unrecorded_; }
  /// @brief The group of the outermost open scope: the task all launches inside belong to. 0: none.
  std::uint64_t group() const noexcept { return group_; }
  /// @brief The innermost scope that declares something, or nullptr.
  const declaration* innermost() const noexcept;

 private:
  void opened() noexcept;

  std::vector<scope_frame> scopes_;  // outermost first
  std::size_t unrecorded_ = 0;       // innermost, above scopes_
  std::uint64_t group_ = 0;
};

/// @brief The calling thread's state, or nullptr once it was destroyed (thread exit).
thread_state* this_thread() noexcept;

}  // namespace acs::annotations
