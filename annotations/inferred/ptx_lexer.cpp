#include "annotations/inferred/ptx_lexer.hpp"

#include <algorithm>
#include <charconv>

namespace acs::inference::ptx {

namespace {

bool alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool ident_start(char c) noexcept { return alpha(c) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool ident_char(char c) noexcept { return alpha(c) || digit(c) || c == '_' || c == '$' || c == '.'; }

}  // namespace

token lexer::next() noexcept {
  const std::size_t n = s_.size();
  for (;;) {
    if (i_ >= n) return token{{}, tk::end, true};
    const char c = s_[i_];
    if (c == '\n') {
      nl_ = true;
      ++i_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i_;
    } else if (c == '/' && i_ + 1 < n && s_[i_ + 1] == '/') {
      while (i_ < n && s_[i_] != '\n') ++i_;
    } else if (c == '/' && i_ + 1 < n && s_[i_ + 1] == '*') {
      const std::size_t close = s_.find("*/", i_ + 2);
      const std::size_t stop = close == std::string_view::npos ? n : close + 2;
      if (s_.substr(i_, stop - i_).find('\n') != std::string_view::npos) nl_ = true;
      i_ = stop;
    } else {
      break;
    }
  }
  const std::size_t start = i_;
  const bool line_start = nl_;
  nl_ = false;
  const char c = s_[i_++];
  tk kind = tk::punct;
  if (c == '"') {
    while (i_ < n && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    i_ = std::min(i_ + 1, n);
    kind = tk::string;
  } else if (ident_start(c)) {
    // '::' belongs to names such as ld.shared::cta; a single ':' ends a label.
    while (i_ < n) {
      if (ident_char(s_[i_])) {
        ++i_;
      } else if (s_[i_] == ':' && i_ + 1 < n && s_[i_ + 1] == ':') {
        i_ += 2;
      } else {
        break;
      }
    }
    kind = tk::ident;
  } else if (digit(c)) {
    while (i_ < n && (ident_char(s_[i_]))) ++i_;
    kind = tk::number;
  }
  return token{s_.substr(start, i_ - start), kind, line_start};
}

std::optional<std::uint64_t> parse_number(std::string_view s) noexcept {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace acs::inference::ptx
