#include "annotations/inferred/ptx_writes.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "annotations/inferred/ptx_labels.hpp"
#include "annotations/inferred/ptx_lexer.hpp"
#include "annotations/inferred/ptx_module.hpp"
#include "annotations/inferred/ptx_opcodes.hpp"

// How: each .entry body is split into statements; each instruction becomes flows between taint
// sets (registers, the call-site .params, one pseudo register for the kernel's own shared/local
// memory, one for the carry flag), solved to a fixpoint with a worklist. Then:
//  * every label reaching an operand of a memory write (store, atomic, copy destination, call to
//    a function not analysed, instruction not known) is written: the address, and also the value
//    stored, which escapes;
//  * every write outside the kernel's own shared/local memory must have an address made of
//    labels that name its memory (a parameter word, a global, its own memory); an address built
//    from a value read from memory, or from nothing, makes the kernel "indirect": all written.
// Values read from global/generic memory carry the "loaded" label; values read from the kernel's
// own shared/local memory carry what the kernel stored there (plus "loaded" once anything from
// elsewhere, such as a cp.async copy, may have landed there).

namespace acs::inference {

bool kernel_writes::may_write(std::uint32_t param, std::uint32_t byte_offset) const noexcept {
  if (param >= param_bytes.size() || byte_offset >= param_bytes[param]) return true;
  return std::binary_search(written_words.begin(), written_words.end(),
                            std::pair<std::uint32_t, std::uint32_t>{param, byte_offset / 8});
}

namespace {

using namespace ptx;

// An entry whose text is not understood with confidence: it is left out.
struct parse_error {};
[[noreturn]] void fail() { throw parse_error{}; }

// Calls known to only read what they are passed: printf and assert's runtime helpers. Declared
// .extern without a body in the module, so they are the CUDA runtime's own.
bool read_only_callee(std::string_view name) { return name == "vprintf" || name == "__assertfail"; }

// ---------------------------------------------------------------------------------------------
// The analysis of one entry's body.

class entry_analysis {
 public:
  entry_analysis(const module_state& mod, std::vector<ptx_param> params, std::vector<token> body)
      : mod_(mod), params_(std::move(params)), body_(std::move(body)) {
    if (params_.size() >= (1u << lbl::word_bits) || mod_.globals.size() > lbl::max_payload) fail();
    for (std::uint32_t i = 0; i < params_.size(); ++i)
      if (!param_index_.emplace(params_[i].name, i).second) fail();  // two parameters of one name
    escaped_.assign(params_.size(), false);
    memory_ = intern("%\x01" "memory");
    carry_ = intern("%\x01" "carry");
  }

  kernel_writes run(std::string_view name) {
    split_statements();
    for (const auto& s : statements_) declare(s);
    for (const auto& s : statements_) compile(s);
    finish_param_loads();
    solve();
    return result(name);
  }

 private:
  struct statement {
    std::uint32_t begin, end;  // tokens, without the ';'
  };
  struct operand {
    std::uint32_t begin, end;
    bool bracketed() const noexcept { return kind == '['; }
    bool parenthesized() const noexcept { return kind == '('; }
    char kind;
  };
  // Registers and constant labels one operand (or several) contributes.
  struct taint {
    std::vector<std::uint32_t> vars;
    label_set consts;
  };
  enum class flow_kind : std::uint8_t {
    copy,   // dests |= from
    load,   // dests |= what may be read at address (generic or global memory)
    store,  // dests (memory) |= from, if address may be this kernel's shared/local memory
  };
  struct flow {
    flow_kind kind;
    std::vector<std::uint32_t> dests;
    taint from, address;
  };
  // A write to memory outside the kernel's own shared/local space: its address must be made of
  // labels that name what it writes.
  struct write_check {
    taint address;
    bool tensor_map;  // the address is a TMA tensor map: the memory written is named inside it
  };

  // -- statements -------------------------------------------------------------------------------

  void split_statements() {
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

  void declare(const statement& s) {
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

  // -- operands ---------------------------------------------------------------------------------

  std::uint32_t intern(std::string_view name) {
    auto [it, fresh] = vars_.try_emplace(name, static_cast<std::uint32_t>(labels_of_.size()));
    if (fresh) labels_of_.emplace_back();
    return it->second;
  }

  std::vector<operand> split_operands(std::uint32_t b, std::uint32_t e) const {
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
  void resolve(const token& t, taint& out, bool call_params_allowed) {
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

  taint scan(std::uint32_t b, std::uint32_t e, bool call_params_allowed = false) {
    taint out;
    for (std::uint32_t i = b; i < e; ++i)
      if (body_[i].kind == tk::ident) {
        if (body_[i].directive()) fail();
        resolve(body_[i], out, call_params_allowed);
      }
    return out;
  }
  taint scan(const operand& o, bool call_params_allowed = false) { return scan(o.begin, o.end, call_params_allowed); }

  static void append(taint& to, const taint& from) {
    to.vars.insert(to.vars.end(), from.vars.begin(), from.vars.end());
    for (auto l : from.consts) add_label(to.consts, l);
  }

  void add_flow(flow_kind k, std::vector<std::uint32_t> dests, const taint& from, const taint& address = {}) {
    if (dests.empty()) return;
    flows_.push_back({k, std::move(dests), from, address});
  }

  // Every label of these registers and constants is written through (or escapes).
  void sink(const taint& t) {
    sink_vars_.insert(sink_vars_.end(), t.vars.begin(), t.vars.end());
    for (auto l : t.consts) add_label(sink_consts_, l);
  }

  // The bracketed address [NAME] or [NAME+k] of ld.param/st.param: the name's token and k.
  std::optional<std::pair<std::uint32_t, std::uint64_t>> symbol_address(const operand& o) const {
    const std::uint32_t b = o.begin + 1, e = o.end - 1;
    if (e <= b || !body_[b].name() || body_[b].text[0] == '%' || regs_.count(body_[b].text)) return std::nullopt;
    if (e == b + 1) return std::pair{b, std::uint64_t{0}};
    if (e == b + 3 && body_[b + 1].is('+') && body_[b + 2].kind == tk::number)
      if (auto k = parse_number(body_[b + 2].text)) return std::pair{b, *k};
    fail();  // [NAME-k], [NAME+expr]: not understood
  }

  // -- instructions -----------------------------------------------------------------------------

  void compile(const statement& s) {
    std::uint32_t b = s.begin;
    if (body_[b].directive()) return;
    if (body_[b].is('@')) {  // guard: a predicate, no data effect
      ++b;
      if (b < s.end && body_[b].is('!')) ++b;
      if (b >= s.end || !body_[b].name()) fail();
      ++b;
    }
    if (b >= s.end || !body_[b].name() || body_[b].text[0] == '%') fail();
    const std::string_view op = body_[b].text;
    const std::vector<operand> ops = split_operands(b + 1, s.end);
    switch (classify(op)) {
      case op_class::data: return compile_data(op, ops);
      case op_class::control:
        for (const auto& o : ops) scan(o);
        return;
      case op_class::load: return compile_load(op, ops);
      case op_class::store: return compile_store(op, ops);
      case op_class::copy: return compile_copy(op, ops);
      case op_class::call: return compile_call(ops);
      case op_class::unknown: return compile_unknown(ops);
    }
  }

  void compile_data(std::string_view op, const std::vector<operand>& ops) {
    if (ops.empty()) return;
    for (const auto& o : ops)
      if (o.bracketed()) return compile_unknown(ops);
    std::vector<std::uint32_t> dests = scan(ops[0]).vars;
    taint from;
    for (std::size_t i = 1; i < ops.size(); ++i) append(from, scan(ops[i]));
    // Carry flags travel between add.cc and addc: through a pseudo register.
    if (has_modifier(op, "cc")) dests.push_back(carry_);
    const std::string_view base = op.substr(0, op.find('.'));
    if (base == "addc" || base == "subc" || base == "madc") from.vars.push_back(carry_);
    if (base == "wgmma") from.vars.push_back(memory_);  // reads shared memory through descriptors
    if (base == "alloca" || base == "stacksave") add_label(from.consts, lbl::own_label);  // the stack: local
    add_flow(flow_kind::copy, std::move(dests), from);
  }

  void compile_load(std::string_view op, const std::vector<operand>& ops) {
    std::size_t addr = ops.size();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].bracketed()) {
        addr = i;
        break;
      }
    if (addr == ops.size()) fail();
    std::vector<std::uint32_t> dests;
    if (addr > 0) dests = scan(ops[0]).vars;
    for (std::size_t i = addr + 1; i < ops.size(); ++i) scan(ops[i]);  // policies, offsets: read only
    const space sp = first_space(op);
    if (sp == space::param) {
      if (auto sym = symbol_address(ops[addr])) {
        const std::string_view name = body_[sym->first].text;
        if (auto it = param_index_.find(name); it != param_index_.end()) {
          // Rule 1: the words covering the bytes loaded.
          const std::uint32_t p = it->second;
          const std::uint64_t k = sym->second, bytes = access_bytes(op);
          taint t;
          if (bytes == 0) {
            add_label(t.consts, lbl::make(lbl::all_words, p));
          } else {
            if (k + bytes > params_[p].bytes) fail();
            for (std::uint64_t w = k / 8; w <= (k + bytes - 1) / 8; ++w)
              add_label(t.consts, lbl::make_word(p, static_cast<std::uint32_t>(w)));
          }
          return add_flow(flow_kind::copy, std::move(dests), t);
        }
        if (call_params_.count(name)) {  // a call's return value
          taint t;
          t.vars.push_back(intern(name));
          return add_flow(flow_kind::copy, std::move(dests), t);
        }
        fail();
      }
      // ld.param through a register: reads the param space of a parameter whose address was
      // taken; finish_param_loads() fills in which.
      scan(ops[addr]);
      if (dests.empty()) return;
      param_loads_.push_back(flows_.size());
      return add_flow(flow_kind::copy, std::move(dests), taint{});
    }
    if (private_space(sp)) {  // this kernel's shared/local memory: what it stored there
      taint t;
      t.vars.push_back(memory_);
      scan(ops[addr]);
      return add_flow(flow_kind::copy, std::move(dests), t);
    }
    taint address;
    for (const auto& o : ops)
      if (o.bracketed()) append(address, scan(o));
    add_flow(flow_kind::load, std::move(dests), {}, address);
  }

  void compile_store(std::string_view op, const std::vector<operand>& ops) {
    if (ops.empty()) fail();
    const space sp = first_space(op);
    if (sp == space::param) {  // st.param: an argument of a call that follows
      if (!ops[0].bracketed()) fail();
      auto sym = symbol_address(ops[0]);
      if (!sym || !call_params_.count(body_[sym->first].text)) fail();
      taint value;
      for (std::size_t i = 1; i < ops.size(); ++i) append(value, scan(ops[i]));
      return add_flow(flow_kind::copy, {intern(body_[sym->first].text)}, value);
    }
    const bool returns = !ops[0].bracketed();  // atom, mbarrier.arrive...: the old value
    taint all, values, address;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const taint t = scan(ops[i]);
      append(all, t);
      if (ops[i].bracketed()) append(address, t);
      else if (i > 0 || !returns) append(values, t);
    }
    sink(all);
    // The kernel's own memory remembers what is stored there, for loads from it.
    if (private_space(sp)) add_flow(flow_kind::copy, {memory_}, values);
    else if (sp == space::none) add_flow(flow_kind::store, {memory_}, values, address);
    if (returns) {
      taint old;
      old.vars.push_back(memory_);
      if (!private_space(sp)) add_label(old.consts, lbl::loaded_label);
      add_flow(flow_kind::copy, scan(ops[0]).vars, old);
    }
    if (!private_space(sp)) checks_.push_back({std::move(address), false});
  }

  void compile_copy(std::string_view op, const std::vector<operand>& ops) {
    if (has_modifier(op, "commit_group") || has_modifier(op, "wait_group") || has_modifier(op, "wait_all")) return;
    if (has_modifier(op, "prefetch")) {  // into the cache only
      for (const auto& o : ops) scan(o);
      return;
    }
    if (has_modifier(op, "mbarrier") && has_modifier(op, "arrive")) return compile_store(op, ops);
    const space sp = first_space(op);
    if (sp == space::none || ops.empty() || !ops[0].bracketed()) return compile_unknown(ops);
    // cp.* [destination], [source], ...: the source is only read.
    taint all;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const taint t = scan(ops[i]);
      if (i != 1 || !ops[i].bracketed()) append(all, t);
    }
    sink(all);
    if (private_space(sp)) {  // what lands in shared memory came from anywhere
      taint into = all;
      add_label(into.consts, lbl::loaded_label);
      add_flow(flow_kind::copy, {memory_}, into);
    } else {
      taint address = scan(ops[0]);
      if (has_modifier(op, "tensor")) {  // [tensor map, {coordinates}]: the map names the memory
        std::uint32_t e = ops[0].begin + 2;
        while (e < ops[0].end - 1 && !body_[e].is(',')) ++e;
        address = scan(ops[0].begin + 1, e);
        checks_.push_back({std::move(address), true});
      } else {
        checks_.push_back({std::move(address), false});
      }
    }
  }

  void compile_call(const std::vector<operand>& ops) {
    std::size_t i = 0;
    taint rets, args, rest;
    if (i < ops.size() && ops[i].parenthesized()) rets = scan(ops[i++], true);
    if (i >= ops.size() || ops[i].parenthesized()) fail();
    const operand target = ops[i++];
    if (i < ops.size() && ops[i].parenthesized()) args = scan(ops[i++], true);
    for (; i < ops.size(); ++i) append(rest, scan(ops[i]));  // prototype or .calltargets label
    bool read_only = false;
    if (target.end == target.begin + 1 && body_[target.begin].name()) {
      auto it = mod_.symbols.find(body_[target.begin].text);
      read_only = it != mod_.symbols.end() && it->second.kind == sym_kind::function && !it->second.has_body &&
                  read_only_callee(it->first) && !regs_.count(it->first);
    }
    append(args, scan(target));
    append(args, rest);
    taint result;
    add_label(result.consts, lbl::loaded_label);
    if (!read_only) {
      // A function not analysed may write through anything it is given, and anything it loads.
      sink(args);
      sink(rets);
      indirect_ = true;
      append(result, args);
      result.vars.push_back(memory_);
      taint into = args;
      add_label(into.consts, lbl::loaded_label);
      add_flow(flow_kind::copy, {memory_}, into);
    }
    add_flow(flow_kind::copy, rets.vars, result);
  }

  void compile_unknown(const std::vector<operand>& ops) {
    taint all;
    for (const auto& o : ops) append(all, scan(o));
    sink(all);
    indirect_ = true;
    taint from = all;
    from.vars.push_back(memory_);
    add_label(from.consts, lbl::loaded_label);
    add_flow(flow_kind::copy, all.vars, from);
    add_flow(flow_kind::copy, {memory_}, from);
  }

  // ld.param through a register can only read parameters whose address was taken (each such
  // mention escapes its parameter); with none, the address came from elsewhere.
  void finish_param_loads() {
    label_set any;
    for (std::uint32_t p = 0; p < params_.size(); ++p)
      if (escaped_[p]) add_label(any, lbl::make(lbl::all_words, p));
    if (any.empty()) add_label(any, lbl::loaded_label);
    for (auto f : param_loads_) flows_[f].from.consts = any;
  }

  // -- solving ----------------------------------------------------------------------------------

  void union_into(label_set& u, const taint& t) {
    u = t.consts;
    for (auto v : t.vars) merge(u, labels_of_[v], scratch_);
  }

  void incoming(const flow& f, label_set& in) {
    if (f.kind == flow_kind::copy) return union_into(in, f.from);
    union_into(address_, f.address);
    const auto& a = address_;
    if (f.kind == flow_kind::store) {
      // A generic store may reach this kernel's shared/local memory unless its address is made
      // only of names of other memory (parameters' values, globals, constants).
      const bool maybe_own = a.empty() || std::any_of(a.begin(), a.end(), [](auto l) {
        return lbl::kind_of(l) == lbl::own_memory || lbl::kind_of(l) == lbl::loaded;
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
    if (!own) add_label(in, lbl::loaded_label);
    for (auto l : a)
      if (lbl::kind_of(l) == lbl::param_address) add_label(in, lbl::make(lbl::all_words, lbl::payload(l)));
    normalise(in);
  }

  void solve() {
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

  label_set union_of(const taint& t) {
    label_set u;
    union_into(u, t);
    return u;
  }

  kernel_writes result(std::string_view name) {
    label_set written = sink_consts_;
    std::sort(sink_vars_.begin(), sink_vars_.end());
    sink_vars_.erase(std::unique(sink_vars_.begin(), sink_vars_.end()), sink_vars_.end());
    for (auto v : sink_vars_) merge(written, labels_of_[v], scratch_);

    bool indirect = indirect_;
    for (const auto& c : checks_) {
      const label_set u = union_of(c.address);
      if (c.tensor_map) {
        // Only a map in the parameter space is followed: its address escapes the parameter.
        indirect = indirect || u.empty() || !std::all_of(u.begin(), u.end(), [](auto l) {
                     return lbl::kind_of(l) == lbl::param_address;
                   });
        continue;
      }
      const bool named = std::any_of(u.begin(), u.end(), [](auto l) { return lbl::kind_of(l) != lbl::loaded; });
      const bool from_memory = std::binary_search(u.begin(), u.end(), lbl::loaded_label);
      if (from_memory || !named) indirect = true;
    }

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
    return out;
  }

  const module_state& mod_;
  std::vector<ptx_param> params_;
  std::vector<token> body_;
  std::unordered_map<std::string_view, std::uint32_t> param_index_;
  std::vector<bool> escaped_;

  std::vector<statement> statements_;
  std::unordered_set<std::string_view> labels_, regs_, call_params_;
  std::unordered_map<std::string_view, std::uint32_t> body_symbols_;  // .shared/.local/.const: their label

  std::unordered_map<std::string_view, std::uint32_t> vars_;
  std::vector<label_set> labels_of_;
  std::uint32_t memory_ = 0;  // everything this kernel stores, as one pseudo register
  std::uint32_t carry_ = 0;   // the carry flag of add.cc/addc chains

  std::vector<flow> flows_;
  std::vector<std::size_t> param_loads_;
  std::vector<std::uint32_t> sink_vars_;
  label_set sink_consts_;
  std::vector<write_check> checks_;
  bool indirect_ = false;
  label_set scratch_, address_;
};

}  // namespace

std::vector<kernel_writes> analyse_ptx(std::string_view text) {
  std::vector<kernel_writes> out;
  try {
    const ptx::module_end end = ptx::for_each_entry(text, [&](const module_state& mod, ptx::entry&& e) {
      try {
        out.push_back(entry_analysis(mod, std::move(e.params), std::move(e.body)).run(e.name));
      } catch (const parse_error&) {
      }
    });
    if (end == ptx::module_end::not_understood) out.clear();  // trust nothing
  } catch (const std::exception&) {
    // Out of memory or similar: the entries analysed so far stand; the rest are left out.
  }
  return out;
}

}  // namespace acs::inference
