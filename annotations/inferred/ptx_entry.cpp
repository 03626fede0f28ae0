#include "annotations/inferred/ptx_entry.hpp"

#include <algorithm>
#include <deque>

namespace acs::inference::ptx {

void fail() { throw parse_error{}; }

entry_analysis::entry_analysis(const module_state& mod, std::vector<ptx_param> params, std::vector<token> body)
    : mod_(mod), params_(std::move(params)), body_(std::move(body)) {
  if (params_.size() >= (1u << lbl::word_bits) || mod_.globals.size() > lbl::max_payload) fail();
  for (std::uint32_t i = 0; i < params_.size(); ++i)
    if (!param_index_.emplace(params_[i].name, i).second) fail();  // two parameters of one name
  escaped_.assign(params_.size(), false);
  memory_ = intern("%\x01" "memory");
  carry_ = intern("%\x01" "carry");
}

kernel_writes entry_analysis::run(std::string_view name) {
  split_statements();
  for (const auto& s : statements_) declare(s);
  for (const auto& s : statements_) compile(s);
  finish_param_loads();
  solve();
  return result(name);
}

void entry_analysis::split_statements() {
  const std::size_t n = body_.size();
  std::size_t i = 0;
  while (i < n) {
    const token& t = body_[i];
    if (t.is('{') || t.is('}')) {
      ++i;
    } else if (t.name() && t.text[0] != '%' && i + 1 < n && body_[i + 1].is(':')) {
      labels_.insert(t.text);
      i += 2;
    } else if (t.is(".loc") || t.is(".file")) {  // end at the end of the line, without ';'
      ++i;
      while (i < n && !body_[i].line_start) ++i;
    } else {
      const std::size_t b = i;
      int depth = 0;
      for (; i < n && !(depth == 0 && body_[i].is(';')); ++i) {
        if (opens(body_[i])) ++depth;
        else if (closes(body_[i]) && --depth < 0) fail();
      }
      if (i == n) fail();
      statements_.push_back({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(i)});
      ++i;
    }
  }
}

void entry_analysis::declare(const statement& s) {
  const token& t = body_[s.begin];
  if (!t.directive()) return;
  if (t.is(".reg")) {
    for (auto name : declared_names(body_, s.begin + 1, s.end)) regs_.insert(name);
  } else if (t.is(".param")) {
    for (auto name : declared_names(body_, s.begin + 1, s.end)) {
      if (param_index_.count(name)) fail();  // ld.param [name] would be ambiguous
      call_params_.insert(name);
    }
  } else if (t.is(".local") || t.is(".shared") || t.is(".const")) {
    const std::uint32_t l = t.is(".const") ? lbl::constant_label : lbl::own_label;
    for (auto name : declared_names(body_, s.begin + 1, s.end)) body_symbols_.emplace(name, l);
  } else if (!(t.is(".pragma") || t.is(".callprototype") || t.is(".branchtargets") || t.is(".calltargets"))) {
    fail();  // .global in a body, or a directive not known: not understood
  }
}

std::uint32_t entry_analysis::intern(std::string_view name) {
  auto [it, fresh] = vars_.try_emplace(name, static_cast<std::uint32_t>(labels_of_.size()));
  if (fresh) labels_of_.emplace_back();
  return it->second;
}

std::vector<entry_analysis::operand> entry_analysis::split_operands(std::uint32_t b, std::uint32_t e) const {
  std::vector<operand> ops;
  if (b == e) return ops;
  int depth = 0;
  std::uint32_t start = b;
  auto push = [&](std::uint32_t from, std::uint32_t to) {
    if (from == to) fail();
    const char k = body_[from].is('[') && body_[to - 1].is(']')   ? '['
                   : body_[from].is('(') && body_[to - 1].is(')') ? '('
                                                                   : ' ';
    ops.push_back({from, to, k});
  };
  for (std::uint32_t i = b; i < e; ++i) {
    if (opens(body_[i])) ++depth;
    else if (closes(body_[i])) --depth;
    else if (depth == 0 && body_[i].is(',')) {
      push(start, i);
      start = i + 1;
    }
  }
  if (depth != 0) fail();
  push(start, e);
  return ops;
}

// What one name means; it may be several things at once (a .reg shadowing a symbol): all apply.
void entry_analysis::resolve(const token& t, taint& out, bool call_params_allowed) {
  const std::string_view text = t.text;
  const std::string_view stem = text.substr(0, text.find('.', 1));  // %tid.x, v.x: the register
  bool known = false;
  if (text[0] == '%' || regs_.count(stem)) {
    out.vars.push_back(intern(stem));
    known = true;
  }
  if (auto it = param_index_.find(text); it != param_index_.end()) {
    // Anything but the bracketed address of ld.param: the parameter's address escapes.
    escaped_[it->second] = true;
    add_label(out.consts, lbl::make(lbl::param_address, it->second));
    known = true;
  }
  if (call_params_.count(text)) {
    if (!call_params_allowed) fail();  // the address of a call's .param taken: not followed
    out.vars.push_back(intern(text));
    known = true;
  }
  if (auto it = mod_.symbols.find(text); it != mod_.symbols.end()) {
    const module_symbol& m = it->second;
    add_label(out.consts, m.kind == sym_kind::global ? lbl::make(lbl::global, m.global_index)
                          : m.kind == sym_kind::own  ? lbl::own_label
                                                     : lbl::constant_label);
    known = true;
  }
  if (auto it = body_symbols_.find(text); it != body_symbols_.end()) {
    add_label(out.consts, it->second);
    known = true;
  }
  if (!known && !labels_.count(text) && text != "_" && text != "WARP_SZ") fail();  // undeclared name
}

entry_analysis::taint entry_analysis::scan(std::uint32_t b, std::uint32_t e, bool call_params_allowed) {
  taint out;
  for (std::uint32_t i = b; i < e; ++i)
    if (body_[i].kind == tk::ident) {
      if (body_[i].directive()) fail();
      resolve(body_[i], out, call_params_allowed);
    }
  return out;
}

// The bracketed address [NAME] or [NAME+k] of ld.param/st.param: the name's token and k.
std::optional<std::pair<std::uint32_t, std::uint64_t>> entry_analysis::symbol_address(const operand& o) const {
  const std::uint32_t b = o.begin + 1, e = o.end - 1;
  if (e <= b || !body_[b].name() || body_[b].text[0] == '%' || regs_.count(body_[b].text)) return std::nullopt;
  if (e == b + 1) return std::pair{b, std::uint64_t{0}};
  if (e == b + 3 && body_[b + 1].is('+') && body_[b + 2].kind == tk::number)
    if (auto k = parse_number(body_[b + 2].text)) return std::pair{b, *k};
  fail();  // [NAME-k], [NAME+expr]: not understood
}

// ld.param through a register can only read parameters whose address was taken (each such
// mention escapes its parameter); with none, the address came from elsewhere.
void entry_analysis::finish_param_loads() {
  label_set any;
  for (std::uint32_t p = 0; p < params_.size(); ++p)
    if (escaped_[p]) add_label(any, lbl::make(lbl::all_words, p));
  if (any.empty()) add_label(any, lbl::loaded_label);
  for (auto f : param_loads_) flows_[f].from.consts = any;
}

void entry_analysis::union_into(label_set& u, const taint& t) {
  u = t.consts;
  for (auto v : t.vars) merge(u, labels_of_[v], scratch_);
}

void entry_analysis::incoming(const flow& f, label_set& in) {
  if (f.kind == flow_kind::copy) return union_into(in, f.from);
  if (f.kind == flow_kind::combine) {
    union_into(in, f.from);
    std::uint32_t indices = 0;
    for (std::size_t i = 0; i < f.counted; ++i) {
      const std::uint32_t v = f.from.vars[i];
      const bool again = std::find(f.from.vars.begin(), f.from.vars.begin() + static_cast<std::ptrdiff_t>(i), v) !=
                         f.from.vars.begin() + static_cast<std::ptrdiff_t>(i);
      const label_set& l = labels_of_[v];
      if (!again && std::binary_search(l.begin(), l.end(), lbl::loaded_index_label)) ++indices;
    }
    if (indices >= f.pieces) add_label(in, lbl::loaded_label);
    return;
  }
  union_into(address_, f.address);
  const auto& a = address_;
  if (f.kind == flow_kind::store) {
    // A generic store may reach this kernel's shared/local memory unless its address is made
    // only of names of other memory (parameters' values, globals, constants).
    const bool maybe_own = a.empty() || std::any_of(a.begin(), a.end(), [](auto l) {
      return lbl::kind_of(l) == lbl::own_memory || lbl::read_from_memory(l);
    });
    if (maybe_own) union_into(in, f.from);
    else in.clear();
    return;
  }
  // A generic load. When its address is made only of parameter addresses (a __grid_constant__
  // parameter read through a pointer) and of this kernel's shared/local variables, it reads those
  // parameters or what the kernel stored; otherwise any value.
  in = labels_of_[memory_];
  const bool own = !a.empty() && std::all_of(a.begin(), a.end(), [](auto l) {
    return lbl::kind_of(l) == lbl::param_address || lbl::kind_of(l) == lbl::own_memory;
  });
  if (!own) add_label(in, f.narrow ? lbl::loaded_index_label : lbl::loaded_label);
  // Eight bytes or more of what the kernel stored may join indices stored side by side.
  if (own && !f.narrow && std::binary_search(in.begin(), in.end(), lbl::loaded_index_label))
    add_label(in, lbl::loaded_label);
  for (auto l : a)
    if (lbl::kind_of(l) == lbl::param_address) add_label(in, lbl::make(lbl::all_words, lbl::payload(l)));
  normalise(in);
}

void entry_analysis::solve() {
  std::vector<std::vector<std::uint32_t>> readers(labels_of_.size());
  for (std::uint32_t f = 0; f < flows_.size(); ++f) {
    for (auto v : flows_[f].from.vars) readers[v].push_back(f);
    for (auto v : flows_[f].address.vars) readers[v].push_back(f);
    if (flows_[f].kind == flow_kind::load) readers[memory_].push_back(f);
  }
  std::deque<std::uint32_t> work;
  std::vector<char> queued(flows_.size(), 1);
  for (std::uint32_t f = 0; f < flows_.size(); ++f) work.push_back(f);
  label_set in;
  while (!work.empty()) {
    const std::uint32_t f = work.front();
    work.pop_front();
    queued[f] = 0;
    incoming(flows_[f], in);
    for (auto d : flows_[f].dests) {
      if (!merge(labels_of_[d], in, scratch_)) continue;
      for (auto r : readers[d])
        if (!queued[r]) {
          queued[r] = 1;
          work.push_back(r);
        }
    }
  }
}

kernel_writes entry_analysis::result(std::string_view name) {
  label_set written = sink_consts_;
  std::sort(sink_vars_.begin(), sink_vars_.end());
  sink_vars_.erase(std::unique(sink_vars_.begin(), sink_vars_.end()), sink_vars_.end());
  for (auto v : sink_vars_) merge(written, labels_of_[v], scratch_);

  const bool indirect =
      indirect_ || std::any_of(checks_.begin(), checks_.end(), [this](const auto& c) { return !attributed(c, true); });

  kernel_writes out;
  out.name = std::string(name);
  std::vector<char> whole(params_.size(), 0);
  std::vector<std::string_view> globals;
  for (std::uint32_t p = 0; p < params_.size(); ++p) {
    out.param_bytes.push_back(params_[p].bytes);
    whole[p] = escaped_[p] || indirect;
  }
  for (auto l : written) {
    switch (lbl::kind_of(l)) {
      case lbl::word:
        out.written_words.emplace_back(lbl::word_param(l), lbl::word_index(l));
        break;
      case lbl::all_words:
      case lbl::param_address:
        whole[lbl::payload(l)] = 1;
        break;
      case lbl::global:
        globals.push_back(mod_.globals[lbl::payload(l)]);
        break;
      default:
        break;
    }
  }
  for (std::uint32_t p = 0; p < params_.size(); ++p)
    if (whole[p])
      for (std::uint32_t w = 0; w < (params_[p].bytes + 7) / 8; ++w) out.written_words.emplace_back(p, w);
  std::sort(out.written_words.begin(), out.written_words.end());
  out.written_words.erase(std::unique(out.written_words.begin(), out.written_words.end()), out.written_words.end());
  std::sort(globals.begin(), globals.end());
  globals.erase(std::unique(globals.begin(), globals.end()), globals.end());
  for (auto g : globals) out.written_globals.emplace_back(g);
  out.writes_indirect = indirect;
  out.writes_globals = indirect || !out.written_globals.empty();
  // A call or an instruction not analysed may read anything too.
  out.reads_indirect = indirect_ || std::any_of(read_checks_.begin(), read_checks_.end(),
                                                [this](const auto& c) { return !attributed(c, false); });
  out.uses_textures = textures_;
  return out;
}

// Whether the memory an access reaches is named by its address: a parameter word, a global, the
// kernel's own memory. Never when a pointer read from memory is part of it (a pointer table, a
// __device__ pointer): nothing then says which allocation it lands in. A write, also not when an
// index read from memory is (the analysis has always been that strict with writes); a read, with
// such an index, stays in the allocation that the named part points into: pointer arithmetic
// stays within its object, as all inference assumes (inference.hpp). Gathers stay precise.
bool entry_analysis::attributed(const access_check& c, bool write) {
  const label_set u = union_of(c.address);
  if (c.tensor_map) {
    // Only a map in the parameter space is followed: its address escapes the parameter.
    return !u.empty() && std::all_of(u.begin(), u.end(), [](auto l) { return lbl::kind_of(l) == lbl::param_address; });
  }
  const bool named = std::any_of(u.begin(), u.end(), [](auto l) { return !lbl::read_from_memory(l); });
  const bool pointer = std::binary_search(u.begin(), u.end(), lbl::loaded_label);
  const bool index = std::binary_search(u.begin(), u.end(), lbl::loaded_index_label);
  return named && !pointer && !(write && index);
}

}  // namespace acs::inference::ptx
