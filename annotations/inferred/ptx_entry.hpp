#pragma once
// The write analysis of one .entry body (ptx_writes.hpp says what it proves). Internal to
// annotations/inferred/: ptx_entry.cpp holds the statements, operands and the solver,
// ptx_instructions.cpp how each instruction moves taint.
//
// How: each .entry body is split into statements; each instruction becomes flows between taint
// sets (registers, the call-site .params, one pseudo register for the kernel's own shared/local
// memory, one for the carry flag), solved to a fixpoint with a worklist. Then:
//  * every label reaching an operand of a memory write (store, atomic, copy destination, call to
//    a function not analysed, instruction not known) is written: the address, and also the value
//    stored, which escapes;
//  * every write outside the kernel's own shared/local memory must have an address made of
//    labels that name its memory (a parameter word, a global, its own memory); an address built
//    from a value read from memory, or from nothing, makes the kernel "indirect": all written;
//  * every read of memory other kernels may write must have an address that names its memory
//    too; a pointer read from memory in it makes the kernel read anything (reads_indirect), an
//    index read from memory and added to a named address does not (attributed()).
// Values read from global/generic memory carry the "loaded" label, or "loaded_index" when read in
// elements of at most 4 bytes (never a whole pointer, until two are combined into 64 bits);
// values read from the kernel's own shared/local memory carry what the kernel stored there (plus
// "loaded" once anything from elsewhere, such as a cp.async copy, may have landed there).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "annotations/inferred/ptx_labels.hpp"
#include "annotations/inferred/ptx_lexer.hpp"
#include "annotations/inferred/ptx_module.hpp"
#include "annotations/inferred/ptx_writes.hpp"

namespace acs::inference::ptx {

// An entry whose text is not understood with confidence: it is left out.
struct parse_error {};
[[noreturn]] void fail();

class entry_analysis {
 public:
  entry_analysis(const module_state& mod, std::vector<ptx_param> params, std::vector<token> body);

  /// @brief Analyses the body: what kernel `name` may write through, and what else it may reach.
  kernel_writes run(std::string_view name);

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
    copy,     // dests |= from
    combine,  // copy, into a value that may be 64 bits: indices read from memory may make a pointer
    load,     // dests |= what may be read at address (generic or global memory)
    store,    // dests (memory) |= from, if address may be this kernel's shared/local memory
  };
  struct flow {
    flow_kind kind;
    std::vector<std::uint32_t> dests;
    taint from, address;
    // combine: this many source registers carrying an index read from memory (loaded_index) may
    // assemble a whole pointer (halves, bytes): the result is then "loaded". Only the first
    // `counted` registers of `from` count (selp's selector picks, it adds no bits). load: the
    // elements read are at most 4 bytes (an index at most, not a pointer).
    std::uint8_t pieces = 0;
    std::uint32_t counted = 0;
    bool narrow = false;
  };
  // An access to memory outside the kernel's own shared/local space: its address must be made of
  // labels that name the memory it reaches.
  struct access_check {
    taint address;
    bool tensor_map;  // the address is a TMA tensor map: the memory is named inside it
  };

  // -- statements -------------------------------------------------------------------------------

  void split_statements();
  void declare(const statement& s);

  // -- operands ---------------------------------------------------------------------------------

  std::uint32_t intern(std::string_view name);

  std::vector<operand> split_operands(std::uint32_t b, std::uint32_t e) const;

  void resolve(const token& t, taint& out, bool call_params_allowed);
  taint scan(std::uint32_t b, std::uint32_t e, bool call_params_allowed = false);
  taint scan(const operand& o, bool call_params_allowed = false) { return scan(o.begin, o.end, call_params_allowed); }

  static void append(taint& to, const taint& from) {
    to.vars.insert(to.vars.end(), from.vars.begin(), from.vars.end());
    for (auto l : from.consts) add_label(to.consts, l);
  }

  void add_flow(flow_kind k, std::vector<std::uint32_t> dests, const taint& from, const taint& address = {}) {
    add_flow(flow{k, std::move(dests), from, address});
  }
  void add_flow(flow f) {
    if (!f.dests.empty()) flows_.push_back(std::move(f));
  }
  void add_combine(std::vector<std::uint32_t> dests, const taint& from, std::uint8_t pieces,
                   std::size_t counted = ~std::size_t{0}) {
    const auto n = static_cast<std::uint32_t>(std::min(counted, from.vars.size()));
    add_flow(flow{flow_kind::combine, std::move(dests), from, {}, pieces, n});
  }

  // Every label of these registers and constants is written through (or escapes).
  void sink(const taint& t) {
    sink_vars_.insert(sink_vars_.end(), t.vars.begin(), t.vars.end());
    for (auto l : t.consts) add_label(sink_consts_, l);
  }

  std::optional<std::pair<std::uint32_t, std::uint64_t>> symbol_address(const operand& o) const;

  // -- instructions -----------------------------------------------------------------------------

  void compile(const statement& s);
  void compile_data(std::string_view op, const std::vector<operand>& ops);
  void compile_load(std::string_view op, const std::vector<operand>& ops);
  void compile_store(std::string_view op, const std::vector<operand>& ops);
  void compile_copy(std::string_view op, const std::vector<operand>& ops);
  access_check copy_address(std::string_view op, const operand& o);
  void compile_call(const std::vector<operand>& ops);
  void compile_unknown(const std::vector<operand>& ops);
  void finish_param_loads();

  // -- solving ----------------------------------------------------------------------------------

  void union_into(label_set& u, const taint& t);
  void incoming(const flow& f, label_set& in);
  void solve();

  label_set union_of(const taint& t) {
    label_set u;
    union_into(u, t);
    return u;
  }

  kernel_writes result(std::string_view name);
  bool attributed(const access_check& c, bool write);

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
  std::vector<access_check> checks_;       // writes outside the kernel's own memory
  std::vector<access_check> read_checks_;  // reads of memory other kernels may write
  bool indirect_ = false;
  bool textures_ = false;
  label_set scratch_, address_;
};

}  // namespace acs::inference::ptx
