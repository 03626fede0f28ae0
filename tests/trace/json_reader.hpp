#pragma once
// A small, strict JSON reader for the tests: it rejects what Perfetto or
// chrome://tracing could choke on (trailing commas, raw control characters,
// bad escapes, invalid UTF-8, NaN) so that a test reading our traces also
// proves they are valid JSON. Header-only; used by tests/trace and by the
// GPU trace checker.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace acs::test_json {

struct value {
  enum class kind { null, boolean, number, string, array, object };
  kind type = kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string text;
  std::vector<value> items;
  std::vector<std::pair<std::string, value>> members;

  bool is_null() const { return type == kind::null; }
  bool is_number() const { return type == kind::number; }
  bool is_string() const { return type == kind::string; }
  bool is_array() const { return type == kind::array; }
  bool is_object() const { return type == kind::object; }

  /// The member `key` of an object, or nullptr.
  const value* find(std::string_view key) const {
    for (const auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
  /// The member `key`, or a null value.
  const value& operator[](std::string_view key) const {
    static const value none;
    const value* v = find(key);
    return v != nullptr ? *v : none;
  }
  std::string str(std::string_view key) const {
    const value& v = (*this)[key];
    return v.is_string() ? v.text : std::string();
  }
  double num(std::string_view key, double fallback = 0.0) const {
    const value& v = (*this)[key];
    return v.is_number() ? v.number : fallback;
  }
};

class parser {
 public:
  explicit parser(std::string_view text) : s_(text) {}

  std::optional<value> parse(std::string* error) {
    value v;
    skip();
    if (!parse_value(v, 0)) return fail(error);
    skip();
    if (i_ != s_.size()) {
      why_ = "trailing characters";
      return fail(error);
    }
    return v;
  }

 private:
  std::optional<value> fail(std::string* error) {
    if (error != nullptr) *error = why_ + " at offset " + std::to_string(i_);
    return std::nullopt;
  }
  bool err(const char* why) {
    why_ = why;
    return false;
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return err("bad literal");
    i_ += word.size();
    return true;
  }

  bool parse_value(value& v, int depth) {
    if (depth > 64) return err("nested too deeply");
    if (i_ >= s_.size()) return err("unexpected end");
    switch (s_[i_]) {
      case '{':
        return parse_object(v, depth);
      case '[':
        return parse_array(v, depth);
      case '"':
        v.type = value::kind::string;
        return parse_string(v.text);
      case 't':
        v.type = value::kind::boolean;
        v.boolean = true;
        return literal("true");
      case 'f':
        v.type = value::kind::boolean;
        return literal("false");
      case 'n':
        return literal("null");
      default:
        v.type = value::kind::number;
        return parse_number(v.number);
    }
  }

  bool parse_object(value& v, int depth) {
    v.type = value::kind::object;
    ++i_;
    skip();
    if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
    for (;;) {
      skip();
      if (i_ >= s_.size() || s_[i_] != '"') return err("expected a member name");
      std::string key;
      if (!parse_string(key)) return false;
      skip();
      if (i_ >= s_.size() || s_[i_] != ':') return err("expected ':'");
      ++i_;
      skip();
      value member;
      if (!parse_value(member, depth + 1)) return false;
      v.members.emplace_back(std::move(key), std::move(member));
      skip();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
      return err("expected ',' or '}'");
    }
  }

  bool parse_array(value& v, int depth) {
    v.type = value::kind::array;
    ++i_;
    skip();
    if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
    for (;;) {
      skip();
      value item;
      if (!parse_value(item, depth + 1)) return false;
      v.items.push_back(std::move(item));
      skip();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
      return err("expected ',' or ']'");
    }
  }

  bool parse_number(double& out) {
    const std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    const auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - from;
    };
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (digits() == 0) {
      return err("bad number");
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0) return err("bad fraction");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) return err("bad exponent");
    }
    out = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
    return true;
  }

  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  bool hex4(std::uint32_t& cp) {
    if (i_ + 4 > s_.size()) return err("short \\u escape");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      cp <<= 4;
      if (c >= '0' && c <= '9')
        cp |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        cp |= static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return err("bad \\u escape");
    }
    return true;
  }

  // Valid UTF-8 sequence length at i_, or 0.
  std::size_t utf8_length() const {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s_[k]); };
    const unsigned char c = b(i_);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
      n = 2;
    else if (c >= 0xe0 && c <= 0xef)
      n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
      n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
      return 0;
    if (i_ + n > s_.size() || b(i_ + 1) < lo || b(i_ + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
      if (b(i_ + k) < 0x80 || b(i_ + k) > 0xbf) return 0;
    return n;
  }

  bool parse_string(std::string& out) {
    ++i_;  // opening quote
    for (;;) {
      if (i_ >= s_.size()) return err("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') return ++i_, true;
      if (c < 0x20) return err("raw control character in a string");
      if (c >= 0x80) {
        const std::size_t n = utf8_length();
        if (n == 0) return err("invalid UTF-8");
        out.append(s_.substr(i_, n));
        i_ += n;
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        ++i_;
        continue;
      }
      if (++i_ >= s_.size()) return err("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xd800 && cp <= 0xdbff) {
            std::uint32_t lo = 0;
            if (s_.substr(i_, 2) != "\\u") return err("lone high surrogate");
            i_ += 2;
            if (!hex4(lo) || lo < 0xdc00 || lo > 0xdfff) return err("bad low surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return err("lone low surrogate");
          }
          put_utf8(out, cp);
          break;
        }
        default:
          return err("bad escape");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string why_;
};

/// @brief Parses `text` strictly; nullopt (and `error`) if it is not valid JSON.
inline std::optional<value> parse(std::string_view text, std::string* error = nullptr) {
  return parser(text).parse(error);
}

}  // namespace acs::test_json
