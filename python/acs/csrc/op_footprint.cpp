#include "op_footprint.hpp"

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>

#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace acs_torch {

namespace {

// ATen operators whose CUDA kernels read or write through arrays of device pointers that they
// build themselves (batched cuBLAS / cuSOLVER / MAGMA calls, grouped GEMMs): the memory behind
// the pointers is an output allocated inside the operator and reached by no kernel argument,
// so neither the schema nor the completion of the declaration sees it. Also cuDNN's RNNs,
// whose dropout state is a cached buffer that no argument of lstm/gru names and that the
// kernels update in training. Whole names, then prefixes.
constexpr std::array<std::string_view, 20> pointer_array_ops = {
    "aten::cholesky",      "aten::cholesky_solve", "aten::cholesky_inverse", "aten::_cholesky_solve_helper",
    "aten::triangular_solve", "aten::lu_solve",    "aten::lu_unpack",        "aten::_lu_with_info",
    "aten::geqrf",         "aten::orgqr",          "aten::ormqr",            "aten::inverse",
    "aten::det",           "aten::logdet",         "aten::slogdet",          "aten::svd",
    "aten::pinverse",      "aten::qr",             "aten::_grouped_mm",      "aten::_scaled_grouped_mm",
};
constexpr std::array<std::string_view, 4> pointer_array_prefixes = {
    "aten::linalg_", "aten::_linalg_", "aten::_cudnn_rnn", "aten::miopen_rnn"};

// Arguments that some schemas leave unannotated although the operator writes them in
// training: batch norm's running statistics (PyTorch's own SchemaInfo lists these ops as
// "training ops"), and the RNG state of cuDNN's RNN dropout.
constexpr std::array<std::string_view, 3> written_by_name = {"running_mean", "running_var", "dropout_state"};

bool any_write(const c10::AliasInfo& a) {
  if (a.isWrite()) return true;
  for (const c10::AliasInfo& c : a.containedTypes())
    if (any_write(c)) return true;
  return false;
}

bool trusted_namespace(std::string_view name, const options& o) {
  const auto sep = name.find("::");
  if (sep == std::string_view::npos) return false;
  const std::string_view ns = name.substr(0, sep);
  for (const std::string& t : o.trusted)
    if (ns == t) return true;
  return false;
}

op_kind kind_of(const c10::FunctionSchema& s, const std::vector<bool>& written, const options& o) {
  const std::string& name = s.name();
  if (!trusted_namespace(name, o)) return op_kind::unsafe;
  for (const std::string_view p : pointer_array_ops)
    if (name == p) return op_kind::unsafe;
  for (const std::string_view p : pointer_array_prefixes)
    if (std::string_view(name).substr(0, p.size()) == p) return op_kind::unsafe;
  for (const bool w : written)
    if (w) return op_kind::declared;
  if (s.returns().empty()) return op_kind::declared;
  for (const c10::Argument& r : s.returns())
    if (r.alias_info() == nullptr) return op_kind::declared;  // a fresh result: it may compute
  return op_kind::transparent;
}

std::unique_ptr<op_info> make_info(const c10::FunctionSchema& s, const options& o) {
  auto info = std::make_unique<op_info>();
  info->name = s.name();
  info->arguments = s.arguments().size();
  info->vararg = s.is_vararg();
  for (const c10::Argument& a : s.arguments()) {
    bool w = a.alias_info() != nullptr && any_write(*a.alias_info());
    for (const std::string_view n : written_by_name) w = w || a.name() == n;
    info->written.push_back(w);
  }
  info->kind = kind_of(s, info->written, o);
  return info;
}

// Every op_info ever made lives until the process ends: threads keep raw pointers to them.
struct info_store {
  std::mutex mutex;
  std::deque<std::unique_ptr<op_info>> infos;
  std::unordered_map<std::string, const op_info*> by_schema;  // "name.overload(args)"
  std::atomic<std::uint64_t> generation{1};  // forget_infos() bumps it: thread-local caches start over
};

info_store& store() {
  static auto* const s = new info_store;
  return *s;
}

struct thread_cache {
  std::uint64_t generation = 0;
  // Keyed by the schema's name string: RecordFunction::name() points into the operator's
  // FunctionSchema, which lives as long as the operator is registered. Hits are checked
  // against the name and the argument count (a freed schema's address could be reused).
  std::unordered_map<const char*, const op_info*> by_name;
};

}  // namespace

const op_info* info_of(const at::RecordFunction& fn, const options& o) {
  thread_local thread_cache cache;
  info_store& s = store();
  const std::uint64_t generation = s.generation.load(std::memory_order_acquire);
  if (cache.generation != generation) {
    cache.by_name.clear();
    cache.generation = generation;
  }
  const char* const name = fn.name();
  if (name == nullptr) return nullptr;
  const auto hit = cache.by_name.find(name);
  if (hit != cache.by_name.end() && hit->second != nullptr && std::strcmp(hit->second->name.c_str(), name) == 0 &&
      (hit->second->vararg || hit->second->arguments == fn.num_inputs()))
    return hit->second;
  const std::optional<c10::FunctionSchema> schema = fn.operator_schema();  // a copy: only on a miss
  if (!schema) return nullptr;  // a RecordFunction of a name, not an operator: not cached
  std::string key = schema->name() + "." + schema->overload_name() + "/" + std::to_string(schema->arguments().size());
  const op_info* info = nullptr;
  {
    std::lock_guard lock(s.mutex);
    auto& slot = s.by_schema[key];
    if (slot == nullptr) {
      s.infos.push_back(make_info(*schema, o));
      slot = s.infos.back().get();
    }
    info = slot;
  }
  // Only the schema's own name string is a stable key.
  cache.by_name[name] = info;
  return info;
}

void forget_infos() {
  info_store& s = store();
  std::lock_guard lock(s.mutex);
  s.by_schema.clear();  // the infos themselves stay: a thread may still hold one
  s.generation.fetch_add(1, std::memory_order_acq_rel);
}

acs_range all_memory() noexcept {
  // [1, 2^64 - 2]: every address a kernel can use, without wrapping (which acs would report).
  return {reinterpret_cast<const void*>(std::uintptr_t{1}), SIZE_MAX - 1};
}

namespace {

// The bytes a strided tensor can touch, from its first element: data_ptr() plus
// (1 + sum over dimensions of (size - 1) * stride) elements. False: it cannot be told.
bool tensor_extent(const at::Tensor& t, acs_range& out) {
  if (t.layout() != c10::kStrided || t.is_nested() || !t.has_storage()) return false;
  const std::int64_t n = t.numel();
  if (n == 0) {
    out = {nullptr, 0};
    return true;
  }
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  std::uint64_t span = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 1) continue;
    if (strides[d] < 0) return false;
    span += static_cast<std::uint64_t>(sizes[d] - 1) * static_cast<std::uint64_t>(strides[d]);
  }
  const void* p = t.const_data_ptr();  // not data_ptr(): that would materialise a lazy copy
  if (p == nullptr) return false;
  out = {p, static_cast<std::size_t>(span * t.element_size())};
  return true;
}

bool on_declared_device(const at::Tensor& t, const options& o) {
  const c10::DeviceType d = t.device().type();
  return d == c10::DeviceType::CUDA || (o.cpu_tensors && d == c10::DeviceType::CPU);
}

// Adds what one input holds. False: something in it cannot be accounted for.
bool add_value(const c10::IValue& v, bool written, const options& o, declaration& out, int depth = 0) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) return true;
    if (!on_declared_device(t, o)) {
      // A CPU tensor holds no device memory (a wrapped scalar, an index list): what a kernel
      // could reach of it (pinned memory) its pointer argument shows. A tensor of another
      // kind (a wrapper subclass, a meta tensor) may stand for anything.
      return t.device().type() == c10::DeviceType::CPU || t.device().type() == c10::DeviceType::Meta;
    }
    acs_range r;
    if (!tensor_extent(t, r)) return false;
    if (r.bytes != 0) (written ? out.writes : out.reads).push_back(r);
    return true;
  }
  if (v.isNone() || v.isInt() || v.isDouble() || v.isBool() || v.isComplexDouble() || v.isSymInt() ||
      v.isSymFloat() || v.isSymBool() || v.isString() || v.isDevice() || v.isGenerator() || v.isStream() ||
      v.isEnum() || v.isIntList() || v.isDoubleList() || v.isBoolList() || v.isComplexDoubleList())
    return true;
  if (depth > 4) return false;
  if (v.isList()) {
    for (const c10::IValue& e : v.toListRef())
      if (!add_value(e, written, o, out, depth + 1)) return false;
    return true;
  }
  if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements())
      if (!add_value(e, written, o, out, depth + 1)) return false;
    return true;
  }
  return false;  // objects, storages, dictionaries, futures...: not visible from here
}

}  // namespace

void declare(const op_info& info, c10::ArrayRef<const c10::IValue> inputs, const options& o, declaration& out) {
  out.clear();
  if (info.vararg || inputs.size() != info.arguments) {
    out.everything = true;
    return;
  }
  try {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!add_value(inputs[i], info.written[i], o, out)) {
        out.everything = true;
        return;
      }
    }
  } catch (...) {
    out.everything = true;  // e.g. a tensor whose data pointer cannot be read
  }
  if (out.reads.size() + out.writes.size() > ACS_MAX_RANGES) out.everything = true;
}

}  // namespace acs_torch
