// How each instruction moves taint (ptx_entry.hpp): the flows it adds, what it writes through
// (sinks), and the accesses whose addresses must name their memory (checks).
#include "annotations/inferred/ptx_entry.hpp"

#include "annotations/inferred/ptx_opcodes.hpp"

namespace acs::inference::ptx {

namespace {

// Calls known to only read what they are passed: printf and assert's runtime helpers. Declared
// .extern without a body in the module, so they are the CUDA runtime's own.
bool read_only_callee(std::string_view name) { return name == "vprintf" || name == "__assertfail"; }

}  // namespace

void entry_analysis::compile(const statement& s) {
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
  if (texture_access(op)) textures_ = true;
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

void entry_analysis::compile_data(std::string_view op, const std::vector<operand>& ops) {
  if (ops.empty()) return;
  for (const auto& o : ops)
    if (o.bracketed()) return compile_unknown(ops);
  const std::string_view base = op.substr(0, op.find('.'));
  std::vector<std::uint32_t> dests = scan(ops[0]).vars;
  taint from;
  std::size_t values = 0;  // registers of the operands that give the result its bits
  for (std::size_t i = 1; i < ops.size(); ++i) {
    append(from, scan(ops[i]));
    if (i <= 2 || (base != "selp" && base != "slct")) values = from.vars.size();
  }
  // Carry flags travel between add.cc and addc: through a pseudo register.
  if (has_modifier(op, "cc")) dests.push_back(carry_);
  if (base == "addc" || base == "subc" || base == "madc") from.vars.push_back(carry_);
  if (base == "wgmma") from.vars.push_back(memory_);  // reads shared memory through descriptors
  if (base == "alloca" || base == "stacksave") add_label(from.consts, lbl::own_label);  // the stack: local
  // Comparisons and predicates hold no address, whatever the width of what they compare.
  const bool address_like = may_be_wide(op) && base != "setp" && base != "set" && base != "testp" &&
                            base != "vote" && base != "isspacep" && base != "istypep";
  if (!address_like) return add_flow(flow_kind::copy, std::move(dests), from);
  // A 64-bit result of two indices read from memory may be a pointer put together from them; so
  // may one shifted into the upper half.
  const bool low_shift = ops.size() == 3 && ops[2].end == ops[2].begin + 1 &&
                         body_[ops[2].begin].kind == tk::number && parse_number(body_[ops[2].begin].text).value_or(64) < 32;
  add_combine(std::move(dests), from, base == "shl" && !low_shift ? 1 : 2, values);
}

void entry_analysis::compile_load(std::string_view op, const std::vector<operand>& ops) {
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
  const std::uint32_t element = element_bytes(op);
  const bool narrow = element != 0 && element <= 4;
  if (private_space(sp)) {  // this kernel's shared/local memory: what it stored there
    taint t;
    t.vars.push_back(memory_);
    scan(ops[addr]);
    if (narrow) return add_flow(flow_kind::copy, std::move(dests), t);
    return add_combine(std::move(dests), t, 1);  // 8 bytes may join indices stored side by side
  }
  taint address;
  for (const auto& o : ops)
    if (o.bracketed()) append(address, scan(o));
  // Constant memory is never written by kernels: a load from it needs no check.
  if (sp != space::constant && !reads_no_data(op)) read_checks_.push_back({address, false});
  add_flow(flow{flow_kind::load, std::move(dests), {}, address, 0, 0, narrow});
}

void entry_analysis::compile_store(std::string_view op, const std::vector<operand>& ops) {
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

void entry_analysis::compile_copy(std::string_view op, const std::vector<operand>& ops) {
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
    checks_.push_back(copy_address(op, ops[0]));
  }
  if (ops.size() > 1 && ops[1].bracketed() && !private_space(second_space(op)))
    read_checks_.push_back(copy_address(op, ops[1]));
}

// A copy's [address], or for tensor copies its [tensor map, {coordinates}]: the map names the memory.
entry_analysis::access_check entry_analysis::copy_address(std::string_view op, const operand& o) {
  if (!has_modifier(op, "tensor")) return {scan(o), false};
  std::uint32_t e = o.begin + 2;
  while (e < o.end - 1 && !body_[e].is(',')) ++e;
  return {scan(o.begin + 1, e), true};
}

void entry_analysis::compile_call(const std::vector<operand>& ops) {
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

void entry_analysis::compile_unknown(const std::vector<operand>& ops) {
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

}  // namespace acs::inference::ptx
