#include "src/trace/collector.hpp"

#include <cstring>

namespace acs::trace {

void record_batch::clear() noexcept {
  kernels.clear();
  copies.clear();
  correlations.clear();
  incomplete = 0;
  dropped = 0;
}

collector::collector(collector_limits limits) : limits_(limits) {
  names_.emplace_back("(unknown)");  // name_id 0: a record without a name
  by_text_.emplace(names_.front(), 0);
}

name_id collector::intern(const char* name) {
  if (name == nullptr) return 0;
  // The pointer cache is checked against the text: a pointer may be reused for
  // another name once a module is unloaded.
  if (const auto it = by_pointer_.find(name);
      it != by_pointer_.end() && std::strcmp(names_[it->second].c_str(), name) == 0)
    return it->second;
  auto [it, added] = by_text_.try_emplace(name, static_cast<name_id>(names_.size()));
  if (added) names_.push_back(it->first);
  by_pointer_[name] = it->second;
  return it->second;
}

namespace {
// Appends `item` unless `to` holds `limit` already: then it counts as dropped. Returns whether kept.
template <class Records, class Item>
bool keep(Records& to, std::size_t limit, const Item& item, std::uint64_t& dropped) {
  if (to.size() >= limit) {
    ++dropped;
    return false;
  }
  to.push_back(item);
  return true;
}
}  // namespace

void collector::append(const record_batch& batch) {
  std::lock_guard lock(mutex_);
  dropped_ += batch.dropped;
  incomplete_ += batch.incomplete;
  for (const auto& k : batch.kernels)
    if (keep(kernels_, limits_.kernels, k.record, dropped_)) kernels_.back().name = intern(k.name);
  for (const auto& c : batch.copies)
    if (keep(copies_, limits_.copies, c.record, dropped_)) copies_.back().name = intern(c.name);
  for (const auto& c : batch.correlations) keep(correlations_, limits_.correlations, c, dropped_);
}

void collector::add_dropped(std::uint64_t count) {
  std::lock_guard lock(mutex_);
  dropped_ += count;
}

void collector::copy_into(snapshot& out) const {
  std::lock_guard lock(mutex_);
  out.names = names_;
  out.kernels = kernels_;
  out.copies = copies_;
  out.correlations = correlations_;
  out.dropped += dropped_;
  out.incomplete += incomplete_;
}

}  // namespace acs::trace
