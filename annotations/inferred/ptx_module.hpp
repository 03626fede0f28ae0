#pragma once
// The module level of PTX text: module-scope symbols, kernel parameter declarations, and each
// .entry's name, parameters and body tokens, handed to a callback as the parser reaches them
// (with the symbols declared so far: PTX declares a name before its use). Bodies are not
// interpreted here; ptx_writes.cpp analyses them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "annotations/inferred/ptx_lexer.hpp"

namespace acs::inference::ptx {

// Module-scope symbols.
enum class sym_kind : std::uint8_t { global, own, constant, function };

struct module_symbol {
  sym_kind kind;
  std::uint32_t global_index = 0;
  bool has_body = false;
};

struct module_state {
  std::unordered_map<std::string_view, module_symbol> symbols;
  std::vector<std::string_view> globals;  // .global names by index

  void declare(std::string_view name, sym_kind kind, bool has_body = false) {
    auto [it, fresh] = symbols.try_emplace(name, module_symbol{kind});
    if (fresh && kind == sym_kind::global) {
      it->second.global_index = static_cast<std::uint32_t>(globals.size());
      globals.push_back(name);
    }
    it->second.has_body = it->second.has_body || has_body;
  }
};

/// @brief Names declared by a declaration statement's tokens [b, e): identifiers at depth 0 before '='.
std::vector<std::string_view> declared_names(const std::vector<token>& t, std::size_t b, std::size_t e);

struct ptx_param {
  std::string_view name;
  std::uint32_t bytes = 0;
};

constexpr std::uint32_t max_param_bytes = 1u << 16;  // PTX allows 32764 bytes of kernel parameters

/// @brief One kernel parameter declaration, tokens [b, e) starting at .param; nullopt if not
/// understood.
std::optional<ptx_param> parse_param(const std::vector<token>& t, std::size_t b, std::size_t e);

/// @brief One .entry with a body, its parameters understood.
struct entry {
  std::string_view name;
  std::vector<ptx_param> params;
  std::vector<token> body;  // between the braces
};

// How far the module-level parse got: to the end; cut short (a body or declaration unfinished:
// the entries before the cut stand); or a statement not understood (a body closed early by a
// stray '}', leaving the rest of it at module scope), which puts every entry in doubt.
enum class module_end : std::uint8_t { complete, cut, not_understood };

using entry_handler = std::function<void(const module_state& symbols, entry&& e)>;

/// @brief Parses the module level of `ptx`, calling `on_entry` for each .entry with a body whose
/// parameters it understands, in order (entries it does not understand are skipped). Exceptions
/// of `on_entry` (or out of memory) propagate.
module_end for_each_entry(std::string_view ptx, const entry_handler& on_entry);

}  // namespace acs::inference::ptx
