#include "scheduler/segment_replay.hpp"

#include <algorithm>
#include <bit>
#include <iterator>

namespace acs {

namespace {

constexpr std::uint64_t seed = 0x9e3779b97f4a7c15ull;

constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t w) noexcept {
  h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  return h * 0xbf58476d1ce4e5b9ull;
}

// The hash of a key's prefix extended by one kernel's n words: a cheap step per word (a rotate
// and a multiply, which carry every bit of it upwards and back round) and the full mix once per
// kernel. Its quality only decides how soon a segment is held or built; an executable is reused
// only for an equal key (executable()).
inline std::uint64_t extend(std::uint64_t h, const std::uint64_t* w, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) h = std::rotl(h ^ w[i], 29) * 0x9fb21c651e98df25ull;
  return mix(h, n);
}

// Bounds on what recurrence detection remembers: past them it starts again (forgetting costs
// only later replays, never correctness). Prefixes: as many as the cached executables' segments
// have kernels, twice over (keys seen but not yet built), so that the table stays small enough
// for the processor's cache: with a 4 MB table, inserting a never-recurring sequence's prefixes
// missed it on every launch.
constexpr std::size_t max_seen = 1u << 16;
constexpr std::size_t min_prefixes = 4096;

}  // namespace

segment_replay::segment_replay(backend& gpu, sink& out, segment_replay_config config)
    : gpu_(gpu), out_(out), config_(config), prefix_(seed) {
  config_.after = std::max(config_.after, 1u);
  config_.cache = std::max(config_.cache, 1u);
  config_.kernels = std::max(config_.kernels, 2u);
  config_.width = std::max(config_.width, 1u);
  max_prefixes_ = std::max(min_prefixes, std::size_t{2} * config_.cache * config_.kernels);
}

segment_replay::~segment_replay() {
  for (const cached& c : lru_) gpu_.graph_destroy(c.exec);
}

void segment_replay::forget_executables() noexcept {
  for (const cached& c : lru_) gpu_.graph_destroy(c.exec);
  cache_.clear();
  lru_.clear();
}

backend_status segment_replay::launch(const virtual_stream& s, const access_set& access, const void* kernel,
                                      std::uint64_t group) {
  // A skimmed segment's next launch on its stream: what take() would do, without its frame.
  if (skimming_ && s.key == owner_.key && !owner_in_order_) {
    ++launches_;
    return skim(s, access, kernel, group);
  }
  return take(s, access, kernel, group, /*in_order=*/false);
}

backend_status segment_replay::launch_in_order(const virtual_stream& s, const void* kernel) {
  // Never destroyed: a launch may come during exit, after static destructors.
  static const access_set& everything = *new access_set(access_set::everything());
  return take(s, everything, kernel, 0, /*in_order=*/true);
}

backend_status segment_replay::pass(const virtual_stream& s, const access_set& access, const void* kernel,
                                    std::uint64_t group, bool detached) {
  return owner_in_order_ ? out_.run_in_place(s, kernel, detached) : out_.dispatch(s, access, kernel, group, detached);
}

backend_status segment_replay::take(const virtual_stream& s, const access_set& access, const void* kernel,
                                    std::uint64_t group, bool in_order) {
  ++launches_;
  if (s.key != owner_.key || in_order != owner_in_order_) {
    end_segment(false, /*relay=*/true);  // a segment holds one stream's kernels, all of one order
    owner_ = s;
    owner_in_order_ = in_order;
  }
  if (skimming_) return skim(s, access, kernel, group);
  // Sampling: a segment not chosen is skimmed unless its first kernel begins a segment seen before
  // (checked below, once its hash is known).
  const bool may_skim = position_ == 0 && !examines_next();
  // Never held, and the segment ends before it: a launch of a thread-relative stream (its
  // segment could end on another thread, the idle flush's for one, which would launch the graph on
  // its own stream), and one that no graph node can carry.
  kernel_identity id;
  if (s.thread_relative || !gpu_.identify(kernel, &id)) {
    end_segment();
    return pass(s, access, kernel, group, /*detached=*/false);
  }
  // The kernel's words of the key (identity, group, footprint): their hash always, for the
  // segment's prefixes; appended to the key only while the segment is held. Written in a scratch
  // buffer that only grows (the key's own resize and shrink were about 70 instructions a launch).
  const std::size_t n_words = (position_ == 0 ? 2 : 0) + std::size(id.words) + 2 +
                              2 * (access.reads.size() + access.writes.size());
  if (words_.size() < n_words) words_.resize(n_words);
  const std::uint64_t* const words = words_.data();
  std::uint64_t* w = words_.data();
  // The stream first: CUDA runs the launches of one executable one after another, so an
  // executable shared by two streams would serialise them (seen on the H200: cuda-samples'
  // simpleHyperQ, 32 streams of the same kernels, at x0.10). One stream's launches are ordered
  // anyway.
  if (position_ == 0) *w++ = s.key, *w++ = in_order;
  for (std::uint64_t x : id.words) *w++ = x;
  *w++ = group;
  const std::size_t footprint_at = static_cast<std::size_t>(w - words);  // its count word (access_of)
  *w++ = access.reads.size() << 32 | access.writes.size();
  for (const byte_range& r : access.reads) *w++ = r.first, *w++ = r.last;
  for (const byte_range& r : access.writes) *w++ = r.first, *w++ = r.last;
  const std::uint64_t h = extend(prefix_, words, n_words);
  const bool known = prefixes_.contains(h);
  if (may_skim && !known) {
    skimming_ = true;
    return skim(s, access, kernel, group);
  }
  if (holding_ && known) {
    // Held: only now copied. A launch whose status is not known in advance (backend::detach)
    // is never held: the segment ends before it, which takes no words of it.
    if (const void* detached = gpu_.detach(kernel)) {
      const std::size_t words_at = key_.size() + footprint_at;
      key_.insert(key_.end(), words, words + n_words);
      ++position_;
      prefix_ = h;
      prefixes_now_.push_back(h);
      if (held_.size() <= held_count_) held_.emplace_back();
      held_kernel& k = held_[held_count_++];
      k.kernel = detached;
      k.words_at = words_at;
      k.group = group;
      if (position_ >= config_.kernels) end_segment(false, /*relay=*/true);
      return 0;
    }
    end_segment();
    return pass(s, access, kernel, group, /*detached=*/false);
  }
  ++position_;
  prefix_ = h;
  prefixes_now_.push_back(h);
  // A prefix never seen: what was held goes first, then this kernel and the rest of the segment
  // go the stream path, as without graphs (the key is only hashed from here on).
  if (holding_) {
    release_held();
    holding_ = false;
    key_.clear();
  }
  const backend_status st = pass(s, access, kernel, group, /*detached=*/false);
  if (position_ >= config_.kernels) end_segment(false, /*relay=*/true);
  return st;
}

backend_status segment_replay::skim(const virtual_stream& s, const access_set& access, const void* kernel,
                                    std::uint64_t group) {
  ++position_;
  const backend_status st = pass(s, access, kernel, group, /*detached=*/false);
  if (position_ >= config_.kernels) end_segment(false, /*relay=*/true);
  return st;
}

void segment_replay::flush(bool safe_only) { end_segment(safe_only); }

void segment_replay::end_segment(bool safe_only, bool relay) {
  if (position_ == 0) return;
  if (skimming_) {  // nothing held, and nothing to record
    ++stats_.skimmed;
    skimming_ = false;
    position_ = 0;
    return;
  }
  // Held whole: every kernel since the segment began (an undetachable one ends it before itself).
  examined(holding_ && position_ >= 2, prefix_);
  if (position_ >= 2) {  // a single kernel is never a graph
    if (prefixes_.size() + prefixes_now_.size() > max_prefixes_) prefixes_.clear();
    for (const std::uint64_t p : prefixes_now_) prefixes_.insert(p);
    if (seen_.size() >= max_seen) seen_.clear();
    ++seen_[prefix_];
  }
  if (held_count_ != 0) {
    const cached* graph = holding_ && held_count_ >= 2 && !safe_only ? executable() : nullptr;
    if (graph != nullptr &&
        out_.launch_graph(owner_, graph->exec,
                          {nodes_.data(), nodes_.size(), graph->edges.data(), graph->edges.size()}, relay) == 0) {
      ++stats_.replays;
      if (reused_) ++stats_.updates;
      stats_.kernels += held_count_;
      stats_.independent += graph->roots;
      held_count_ = 0;  // the sink's now
    } else {
      if (graph != nullptr) {
        ++stats_.failures;
        forget(graph);  // built again at its next occurrence
      }
      release_held(safe_only);
    }
  }
  position_ = 0;
  holding_ = true;
  prefix_ = seed;
  prefixes_now_.clear();
  key_.clear();
}

bool segment_replay::examines_next() noexcept {
  if (stride_ == 1) return true;
  choice_ ^= choice_ << 13;
  choice_ ^= choice_ >> 7;
  choice_ ^= choice_ << 17;
  return (choice_ & (stride_ - 1)) == 0;
}

void segment_replay::examined(bool held_whole, std::uint64_t key_hash) noexcept {
  choice_ ^= key_hash;  // what the program launched stirs the choice too
  if (choice_ == 0) choice_ = seed;
  if (held_whole || config_.sample_after == 0) {
    barren_ = 0;
    stride_ = 1;
  } else if (barren_ < config_.sample_after) {
    ++barren_;
  } else {
    stride_ = std::min(stride_ * 2, max_stride);
  }
}

void segment_replay::release_held(bool in_place) {
  if (held_count_ == 0) return;
  ++stats_.released;
  for (std::size_t i = 0; i < held_count_; ++i) {
    if (in_place) {
      (void)out_.run_in_place(owner_, held_[i].kernel, /*detached=*/true);
      continue;
    }
    access_of(held_[i], released_access_);
    (void)pass(owner_, released_access_, held_[i].kernel, held_[i].group, /*detached=*/true);
  }
  held_count_ = 0;
}

void segment_replay::access_of(const held_kernel& k, access_set& out) const {
  const std::uint64_t* w = key_.data() + k.words_at;
  const std::size_t reads = *w >> 32, writes = *w & 0xffffffffu;
  ++w;
  out.reads.resize(reads);
  out.writes.resize(writes);
  for (byte_range& r : out.reads) r.first = *w++, r.last = *w++;
  for (byte_range& r : out.writes) r.first = *w++, r.last = *w++;
}

// The held segment's executable: the cached one of its key (the sink sets its arguments, with
// the launch); or a new one once the key was seen `after` times; nullptr for the stream path.
// nodes_ receives the held kernels.
const segment_replay::cached* segment_replay::executable() {
  nodes_.clear();
  reused_ = false;
  try {
    for (std::size_t i = 0; i < held_count_; ++i) nodes_.push_back(held_[i].kernel);
    // Found by the key's hash (prefix_, computed launch by launch), used only for an equal key.
    if (const auto hit = cache_.find(prefix_); hit != cache_.end()) {
      if (hit->second->key == key_) {
        lru_.splice(lru_.begin(), lru_, hit->second);
        reused_ = true;
        return &*hit->second;
      }
      // Another key of the same hash: built again below.
      gpu_.graph_destroy(hit->second->exec);
      lru_.erase(hit->second);
      cache_.erase(hit);
    } else if (const auto it = seen_.find(prefix_); it == seen_.end() || it->second < config_.after) {
      return nullptr;
    }
    edges_of(edges_);
    const graph_description d{nodes_.data(), nodes_.size(), edges_.data(), edges_.size()};
    graph_handle exec = 0;
    if (gpu_.graph_instantiate(d, &exec) != 0 || exec == 0) {
      ++stats_.failures;
      return nullptr;
    }
    ++stats_.built;
    if (lru_.size() >= config_.cache) {
      gpu_.graph_destroy(lru_.back().exec);
      cache_.erase(lru_.back().hash);
      lru_.pop_back();
      ++stats_.evictions;
    }
    std::vector<bool> entered(held_count_, false);
    for (const graph_edge& e : edges_) entered[e.to] = true;
    const auto roots = static_cast<std::uint32_t>(std::count(entered.begin(), entered.end(), false));
    lru_.push_front({key_, prefix_, edges_, exec, roots});
    cache_.emplace(prefix_, lru_.begin());
    return &lru_.front();
  } catch (...) {  // out of memory: the stream path needs none
    return nullptr;
  }
}

// A cached executable whose update or launch failed: destroyed (the backend drains what was
// queued first), so that its key is built again.
void segment_replay::forget(const cached* graph) {
  const auto it = cache_.find(graph->hash);
  if (it == cache_.end() || &*it->second != graph) return;
  gpu_.graph_destroy(graph->exec);
  lru_.erase(it->second);
  cache_.erase(it);
}

// Every conflict and shared group between the held kernels, and the edge from each kernel's
// lane (segment_replay.hpp), transitively reduced: a later kernel takes an edge from an earlier
// one only when no edge it already has leads there. Visiting the earlier kernels from the latest
// back makes that test exact.
void segment_replay::edges_of(std::vector<graph_edge>& out) const {
  out.clear();
  const std::size_t n = held_count_, words = (n + 63) / 64;
  const auto has = [](const std::uint64_t* bits, std::size_t i) { return (bits[i / 64] >> (i % 64)) & 1u; };
  const auto add = [](std::uint64_t* bits, std::size_t i) { bits[i / 64] |= std::uint64_t{1} << (i % 64); };
  std::vector<std::uint64_t> ancestors(n * words, 0), follows(words, 0);
  std::vector<access_set> access(n);
  for (std::size_t i = 0; i < n; ++i) access_of(held_[i], access[i]);
  // Each lane's last kernel, and each kernel's step: one after the latest of what it follows (a
  // kernel counts as one step: the kernels' lengths are not known). A lane is free from its last
  // kernel's step on.
  constexpr std::size_t none = ~std::size_t{0};
  std::vector<std::size_t> lane_last(std::min<std::size_t>(config_.width, n), none), finish(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    std::uint64_t* const aj = &ancestors[j * words];
    std::fill(follows.begin(), follows.end(), 0);
    std::size_t ready = 0;  // the step at which everything j follows has finished
    for (std::size_t i = 0; i < j; ++i) {
      const held_kernel& a = held_[i];
      const held_kernel& b = held_[j];
      if (!(a.group != 0 && a.group == b.group) && !conflicts(access[i], access[j])) continue;
      add(follows.data(), i);
      ready = std::max(ready, finish[i]);
    }
    // The lane: one whose last kernel j follows anyway, free by then (no new order); else an
    // empty one; else the one free soonest, which orders j after its last kernel.
    std::size_t lane = none;
    for (std::size_t l = 0; l < lane_last.size() && lane == none; ++l)
      if (lane_last[l] != none && has(follows.data(), lane_last[l])) lane = l;
    for (std::size_t l = 0; l < lane_last.size() && lane == none; ++l)
      if (lane_last[l] == none) lane = l;
    if (lane == none) {
      lane = 0;
      for (std::size_t l = 1; l < lane_last.size(); ++l)
        if (finish[lane_last[l]] < finish[lane_last[lane]]) lane = l;
      add(follows.data(), lane_last[lane]);
      ready = std::max(ready, finish[lane_last[lane]]);
    }
    finish[j] = ready + 1;
    lane_last[lane] = j;
    for (std::size_t i = j; i-- > 0;) {
      if (has(aj, i) || !has(follows.data(), i)) continue;
      out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
      const std::uint64_t* const ai = &ancestors[i * words];
      for (std::size_t w = 0; w < words; ++w) aj[w] |= ai[w];
      add(aj, i);
    }
  }
}

}  // namespace acs
