#include "annotations/inferred/ptx_module.hpp"

#include <utility>

#include "annotations/inferred/ptx_opcodes.hpp"

namespace acs::inference::ptx {

std::vector<std::string_view> declared_names(const std::vector<token>& t, std::size_t b, std::size_t e) {
  std::vector<std::string_view> names;
  int depth = 0;
  for (std::size_t i = b; i < e; ++i) {
    if (opens(t[i]) || t[i].is('<')) ++depth;
    else if (closes(t[i]) || t[i].is('>')) --depth;
    else if (depth == 0 && t[i].is('=')) break;
    else if (depth == 0 && t[i].name()) names.push_back(t[i].text);
  }
  return names;
}

// One kernel parameter declaration, tokens [b, e) starting at .param; nullopt if not understood.
std::optional<ptx_param> parse_param(const std::vector<token>& t, std::size_t b, std::size_t e) {
  if (b >= e || !t[b].is(".param")) return std::nullopt;
  std::uint64_t elem = 0, vec = 1, dims = 1;
  ptx_param p;
  for (std::size_t i = b + 1; i < e; ++i) {
    const token& x = t[i];
    if (x.is(".align")) {
      if (++i >= e || t[i].kind != tk::number) return std::nullopt;
    } else if (x.is(".ptr") || x.is(".global") || x.is(".const") || x.is(".shared") || x.is(".local")) {
    } else if (x.is(".v2") || x.is(".v4") || x.is(".v8")) {
      vec = x.text[2] - '0';
    } else if (x.is(".texref") || x.is(".surfref") || x.is(".samplerref")) {
      elem = 8;
    } else if (x.directive() && type_bytes(x.text.substr(1)) != 0) {
      elem = type_bytes(x.text.substr(1));
    } else if (x.name() && p.name.empty()) {
      p.name = x.text;
    } else if (x.is('[') && !p.name.empty()) {
      if (i + 2 >= e || t[i + 1].kind != tk::number || !t[i + 2].is(']')) return std::nullopt;
      auto n = parse_number(t[i + 1].text);
      if (!n || *n == 0 || *n > max_param_bytes) return std::nullopt;
      dims *= *n;
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  const std::uint64_t bytes = elem * vec * dims;
  if (p.name.empty() || elem == 0 || bytes > max_param_bytes) return std::nullopt;
  p.bytes = static_cast<std::uint32_t>(bytes);
  return p;
}

namespace {

void skip_line(token_stream& s) {
  while (s.peek().kind != tk::end && !s.peek().line_start) s.take();
}

// After an opening '{': up to its matching '}'. False at the end of the text.
bool skip_block(token_stream& s) {
  for (int depth = 1; depth > 0;) {
    const token t = s.take();
    if (t.kind == tk::end) return false;
    if (t.is('{')) ++depth;
    else if (t.is('}')) --depth;
  }
  return true;
}

// .func/.alias: remember the name, skip the body. False when the text ends inside. An alias
// counts as having a body: what it names is not known to be the runtime's.
bool skip_function(token_stream& s, module_state& mod, bool alias) {
  std::string_view name;
  int depth = 0;
  for (;;) {
    const token t = s.take();
    if (t.kind == tk::end) return false;
    if (t.is('(')) ++depth;
    else if (t.is(')')) --depth;
    else if (depth == 0 && t.is(';')) break;
    else if (depth == 0 && t.is('{')) {
      if (!skip_block(s)) return false;
      if (!name.empty()) mod.declare(name, sym_kind::function, true);
      return true;
    } else if (depth == 0 && name.empty() && t.name()) {
      name = t.text;
    }
  }
  if (!name.empty()) mod.declare(name, sym_kind::function, alias);
  return true;
}

bool parse_variable(token_stream& s, module_state& mod, sym_kind kind) {
  std::vector<token> toks;
  int depth = 0;
  for (;;) {
    const token t = s.take();
    if (t.kind == tk::end) return false;
    if (depth == 0 && t.is(';')) break;
    if (opens(t)) ++depth;
    else if (closes(t)) --depth;
    toks.push_back(t);
  }
  for (auto name : declared_names(toks, 0, toks.size())) mod.declare(name, kind);
  return true;
}

// How far the module-level parse got: a text cut short keeps the entries before the cut; a
// statement not understood (a body closed early by a stray '}', leaving the rest of it at module
// scope) puts every entry in doubt.
enum class step : std::uint8_t { ok, end, bad };

// .entry NAME (params) [performance directives] { body }.
step parse_entry(token_stream& s, module_state& mod, const entry_handler& on_entry) {
  const token name = s.take();
  if (name.kind == tk::end) return step::end;
  if (!name.name()) return step::bad;
  mod.declare(name.text, sym_kind::function, true);
  bool ok = true;
  std::vector<ptx_param> params;
  if (s.peek().is('(')) {
    s.take();
    std::vector<token> toks;
    for (int depth = 1;;) {
      const token t = s.take();
      if (t.kind == tk::end) return step::end;
      if (t.is('(')) ++depth;
      else if (t.is(')') && --depth == 0) break;
      toks.push_back(t);
    }
    std::size_t b = 0;
    for (std::size_t i = 0; i <= toks.size() && !toks.empty(); ++i) {
      if (i < toks.size() && !toks[i].is(',')) continue;
      auto p = parse_param(toks, b, i);
      if (!p) ok = false;
      else params.push_back(*p);
      b = i + 1;
    }
  }
  while (!s.peek().is('{') && !s.peek().is(';')) {
    const token t = s.take();
    if (t.kind == tk::end) return step::end;
    if (!(t.directive() || t.kind == tk::number || t.is(','))) ok = false;
  }
  if (s.take().is(';')) return step::ok;  // a declaration without a body
  std::vector<token> body;
  for (int depth = 1;;) {
    const token t = s.take();
    if (t.kind == tk::end) return step::end;  // unbalanced: nothing after this can be trusted
    if (t.is('{')) ++depth;
    else if (t.is('}') && --depth == 0) break;
    body.push_back(t);
  }
  if (ok) on_entry(mod, entry{name.text, std::move(params), std::move(body)});
  return step::ok;
}

}  // namespace

module_end for_each_entry(std::string_view ptx, const entry_handler& on_entry) {
  token_stream s(ptx);
  module_state mod;
  while (s.peek().kind != tk::end) {
    const token t = s.take();
    if (t.is(".version") || t.is(".target") || t.is(".address_size") || t.is(".file") || t.is(".loc")) {
      skip_line(s);
    } else if (t.is(".section")) {  // debug information
      while (!s.peek().is('{')) {
        if (s.peek().kind == tk::end) return module_end::cut;
        if (s.peek().is(';')) return module_end::not_understood;
        s.take();
      }
      s.take();
      if (!skip_block(s)) return module_end::cut;
    } else if (t.is(".visible") || t.is(".extern") || t.is(".weak") || t.is(".common")) {
    } else if (t.is(".entry")) {
      const step r = parse_entry(s, mod, on_entry);
      if (r == step::end) return module_end::cut;
      if (r == step::bad) return module_end::not_understood;
    } else if (t.is(".func") || t.is(".alias")) {
      if (!skip_function(s, mod, t.is(".alias"))) return module_end::cut;
    } else if (t.is(".global") || t.is(".tex")) {
      if (!parse_variable(s, mod, sym_kind::global)) return module_end::cut;
    } else if (t.is(".shared") || t.is(".local")) {
      if (!parse_variable(s, mod, sym_kind::own)) return module_end::cut;
    } else if (t.is(".const")) {
      if (!parse_variable(s, mod, sym_kind::constant)) return module_end::cut;
    } else if (t.is(".pragma")) {
      while (s.peek().kind != tk::end && !s.peek().is(';')) s.take();
      s.take();
    } else {
      return module_end::not_understood;  // perhaps the rest of a body closed early
    }
  }
  return module_end::complete;
}

}  // namespace acs::inference::ptx
