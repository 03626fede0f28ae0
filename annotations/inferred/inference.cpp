#include "annotations/inferred/inference.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstring>

#include "annotations/inferred/suballocations.hpp"

namespace acs::inference {

namespace {

address load_word(const void* at) noexcept {
  address v;
  std::memcpy(&v, at, sizeof v);  // arguments need not be 8-byte aligned on the host
  return v;
}

// The words of one parameter (read_bytes: those that can hold a pointer).
template <class F>
void param_words(std::uint32_t index, const param_info& p, const unsigned char* bytes, F& f) {
  for (std::uint32_t rel = 0, n = read_bytes(p); rel < n; rel += word_bytes)
    f(argument_word{index, p.offset + rel, load_word(bytes + rel)});
}

template <class F>
words_status for_each_word(const param_layout* layout, void* const* params, void* const* extra, F&& f) {
  if (params != nullptr && extra != nullptr) return words_status::unreadable;
  if (params != nullptr) {
    if (layout == nullptr) return words_status::no_layout;
    for (std::uint32_t i = 0; i < layout->size(); ++i)
      if (params[i] == nullptr) return words_status::unreadable;
    for (std::uint32_t i = 0; i < layout->size(); ++i)
      param_words(i, (*layout)[i], static_cast<const unsigned char*>(params[i]), f);
    return words_status::ok;
  }
  if (extra == nullptr) {
    if (layout == nullptr) return words_status::no_layout;
    return layout->empty() ? words_status::ok : words_status::unreadable;
  }
  // extra: { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END }
  const unsigned char* buffer = nullptr;
  const std::size_t* size = nullptr;
  constexpr int max_entries = 16;
  int i = 0;
  for (; i < max_entries && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = static_cast<const unsigned char*>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
      size = static_cast<const std::size_t*>(extra[i + 1]);
    else
      return words_status::bad_extra;
  }
  if (i >= max_entries || buffer == nullptr || size == nullptr) return words_status::bad_extra;
  const std::size_t bytes = *size;
  if (layout == nullptr) {
    for (std::size_t o = 0; o + word_bytes <= bytes; o += word_bytes)
      f(argument_word{static_cast<std::uint32_t>(o / word_bytes), static_cast<std::uint32_t>(o),
                      load_word(buffer + o)});
    return words_status::ok;
  }
  for (const param_info& p : *layout)
    if (std::uint64_t{p.offset} + p.size > bytes) return words_status::bad_extra;
  for (std::uint32_t k = 0; k < layout->size(); ++k) param_words(k, (*layout)[k], buffer + (*layout)[k].offset, f);
  return words_status::ok;
}

// A written range is not also listed as read: a write conflicts with everything a read of the
// same bytes does (byte_range.hpp), and every footprint is compared, hashed into segment keys and
// copied many times, so the duplicate doubled that work for every pointer a kernel may write (all
// of them where its code is not read, as in PyTorch's kernels).
void add_allocation(access_set& out, const byte_range& r, bool written) {
  const auto in = [&](std::vector<byte_range>& v) { return std::find(v.begin(), v.end(), r); };
  if (in(out.writes) != out.writes.end()) return;
  if (!written) {
    if (in(out.reads) == out.reads.end()) out.reads.push_back(r);
    return;
  }
  if (const auto read = in(out.reads); read != out.reads.end()) out.reads.erase(read);
  out.writes.push_back(r);
}

// What the kernel's code says about memory its arguments do not show.
inference_result code_verdict(const param_layout* layout, const inference_options& options) noexcept {
  if (layout == nullptr || !layout->code_read) return options.code_required ? inference_result::no_code : inference_result::inferred;
  if (layout->textures) return inference_result::textures;
  if (layout->writes_anywhere) return inference_result::writes_anywhere;
  if (layout->writes_globals) return inference_result::global_writes;
  return inference_result::inferred;
}

inference_result as_result(words_status s) noexcept {
  switch (s) {
    case words_status::ok: return inference_result::inferred;
    case words_status::no_layout: return inference_result::no_layout;
    case words_status::bad_extra: return inference_result::bad_extra;
    case words_status::unreadable: return inference_result::unreadable;
  }
  return inference_result::unreadable;
}

}  // namespace

words_status argument_words(const param_layout* layout, void* const* params, void* const* extra,
                            std::vector<argument_word>& out) {
  return for_each_word(layout, params, extra, [&](const argument_word& w) { out.push_back(w); });
}

const char* to_string(inference_result r) noexcept {
  switch (r) {
    case inference_result::inferred: return "inferred";
    case inference_result::no_layout: return "parameter layout unknown";
    case inference_result::bad_extra: return "launch `extra` not parsable";
    case inference_result::unreadable: return "arguments unreadable";
    case inference_result::unknown_pointer: return "argument points into memory acs did not see allocated";
    case inference_result::no_allocation: return "no argument points into a known allocation";
    case inference_result::indirect: return "a parameter reaches memory through device-side pointers";
    case inference_result::global_writes: return "the kernel writes __device__ variables";
    case inference_result::writes_anywhere:
      return "the kernel writes through addresses read from memory, or calls code acs cannot analyse";
    case inference_result::textures: return "the kernel uses texture or surface objects";
    case inference_result::no_code: return "the kernel's code cannot be read (no PTX)";
  }
  return "unknown";
}

inference_result infer(const param_layout* layout, void* const* params, void* const* extra,
                       const allocation_map& allocations, pointer_probe& probe, access_set& out,
                       const inference_options& options) {
  out.reads.clear();
  out.writes.clear();
  // ACS_NO_PTX=everything: a kernel whose code was not read is everything, whatever its arguments
  // show, so they are not read. PyTorch's kernels have no PTX, and some pass kilobytes of
  // argument words (multi_tensor_apply's tensor lists), each looked up in the allocation maps.
  if (layout != nullptr && code_verdict(layout, options) == inference_result::no_code) {
    out.writes.assign(1, whole_address_space);
    return inference_result::no_code;
  }
  bool unseen = false;
  bool indirect = false;
  bool host = false;  // an argument in pinned host memory
  words_status status;
  {
    const allocation_map::reader map(allocations);
    const suballocation_map::reader subs(device_suballocations());  // a block of a caching allocator is its own unit
    status = for_each_word(layout, params, extra, [&](const argument_word& w) {
      // Without a layout, `param` is a word index: no signature applies.
      const param_info* p = layout != nullptr ? &(*layout)[w.param] : nullptr;
      const param_kind kind = p != nullptr ? p->kind : param_kind::value;
      indirect |= kind == param_kind::indirect;
      const bool written =
          !(options.trust_const && kind == param_kind::const_pointer) && (p == nullptr || p->may_write_at(w.offset));
      auto add = [&](const allocation& a) {
        add_allocation(out, a.range, written);
        host = host || a.kind == memory_kind::host;
      };
      if (const auto a = map.find_allocation(w.value)) {
        allocation unit = *a;
        unit.range = subs.lookup_unit(a->range, w.value).range;  // a caching allocator's block, if registered
        return add(unit);
      }
      if (unseen || !plausible_address(w.value)) return;
      const auto n = map.near(w.value, near_slack);
      if (n.below) add(*n.below);
      if (n.above) add(*n.above);
      unseen = probe.is_device_pointer(w.value);
    });
  }
  inference_result result = as_result(status);
  if (result == inference_result::inferred && indirect) result = inference_result::indirect;
  if (result == inference_result::inferred) result = code_verdict(layout, options);
  if (result == inference_result::inferred && unseen) result = inference_result::unknown_pointer;
  // Nothing written that acs can see (no argument in a known allocation, or only
  // pointer-to-const ones): what the kernel changes is invisible.
  if (result == inference_result::inferred && out.writes.empty()) result = inference_result::no_allocation;
  if (result != inference_result::inferred) {
    out.reads.clear();
    out.writes.assign(1, whole_address_space);
    return result;
  }
  if (layout != nullptr && layout->reads_anywhere) out.reads.assign(1, whole_address_space);  // its writes stand
  if (host && options.order_host_mapped) out.writes.push_back(host_order_token);
  return result;
}

void order_host_memory(const allocation_map& allocations, access_set& access) {
  if (!allocations.holds_host_memory()) return;
  for (const byte_range& w : access.writes)
    if (w == whole_address_space || w == host_order_token) return;
  const allocation_map::reader map(allocations);
  auto touches = [&](const std::vector<byte_range>& ranges) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const byte_range& r) { return map.touches_host(r); });
  };
  if (touches(access.writes) || touches(access.reads)) access.writes.push_back(host_order_token);
}

words_status pointer_arguments(const param_layout* layout, void* const* params, void* const* extra,
                               const allocation_map& allocations, pointer_probe& probe,
                               std::vector<pointer_argument>& out) {
  const allocation_map::reader map(allocations);
  const suballocation_map::reader subs(device_suballocations());
  return for_each_word(layout, params, extra, [&](const argument_word& w) {
    if (const auto r = map.find(w.value)) {
      const suballocation_map::unit u = subs.lookup_unit(*r, w.value);
      out.push_back({w, u.range, true, false, !u.charted});
      return;
    }
    if (!plausible_address(w.value)) return;
    const auto n = map.near(w.value, near_slack);
    const std::optional<allocation>& nearest = n.below ? n.below : n.above;
    pointer_argument a{w, nearest ? std::optional<byte_range>(nearest->range) : std::nullopt, false,
                       probe.is_device_pointer(w.value)};
    if (a.allocation || a.unseen) out.push_back(a);
  });
}

}  // namespace acs::inference
