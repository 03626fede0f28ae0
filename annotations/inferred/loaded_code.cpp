#include "annotations/inferred/loaded_code.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "annotations/inferred/fatbin.hpp"

namespace acs::inference {

namespace {

// Images inside a loaded executable or shared object (what cudart registers) stay
// there until the object is unloaded, which unloads its modules first.
bool in_loaded_object(const void* p) {
  Dl_info info{};
  return dladdr(p, &info) != 0 && info.dli_fname != nullptr;
}

std::vector<std::string> ptx_texts(const void* bytes, std::uint32_t cc) {
  std::vector<std::string> texts;
  if (is_ptx_text(bytes)) {
    texts.emplace_back(static_cast<const char*>(bytes));
    return texts;
  }
  const auto entries = read_fatbin(bytes);
  if (!entries) return texts;
  for (const fatbin_entry* e : ptx_for_device(*entries, cc))
    if (auto text = ptx_text(*e)) texts.push_back(std::move(*text));
  return texts;
}

}  // namespace

std::shared_ptr<const kernel_writes> merge_writes(const kernel_writes& a, const kernel_writes& b) {
  if (a.param_bytes != b.param_bytes) return nullptr;
  auto merged = std::make_shared<kernel_writes>(a);
  merged->written_words.clear();
  std::set_union(a.written_words.begin(), a.written_words.end(), b.written_words.begin(), b.written_words.end(),
                 std::back_inserter(merged->written_words));
  merged->writes_globals = a.writes_globals || b.writes_globals;
  merged->writes_indirect = a.writes_indirect || b.writes_indirect;
  merged->reads_indirect = a.reads_indirect || b.reads_indirect;
  merged->uses_textures = a.uses_textures || b.uses_textures;
  merged->written_globals.clear();
  std::set_union(a.written_globals.begin(), a.written_globals.end(), b.written_globals.begin(),
                 b.written_globals.end(), std::back_inserter(merged->written_globals));
  return merged;
}

loaded_code::loaded_code() : analyse_(&loaded_code::analyse) {}

void loaded_code::loaded(const void* handle, code_handle_kind kind, const void* bytes) {
  if (handle == nullptr || bytes == nullptr) return;
  image code;
  code.kind = kind;
  if (is_ptx_text(bytes)) {
    if (!in_loaded_object(bytes)) {
      const auto* text = static_cast<const std::byte*>(bytes);
      code.copy = std::make_shared<const std::vector<std::byte>>(text, text + std::strlen(static_cast<const char*>(bytes)) + 1);
    }
  } else if (const auto span = fatbin_bytes(bytes)) {
    if (!in_loaded_object(bytes)) code.copy = std::make_shared<const std::vector<std::byte>>(span->begin(), span->end());
    else bytes = span->data();  // the fatbin itself, not nvcc's wrapper around it
  } else {
    unloaded(handle);  // a cubin: nothing to analyse, and an older image under this handle is gone
    return;
  }
  code.bytes = code.copy ? code.copy->data() : bytes;
  std::lock_guard lock(mutex_);
  code.order = ++loads_;
  images_.insert_or_assign(handle, std::move(code));
  module_library_.erase(handle);
}

void loaded_code::unloaded(const void* handle) {
  {
    std::lock_guard lock(mutex_);
    images_.erase(handle);
    module_library_.erase(handle);
    std::erase_if(module_library_, [&](const auto& m) { return m.second == handle; });
  }
  analysed_.notify_all();  // a launch waiting for this image's analysis finds it gone
}

const void* loaded_code::owner_of_module(const void* module) const {
  std::lock_guard lock(mutex_);
  if (images_.contains(module)) return module;
  const auto it = module_library_.find(module);
  return it == module_library_.end() ? nullptr : it->second;
}

void loaded_code::found_in(const void* module, const void* library) {
  std::lock_guard lock(mutex_);
  if (images_.contains(library)) module_library_.insert_or_assign(module, library);
}

std::vector<const void*> loaded_code::libraries() const {
  std::vector<std::pair<std::uint64_t, const void*>> found;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [handle, code] : images_)
      if (code.kind == code_handle_kind::library) found.emplace_back(code.order, handle);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const void*> handles;
  handles.reserve(found.size());
  for (const auto& f : found) handles.push_back(f.second);
  return handles;
}

std::vector<const void*> loaded_code::handles() const {
  std::vector<std::pair<std::uint64_t, const void*>> found;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [handle, code] : images_) found.emplace_back(code.order, handle);
  }
  std::sort(found.begin(), found.end());
  std::vector<const void*> out;
  out.reserve(found.size());
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

loaded_code::kernel_map loaded_code::analyse(const void* bytes, std::uint32_t cc) {
  kernel_map found;
  for (const std::string& text : ptx_texts(bytes, cc)) {
    for (kernel_writes& k : analyse_ptx(text)) {
      auto [at, fresh] = found.try_emplace(k.name, nullptr);
      if (fresh) {
        at->second = std::make_shared<const kernel_writes>(std::move(k));
      } else if (at->second != nullptr) {
        at->second = merge_writes(*at->second, k);  // nullptr: the two disagree, so neither is used
      }
    }
  }
  return found;
}

// Marks the image loaded as `handle` as being analysed for `cc` and says what to analyse, or
// returns false where it is gone, analysed for `cc` already, or being analysed. Under mutex_.
bool loaded_code::begin_analysis(const void* handle, std::uint32_t cc, analysis& a) {
  const auto it = images_.find(handle);
  if (it == images_.end() || it->second.analysed_for == cc || it->second.analysing_for != 0) return false;
  it->second.analysing_for = cc;
  a = {it->second.bytes, it->second.copy, it->second.order};
  return true;
}

// Stores what the analysis found (`found`; nullptr: it failed, and nothing is kept), where the
// image is still the one analysed, and wakes the launches waiting for it. Returns kernel `name`
// of it (nullptr where unknown, or the image went meanwhile).
std::shared_ptr<const kernel_writes> loaded_code::end_analysis(const void* handle, std::uint32_t cc,
                                                               const analysis& a, kernel_map* found,
                                                               std::string_view name) {
  std::shared_ptr<const kernel_writes> out;
  {
    std::lock_guard lock(mutex_);
    const auto it = images_.find(handle);
    if (it != images_.end() && it->second.order == a.order && it->second.analysing_for == cc) {
      if (found != nullptr) {
        it->second.kernels = std::move(*found);
        it->second.analysed_for = cc;
        if (const auto k = it->second.kernels.find(std::string(name)); k != it->second.kernels.end()) out = k->second;
      }
      it->second.analysing_for = 0;
    }
  }
  analysed_.notify_all();
  return out;
}

// The analysis itself runs without the lock: a library's takes up to 125 ms (cuSPARSE, which
// carries PTX), and meanwhile the program's own module loads (lazy loading, loaded()) and other
// launches' look-ups must not wait for it.
std::shared_ptr<const kernel_writes> loaded_code::writes(const void* handle, std::string_view name, std::uint32_t cc) {
  analysis a;
  {
    std::unique_lock lock(mutex_);
    auto it = images_.find(handle);
    // Being analysed (ahead, or for another launch): wait for it rather than analyse twice.
    while (it != images_.end() && it->second.analysing_for != 0 && it->second.analysed_for != cc) {
      analysed_.wait(lock);
      it = images_.find(handle);
    }
    if (it == images_.end()) return nullptr;
    if (it->second.analysed_for == cc) {
      const auto k = it->second.kernels.find(std::string(name));
      return k == it->second.kernels.end() ? nullptr : k->second;
    }
    (void)begin_analysis(handle, cc, a);  // neither analysed for cc nor being analysed: it begins
  }
  kernel_map found;
  try {
    found = analyse_(a.bytes, cc);
  } catch (...) {
    end_analysis(handle, cc, a, nullptr, name);
    throw;  // as the analysis under the lock did: the caller treats the kernel as unknown
  }
  return end_analysis(handle, cc, a, &found, name);
}

void loaded_code::analyse_ahead(const void* handle, std::uint32_t cc) {
  analysis a;  // its copy of a copied image outlives an unload meanwhile
  {
    std::lock_guard lock(mutex_);
    if (!begin_analysis(handle, cc, a)) return;
  }
  kernel_map found;
  bool ok = true;
  try {
    found = analyse_(a.bytes, cc);
  } catch (...) {
    ok = false;  // the launch that needs it analyses it itself, as without analysis ahead
  }
  end_analysis(handle, cc, a, ok ? &found : nullptr, {});
}

bool apply_writes(const kernel_writes& writes, param_layout& layout) noexcept {
  if (writes.param_bytes.size() != layout.size()) return false;
  for (std::size_t i = 0; i < layout.size(); ++i)
    if (writes.param_bytes[i] != layout[i].size) return false;
  for (param_info& p : layout) p.written_words = 0;
  for (const auto& [param, word] : writes.written_words)
    if (param < layout.size() && word < 64) layout[param].written_words |= std::uint64_t{1} << word;
  // Words past 64 always count as written (param_info::may_write_at).
  // __device__ variables written by name: memory no argument shows (and one may be passed
  // as an argument too, through cudaGetSymbolAddress). A kernel that writes or reads through
  // pointers read from memory, or uses textures, reaches memory no argument shows either:
  // inference then makes it write, or read, everything (docs/design.md rule 9).
  layout.code_read = true;
  layout.writes_globals = writes.writes_globals && (!writes.writes_indirect || !writes.written_globals.empty());
  layout.writes_anywhere = writes.writes_indirect;
  layout.reads_anywhere = writes.reads_indirect;
  layout.textures = writes.uses_textures;
  return true;
}

loaded_code& process_code() noexcept {
  static auto* const code = new loaded_code;  // never destroyed: hooks run until the end
  return *code;
}

}  // namespace acs::inference
