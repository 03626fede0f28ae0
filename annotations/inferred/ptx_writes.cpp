#include "annotations/inferred/ptx_writes.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <unordered_map>
#include <unordered_set>

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

// An entry whose text is not understood with confidence: it is left out.
struct parse_error {};
[[noreturn]] void fail() { throw parse_error{}; }

// ---------------------------------------------------------------------------------------------
// Lexer. Comments are dropped; each token remembers whether it starts a line, because a few
// directives (.version, .target, .loc, .file...) end at the end of the line, not at ';'.

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

bool alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool ident_start(char c) noexcept { return alpha(c) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool ident_char(char c) noexcept { return alpha(c) || digit(c) || c == '_' || c == '$' || c == '.'; }

class lexer {
 public:
  explicit lexer(std::string_view s) noexcept : s_(s) {}

  token next() noexcept {
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

bool opens(const token& t) noexcept { return t.is('(') || t.is('[') || t.is('{'); }
bool closes(const token& t) noexcept { return t.is(')') || t.is(']') || t.is('}'); }

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

// Size in bytes of a PTX fundamental type name without its dot ("u64"), 0 if not one.
std::uint32_t type_bytes(std::string_view t) noexcept {
  static const std::unordered_map<std::string_view, std::uint32_t> sizes{
      {"b8", 1},     {"u8", 1},     {"s8", 1},     {"b16", 2},    {"u16", 2},     {"s16", 2},
      {"f16", 2},    {"bf16", 2},   {"b32", 4},    {"u32", 4},    {"s32", 4},     {"f32", 4},
      {"f16x2", 4},  {"bf16x2", 4}, {"tf32", 4},   {"b64", 8},    {"u64", 8},     {"s64", 8},
      {"f64", 8},    {"b128", 16},  {"e4m3x2", 2}, {"e5m2x2", 2}, {"e4m3x4", 4},  {"e5m2x4", 4}};
  auto it = sizes.find(t);
  return it == sizes.end() ? 0 : it->second;
}

// The dot-separated components of an opcode after its base: "ld.global.nc.u32" -> global, nc, u32.
template <class F>
void for_each_modifier(std::string_view op, F&& f) {
  std::size_t dot = op.find('.');
  while (dot != std::string_view::npos) {
    const std::size_t next = op.find('.', dot + 1);
    f(op.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1));
    dot = next;
  }
}

bool has_modifier(std::string_view op, std::string_view m) {
  bool found = false;
  for_each_modifier(op, [&](std::string_view c) {
    if (c == m || (c.size() > m.size() && c.substr(0, m.size()) == m && c[m.size()] == ':')) found = true;
  });
  return found;
}

enum class space : std::uint8_t { none, global, shared, local, param, constant };

// The first state space named by an opcode (the destination's, for copies).
space first_space(std::string_view op) {
  space s = space::none;
  for_each_modifier(op, [&](std::string_view c) {
    if (s != space::none) return;
    const std::string_view head = c.substr(0, c.find(':'));
    if (head == "global") s = space::global;
    else if (head == "shared") s = space::shared;
    else if (head == "local") s = space::local;
    else if (head == "param") s = space::param;
    else if (head == "const") s = space::constant;
  });
  return s;
}

bool private_space(space s) noexcept { return s == space::shared || s == space::local; }

// Bytes moved by one ld/st: vector count times the last fundamental type; 0 when unknown.
std::uint32_t access_bytes(std::string_view op) {
  std::uint32_t vec = 1;
  std::uint32_t elem = 0;
  for_each_modifier(op, [&](std::string_view c) {
    if (c == "v2") vec = 2;
    else if (c == "v4") vec = 4;
    else if (c == "v8") vec = 8;
    else if (std::uint32_t b = type_bytes(c)) elem = b;
  });
  return vec * elem;
}

// ---------------------------------------------------------------------------------------------
// Taint labels: one 32-bit value each, kind in the top bits so that sorted sets keep a kind
// together.
namespace lbl {
constexpr unsigned kind_shift = 28;
enum kind : std::uint32_t {
  word = 0,           // (param, word): the value of one 8-byte parameter word
  all_words = 1,      // every word of a parameter (a collapsed set, or an unknown offset)
  param_address = 2,  // the address of a parameter in the param space
  global = 3,         // the address of a module .global variable (payload: its index)
  own_memory = 4,     // the address of a .shared/.local variable: this kernel's own memory
  loaded = 5,         // a value read from memory: may be any pointer
  constant = 6,       // the address of a .const variable or a function: never written
};
constexpr std::uint32_t max_payload = (1u << kind_shift) - 1;
constexpr std::uint32_t word_bits = 14;  // param index and word index: 14 bits each
constexpr std::uint32_t make(kind k, std::uint32_t payload) noexcept {
  return (std::uint32_t{k} << kind_shift) | payload;
}
constexpr std::uint32_t make_word(std::uint32_t p, std::uint32_t w) noexcept {
  return make(word, (p << word_bits) | w);
}
constexpr kind kind_of(std::uint32_t l) noexcept { return static_cast<kind>(l >> kind_shift); }
constexpr std::uint32_t payload(std::uint32_t l) noexcept { return l & max_payload; }
constexpr std::uint32_t word_param(std::uint32_t l) noexcept { return payload(l) >> word_bits; }
constexpr std::uint32_t word_index(std::uint32_t l) noexcept { return payload(l) & ((1u << word_bits) - 1); }
constexpr std::uint32_t loaded_label = make(loaded, 0);
constexpr std::uint32_t own_label = make(own_memory, 0);
constexpr std::uint32_t constant_label = make(constant, 0);
}  // namespace lbl

using label_set = std::vector<std::uint32_t>;  // sorted, unique

// Past this many labels, a set's words collapse to "all words" of their parameters: sound, and
// keeps each set bounded by a few labels per parameter.
constexpr std::size_t collapse_at = 256;

void normalise(label_set& s) {
  bool any_all = false;
  for (auto it = s.rbegin(); it != s.rend() && lbl::kind_of(*it) >= lbl::all_words; ++it)
    if (lbl::kind_of(*it) == lbl::all_words) any_all = true;
  if (s.size() > collapse_at) {
    for (auto& l : s)
      if (lbl::kind_of(l) == lbl::word) l = lbl::make(lbl::all_words, lbl::word_param(l));
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    any_all = true;
  }
  if (!any_all) return;
  std::vector<std::uint32_t> whole;
  for (auto l : s)
    if (lbl::kind_of(l) == lbl::all_words) whole.push_back(lbl::payload(l));
  std::erase_if(s, [&](std::uint32_t l) {
    return lbl::kind_of(l) == lbl::word && std::binary_search(whole.begin(), whole.end(), lbl::word_param(l));
  });
}

// dst |= src; whether dst changed.
bool merge(label_set& dst, const label_set& src, label_set& scratch) {
  if (src.empty()) return false;
  scratch.clear();
  std::set_union(dst.begin(), dst.end(), src.begin(), src.end(), std::back_inserter(scratch));
  if (scratch.size() == dst.size()) return false;  // a superset of the same size: equal
  normalise(scratch);
  if (scratch == dst) return false;
  dst.swap(scratch);
  return true;
}

void add_label(label_set& s, std::uint32_t l) {
  auto it = std::lower_bound(s.begin(), s.end(), l);
  if (it == s.end() || *it != l) s.insert(it, l);
}

// ---------------------------------------------------------------------------------------------
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

// Calls known to only read what they are passed: printf and assert's runtime helpers. Declared
// .extern without a body in the module, so they are the CUDA runtime's own.
bool read_only_callee(std::string_view name) { return name == "vprintf" || name == "__assertfail"; }

// Names declared by a declaration statement's tokens [b, e): identifiers at depth 0 before '='.
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

struct ptx_param {
  std::string_view name;
  std::uint32_t bytes = 0;
};

constexpr std::uint32_t max_param_bytes = 1u << 16;  // PTX allows 32764 bytes of kernel parameters

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

// ---------------------------------------------------------------------------------------------
// How each opcode (its base, before the first dot) moves taint.

enum class op_class : std::uint8_t {
  data,     // registers only: destinations get the union of the sources
  control,  // no data effect
  load,     // reads memory into its destinations
  store,    // writes memory at its bracketed operands
  copy,     // cp.*: memory to memory
  call,
  unknown,  // anything else: treated as writing through every operand, from anywhere
};

op_class classify(std::string_view op) {
  static const std::unordered_map<std::string_view, op_class> classes = [] {
    std::unordered_map<std::string_view, op_class> m;
    for (std::string_view s :
         {"mov",     "add",       "sub",      "mul",      "mad",      "mul24",    "mad24",    "sad",
          "div",     "rem",       "abs",      "neg",      "min",      "max",      "popc",     "clz",
          "bfind",   "fns",       "brev",     "bfe",      "bfi",      "bmsk",     "szext",    "prmt",
          "and",     "or",        "xor",      "not",      "cnot",     "lop3",     "shf",      "shl",
          "shr",     "selp",      "slct",     "set",      "setp",     "cvt",      "cvta",     "isspacep",
          "fma",     "rcp",       "sqrt",     "rsqrt",    "sin",      "cos",      "lg2",      "ex2",
          "tanh",    "testp",     "copysign", "dp4a",     "dp2a",     "addc",     "subc",     "madc",
          "shfl",    "vote",      "match",    "redux",    "activemask", "mma",    "movmatrix", "elect",
          "getctarank", "mapa",   "createpolicy", "istypep", "alloca", "stacksave", "vadd",  "vsub",
          "vabsdiff", "vmin",     "vmax",     "vshl",     "vshr",     "vmad",     "vset",     "vadd2",
          "vsub2",   "vavrg2",    "vabsdiff2", "vmin2",   "vmax2",    "vset2",    "vadd4",    "vsub4",
          "vavrg4",  "vabsdiff4", "vmin4",    "vmax4",    "vset4"})
      m.emplace(s, op_class::data);
    for (std::string_view s : {"bra", "brx", "ret", "exit", "trap", "brkpt", "membar", "fence", "nanosleep",
                               "pmevent", "griddepcontrol", "setmaxnreg", "applypriority", "stackrestore"})
      m.emplace(s, op_class::control);
    for (std::string_view s : {"ld", "ldu", "ldmatrix", "tex", "tld4", "txq", "suld", "suq", "prefetch", "prefetchu"})
      m.emplace(s, op_class::load);
    for (std::string_view s : {"st", "stmatrix", "atom", "red", "sust", "sured", "mbarrier", "discard", "tensormap"})
      m.emplace(s, op_class::store);
    m.emplace("cp", op_class::copy);
    m.emplace("call", op_class::call);
    return m;
  }();
  const std::string_view base = op.substr(0, op.find('.'));
  if (base == "bar" || base == "barrier") return has_modifier(op, "red") ? op_class::data : op_class::control;
  if (base == "wgmma") return has_modifier(op, "mma_async") ? op_class::data : op_class::control;
  if (base == "wmma") {
    if (has_modifier(op, "load")) return op_class::load;
    if (has_modifier(op, "store")) return op_class::store;
    return has_modifier(op, "mma") ? op_class::data : op_class::unknown;
  }
  if (base == "multimem") return has_modifier(op, "ld_reduce") ? op_class::load : op_class::store;
  auto it = classes.find(base);
  return it == classes.end() ? op_class::unknown : it->second;
}

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

// ---------------------------------------------------------------------------------------------
// Module level.

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
step parse_entry(token_stream& s, module_state& mod, std::vector<kernel_writes>& out) {
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
  if (!ok) return step::ok;
  try {
    out.push_back(entry_analysis(mod, std::move(params), std::move(body)).run(name.text));
  } catch (const parse_error&) {
  }
  return step::ok;
}

}  // namespace

std::vector<kernel_writes> analyse_ptx(std::string_view ptx) {
  std::vector<kernel_writes> out;
  try {
    token_stream s(ptx);
    module_state mod;
    while (s.peek().kind != tk::end) {
      const token t = s.take();
      if (t.is(".version") || t.is(".target") || t.is(".address_size") || t.is(".file") || t.is(".loc")) {
        skip_line(s);
      } else if (t.is(".section")) {  // debug information
        while (!s.peek().is('{')) {
          if (s.peek().kind == tk::end) return out;
          if (s.peek().is(';')) return {};
          s.take();
        }
        s.take();
        if (!skip_block(s)) return out;
      } else if (t.is(".visible") || t.is(".extern") || t.is(".weak") || t.is(".common")) {
      } else if (t.is(".entry")) {
        const step r = parse_entry(s, mod, out);
        if (r == step::end) return out;
        if (r == step::bad) return {};
      } else if (t.is(".func") || t.is(".alias")) {
        if (!skip_function(s, mod, t.is(".alias"))) return out;
      } else if (t.is(".global") || t.is(".tex")) {
        if (!parse_variable(s, mod, sym_kind::global)) return out;
      } else if (t.is(".shared") || t.is(".local")) {
        if (!parse_variable(s, mod, sym_kind::own)) return out;
      } else if (t.is(".const")) {
        if (!parse_variable(s, mod, sym_kind::constant)) return out;
      } else if (t.is(".pragma")) {
        while (s.peek().kind != tk::end && !s.peek().is(';')) s.take();
        s.take();
      } else {
        return {};  // not understood: perhaps the rest of a body closed early; trust nothing
      }
    }
  } catch (const std::exception&) {
    // Out of memory or similar: the entries analysed so far stand; the rest are left out.
  }
  return out;
}

}  // namespace acs::inference
