#pragma once
// Graph replay of the application's launches (ACS_GRAPH=auto; docs/design.md §8): recurring
// segments of one stream's kernels, with the dependency edges their footprints give, launched
// as one instantiated CUDA graph in place of a launch per kernel.
//
// Why at the launches, not at the pool's calls (graph_replay.hpp, ACS_GRAPH=pool): the calls acs
// makes on its pool (which stream, which record, a fold or not) depend on the GPU's progress, so
// the same loop body gave a different sequence of calls almost every time and rarely recurred.
// The launches and their footprints are the program's own: the same loop body gives the same
// segments, whatever the GPU did meanwhile.
//
// Segments. A stream's kernels are cut into segments of `kernels` launches counted from the
// stream's last observation point (a sync, query, capture, direct work or event record on it),
// and at each observation point. Only one stream's segment is held at a time: a launch for
// another stream, and any observation point of any stream, ends it (work on another stream, a
// copy or a kernel spinning on a flag, must find it issued), as does flush() (before device-wide
// operations, and from the scheduler's idle thread: no launch for a whole `idle` interval).
//
// Recurrence. A segment's key starts with its stream's (an executable serves one stream: CUDA
// serialises the launches of one executable). Each kernel contributes words to it: its identity (function and
// launch configuration, backend::describe), its annotation group and its footprint's ranges.
// Equal keys give equal dependency edges, so an executable built for a key serves every later
// segment with that key; only argument values may differ (an update sets those). A rolling hash
// of the key's prefix is looked up per launch: a segment is held only while its prefix is the
// prefix of a segment seen before, so a sequence never seen goes the stream path at once, with
// no delay, for the cost of the hash. When a held prefix diverges, what was held goes the stream
// path, in order, and so does the rest of the segment.
//
// At a segment's end, if it was held whole: a cached executable of its key is updated and
// launched; else one is built once the key was seen `after` times; else the held kernels go the
// stream path. The cache keeps `cache` executables, least recently used evicted.
//
// Sampling. Looking for recurrence costs every launch its key words and a hash, and every
// segment's end the insertion of its prefixes (about 400 instructions a launch on the fake
// driver, +12% where nothing recurs). After `sample_after` segments in a row that were not held
// whole (barren: a never-recurring sequence, or one kernel between syncs), each later barren one
// halves the share of segments chosen, down to one in 16, at random (a fixed period could alias
// with the program's own and never see its recurring segment). A segment not chosen is still
// examined if its first kernel begins a segment seen before (one hash per segment); else it is
// skimmed: the stream path with no words, hash or prefix for the rest of it, as for a never-seen
// prefix. The first examined segment held whole examines every segment again. Only replays are
// delayed, never reordered: the stream path is the same.
//
// Order. A graph is launched as work issued directly on the application's stream (rule 2): the
// stream first joins its pool work, and later redirected kernels fork after the graph. Inside,
// the edges are every conflict (RAW, WAR, WAW) and every shared group between the segment's
// kernels, transitively reduced. Coarsened, never weakened: each kernel also follows all of the
// stream's earlier work, and later work follows the whole graph.
//
// Lanes. The driver's launch of a graph costs host time for every branch that may run side by
// side, about as much as a launch (H100, driver 580: 64 independent nodes 52 µs, the same 64
// kernels as 8 chains 6.6 µs, as one chain 1.2 µs; docs/design.md §8.1), so a graph of a wide
// segment gave back most of what its replay saved. The kernels are laid on at most `width`
// lanes, each a chain (list scheduling, each kernel on the lane where it can start first, one
// already ending in what it follows if there is one): an edge from a lane's previous kernel is
// one more order, never one fewer.
//
// Streams acs stepped aside from (in_order launches: src/runtime/stream_mode.hpp). Their kernels
// run on the stream itself, in order, with no footprint computed: each counts as touching every
// byte, so the edges make a chain, and the stream path is the stream itself (sink::run_in_place).
// Such a segment is replayed like any other, with the same keys but for a word that says the
// order; a launch whose order differs from the segment's (a probe redirected the stream, or it
// stepped aside) ends the segment first.
//
// Errors. Only detachable launches are held (backend::detach: their status is known to be
// success, rule 6); any other launch ends the segment first and goes the stream path. A graph
// that cannot be built or launched sends its kernels the stream path. Launches during a capture
// never reach the scheduler (dispatch.cpp), so the program's own graphs are untouched.
//
// Not thread-safe: called under the scheduler's lock.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "scheduler/backend.hpp"
#include "scheduler/byte_range.hpp"
#include "scheduler/hash_set64.hpp"
#include "scheduler/scheduler.hpp"

namespace acs {

struct segment_replay_config {
  unsigned after = 2;     // occurrences of a key before it is built, 1..
  unsigned cache = 256;   // executables kept, 1..
  unsigned kernels = 64;  // kernels per segment, 2..
  unsigned width = 8;     // lanes of a graph: kernels that may run side by side, 1..
  unsigned sample_after = 32;  // barren segments in a row before sampling starts; 0: examine all
};

struct segment_replay_stats {
  std::uint64_t built = 0;      // executables instantiated
  std::uint64_t replays = 0;    // graph launches
  std::uint64_t updates = 0;    // of those, of an executable whose arguments were set in place
  std::uint64_t evictions = 0;  // executables destroyed to make room
  std::uint64_t released = 0;   // held segments sent the stream path (new key, divergence, failure)
  std::uint64_t failures = 0;   // graph builds or launches that failed
  std::uint64_t kernels = 0;    // kernels launched in graphs
  std::uint64_t independent = 0;  // of those, with no edge into them: nothing in the graph to wait for
  std::uint64_t skimmed = 0;      // segments not examined for recurrence (sampling)
};

class segment_replay {
 public:
  // What the scheduler does with what is handed back.
  struct sink {
    virtual ~sink() = default;
    // The stream path, for the application's launch or (`detached`) a copy from backend::detach,
    // which the backend issues and frees.
    virtual backend_status dispatch(const virtual_stream& s, const access_set& access, const void* kernel,
                                    std::uint64_t group, bool detached) = 0;
    // The kernel run in place on `s`, in order, as work issued directly on it: a copy from
    // backend::detach (`detached`, issued and freed by the backend), with no capture-unsafe call
    // (see flush); or the application's launch of an in-order stream.
    virtual backend_status run_in_place(const virtual_stream& s, const void* kernel, bool detached) = 0;
    // The graph as work issued directly on `s`, its nodes' arguments set to those of
    // `graph.kernels` (copies from backend::detach; graph_update) first. `may_relay`: the program
    // goes on launching, so another thread may make these calls (issue_queue::relay_graph). 0:
    // launched, or queued to be, and the kernels are the sink's; non-zero: nothing was launched,
    // and the kernels are still the caller's.
    virtual backend_status launch_graph(const virtual_stream& s, graph_handle exec, const graph_description& graph,
                                        bool may_relay) = 0;
  };

  segment_replay(backend& gpu, sink& out, segment_replay_config config);
  ~segment_replay();  // destroys the executables; the caller flushed first
  segment_replay(const segment_replay&) = delete;
  segment_replay& operator=(const segment_replay&) = delete;

  // A launch for `s` of the stream path. Returns its status: 0 when it was held, or the stream
  // path's status when it went there (now, after what had to be issued before it).
  backend_status launch(const virtual_stream& s, const access_set& access, const void* kernel, std::uint64_t group);
  // A launch of a stream acs stepped aside from: in order on the stream itself, or held.
  backend_status launch_in_order(const virtual_stream& s, const void* kernel);
  // Issues the held segment, and the current segment's count starts again at the next launch:
  // at an observation point (the application observes or works directly on a stream; whichever
  // stream it is, the held kernels must be issued), a device-wide operation or the idle flush.
  // `safe_only`: the calling thread may not make capture-unsafe calls now (a capture is under
  // way, capture.hpp): the held kernels then run in place on their stream, in order, with no
  // graph built and no query made.
  void flush(bool safe_only = false);
  bool holding() const noexcept { return held_count_ != 0; }
  // Code is about to be unloaded: every cached executable is destroyed (the caller flushed, and
  // every graph launch was issued). An executable keeps the code it was built from, and a
  // function handle of the unloaded code may name another kernel afterwards: the same key must
  // then build a new executable, not launch the old one.
  void forget_executables() noexcept;
  // Launches seen: the idle thread flushes after an interval in which it did not move.
  std::uint64_t launches() const noexcept { return launches_; }
  segment_replay_stats stats() const noexcept { return stats_; }

 private:
  // A held kernel's footprint is not copied: its words in key_ hold it (the count word at
  // `words_at`, then the reads' and the writes' bounds), and only a release or a build reads it
  // back (access_of); the replay of a cached executable never does.
  struct held_kernel {
    const void* kernel = nullptr;  // detached
    std::size_t words_at = 0;
    std::uint64_t group = 0;
  };
  struct cached {
    std::vector<std::uint64_t> key;
    std::uint64_t hash = 0;         // the key's, its index in cache_
    std::vector<graph_edge> edges;  // equal keys give equal edges: an update passes these
    graph_handle exec = 0;
    std::uint32_t roots = 0;  // nodes with no edge into them
  };

  backend_status take(const virtual_stream& s, const access_set& access, const void* kernel, std::uint64_t group,
                       bool in_order);
  // The stream path of the current segment's owner.
  backend_status pass(const virtual_stream& s, const access_set& access, const void* kernel, std::uint64_t group,
                      bool detached);
  // `relay`: the segment ends while the program goes on launching (its length limit, a launch for
  // another stream), where the sink may have another thread launch its graph; at an observation
  // point the program's next call waits for that launch anyway (scheduler.hpp, settle_relayed).
  void end_segment(bool safe_only = false, bool relay = false);
  void release_held(bool in_place = false);
  // Sampling: whether the segment starting now is chosen to be examined, what an examined one's end
  // says, and a skimmed segment's launch (the stream path, nothing looked up or recorded).
  bool examines_next() noexcept;
  backend_status skim(const virtual_stream& s, const access_set& access, const void* kernel, std::uint64_t group);
  void examined(bool held_whole, std::uint64_t key_hash) noexcept;
  const cached* executable();
  void forget(const cached* graph);
  void edges_of(std::vector<graph_edge>& out) const;
  void access_of(const held_kernel& k, access_set& out) const;

  backend& gpu_;
  sink& out_;
  segment_replay_config config_;
  // The stream whose segment is current, and a copy of it for the stream path.
  virtual_stream owner_;
  bool owner_in_order_ = false;  // the segment's kernels run in order on the owner (launch_in_order)
  unsigned position_ = 0;   // kernels in the current segment
  bool holding_ = true;     // every kernel of the segment so far is held
  std::uint64_t prefix_ = 0;
  std::vector<std::uint64_t> prefixes_now_;  // the current segment's prefix hashes
  std::vector<std::uint64_t> key_;           // the current segment's key, while held
  std::vector<std::uint64_t> words_;         // scratch: one kernel's words (only grows)
  std::vector<held_kernel> held_;            // the first held_count_ are held
  access_set released_access_;               // scratch: a held kernel's footprint, read back to release it
  std::size_t held_count_ = 0;
  std::uint64_t launches_ = 0;
  // Sampling: examined segments in a row not held whole, one in `stride_` examined (a power of two,
  // 1..max_stride), and the current segment's choice; xorshift state for the choice.
  unsigned barren_ = 0;
  unsigned stride_ = 1;
  bool skimming_ = false;
  std::uint64_t choice_ = 0x2545f4914f6cdd1dull;
  static constexpr unsigned max_stride = 16;
  // Prefix hashes of segments seen, occurrences of whole keys (64-bit hashes: a collision only
  // holds a segment, or builds it, sooner), and the executables by their key's hash, each used only
  // for its own key.
  hash_set64 prefixes_;
  std::size_t max_prefixes_ = 0;
  std::unordered_map<std::uint64_t, unsigned> seen_;
  std::list<cached> lru_;
  std::unordered_map<std::uint64_t, std::list<cached>::iterator> cache_;  // by the key's hash
  std::vector<const void*> nodes_;  // scratch
  bool reused_ = false;             // executable() found it in the cache
  std::vector<graph_edge> edges_;
  segment_replay_stats stats_;
};

}  // namespace acs
