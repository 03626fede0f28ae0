#include "annotations/inferred/ptx_labels.hpp"

#include <algorithm>
#include <iterator>

namespace acs::inference::ptx {

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

}  // namespace acs::inference::ptx
