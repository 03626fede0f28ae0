#include "annotations/inferred/ptx_opcodes.hpp"

#include <unordered_map>

namespace acs::inference::ptx {

// The tables are never destroyed: acs's background thread may be analysing PTX while the process
// exits (src/runtime/background.hpp), after static destructors have run. Seen on the H200:
// cuda-samples' reduction crashed at exit (SIGSEGV) in 3 of 26 runs once the analysis began at
// its first probe rather than at load, and in none of 29 with the tables kept.
std::uint32_t type_bytes(std::string_view t) noexcept {
  static const auto& sizes = *new const std::unordered_map<std::string_view, std::uint32_t>{
      {"b8", 1},     {"u8", 1},     {"s8", 1},     {"b16", 2},    {"u16", 2},     {"s16", 2},
      {"f16", 2},    {"bf16", 2},   {"b32", 4},    {"u32", 4},    {"s32", 4},     {"f32", 4},
      {"f16x2", 4},  {"bf16x2", 4}, {"tf32", 4},   {"b64", 8},    {"u64", 8},     {"s64", 8},
      {"f64", 8},    {"b128", 16},  {"e4m3x2", 2}, {"e5m2x2", 2}, {"e4m3x4", 4},  {"e5m2x4", 4}};
  auto it = sizes.find(t);
  return it == sizes.end() ? 0 : it->second;
}

bool has_modifier(std::string_view op, std::string_view m) {
  bool found = false;
  for_each_modifier(op, [&](std::string_view c) {
    if (c == m || (c.size() > m.size() && c.substr(0, m.size()) == m && c[m.size()] == ':')) found = true;
  });
  return found;
}

namespace {

// The n-th (0-based) state space named by an opcode's modifiers.
space nth_space(std::string_view op, int n) {
  space s = space::none;
  for_each_modifier(op, [&](std::string_view c) {
    if (s != space::none) return;
    const std::string_view head = c.substr(0, c.find(':'));
    space named = space::none;
    if (head == "global") named = space::global;
    else if (head == "shared") named = space::shared;
    else if (head == "local") named = space::local;
    else if (head == "param") named = space::param;
    else if (head == "const") named = space::constant;
    if (named != space::none && n-- == 0) s = named;
  });
  return s;
}

std::string_view base_of(std::string_view op) { return op.substr(0, op.find('.')); }

}  // namespace

space first_space(std::string_view op) { return nth_space(op, 0); }

space second_space(std::string_view op) { return nth_space(op, 1); }

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

std::uint32_t element_bytes(std::string_view op) {
  std::uint32_t elem = 0;
  for_each_modifier(op, [&](std::string_view c) {
    if (std::uint32_t b = type_bytes(c)) elem = b;
  });
  return elem;
}

bool may_be_wide(std::string_view op) {
  bool typed = false, wide = false;
  for_each_modifier(op, [&](std::string_view c) {
    const std::uint32_t b = type_bytes(c);
    typed = typed || b != 0;
    wide = wide || b >= 8 || c == "wide";
  });
  return wide || !typed;
}

op_class classify(std::string_view op) {
  static const auto& classes = *[] {
    auto* const m = new std::unordered_map<std::string_view, op_class>;
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
      m->emplace(s, op_class::data);
    for (std::string_view s : {"bra", "brx", "ret", "exit", "trap", "brkpt", "membar", "fence", "nanosleep",
                               "pmevent", "griddepcontrol", "setmaxnreg", "applypriority", "stackrestore"})
      m->emplace(s, op_class::control);
    for (std::string_view s : {"ld", "ldu", "ldmatrix", "tex", "tld4", "txq", "suld", "suq", "prefetch", "prefetchu"})
      m->emplace(s, op_class::load);
    for (std::string_view s : {"st", "stmatrix", "atom", "red", "sust", "sured", "mbarrier", "discard", "tensormap"})
      m->emplace(s, op_class::store);
    m->emplace("cp", op_class::copy);
    m->emplace("call", op_class::call);
    return m;
  }();
  const std::string_view base = base_of(op);
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

bool texture_access(std::string_view op) {
  const std::string_view base = base_of(op);
  return base == "tex" || base == "tld4" || base == "suld" || base == "sust" || base == "sured";
}

bool reads_no_data(std::string_view op) {
  const std::string_view base = base_of(op);
  return base == "prefetch" || base == "prefetchu" || base == "txq" || base == "suq";
}

}  // namespace acs::inference::ptx
