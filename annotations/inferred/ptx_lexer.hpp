#pragma once
// The tokens of PTX text, for the module parser (ptx_module.hpp) and the write analysis
// (ptx_writes.cpp). Comments are dropped; each token remembers whether it starts a line, because
// a few directives (.version, .target, .loc, .file...) end at the end of the line, not at ';'.
// Tokens are views into the text, which must outlive them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace acs::inference::ptx {

enum class tk : std::uint8_t { ident, number, string, punct, end };

struct token {
  std::string_view text;
  tk kind = tk::end;
  bool line_start = false;
  bool is(char c) const noexcept { return kind == tk::punct && text[0] == c; }
  bool is(std::string_view s) const noexcept { return kind == tk::ident && text == s; }
  bool directive() const noexcept { return kind == tk::ident && text[0] == '.'; }
  bool name() const noexcept { return kind == tk::ident && text[0] != '.'; }
};

class lexer {
 public:
  explicit lexer(std::string_view s) noexcept : s_(s) {}

  /// @brief The next token; tk::end (forever) once the text is consumed.
  token next() noexcept;

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  bool nl_ = true;
};

class token_stream {
 public:
  explicit token_stream(std::string_view s) noexcept : lex_(s), cur_(lex_.next()) {}
  const token& peek() const noexcept { return cur_; }
  token take() noexcept {
    token t = cur_;
    cur_ = lex_.next();
    return t;
  }

 private:
  lexer lex_;
  token cur_;
};

inline bool opens(const token& t) noexcept { return t.is('(') || t.is('[') || t.is('{'); }
inline bool closes(const token& t) noexcept { return t.is(')') || t.is(']') || t.is('}'); }

/// @brief A decimal or 0x-hexadecimal integer literal, with an optional U suffix.
std::optional<std::uint64_t> parse_number(std::string_view s) noexcept;

}  // namespace acs::inference::ptx
