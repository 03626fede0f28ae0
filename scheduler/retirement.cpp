// Entries leaving the window: once known complete (queried, or covered by a host sync or a
// later fork), or folded into their stream's summary while still running, so that a full
// window never loses a dependency (docs/design.md rule 7). And the fallback when one of acs's
// own calls fails: everything is forgotten, and each stream joins its pool work before its next
// work in place.
#include <algorithm>

#include "scheduler/scheduler_state.hpp"

namespace acs {

// An own CUDA call failed: nothing acs tracks can be trusted to be ordered any more. acs stops
// reordering: the window and summaries are forgotten, and every later kernel runs in place on its
// stream. Nothing is waited for here: a kernel on the pool may spin until one that the program
// launched and acs has not made yet (the launch being decided, a held segment's kernels) has run.
// Each stream's pool work stays in its `unjoined` bits: its next work in place joins it first
// (before_direct_work), by an event wait or, where that fails too, on the host (join_on_host).
void scheduler::state::fail() {
  if (broken) return;
  broken = true;
  ++stats.join_failures;
  win.remove_if([&](slot_id s) {
    drop_entry(s);
    return true;
  });
  for (auto& [key, vs] : vstreams) {
    vs.older.clear(released);
    vs.newer.clear(released);
    vs.folds_into_newer = 0;
    vs.fork_dirty = true;
  }
  release_all(released);
}

// Waits on the host for `vs`'s pool work, where an event join failed: only the pool streams it
// has work on that is not known complete (no other stream's work is queued behind it, rule 12).
void scheduler::state::join_on_host(vstream_state& vs) {
  for (std::uint64_t bits = vs.unjoined; bits != 0; bits &= bits - 1) {
    const auto p = static_cast<unsigned>(__builtin_ctzll(bits));
    if (pool[p].known_complete >= vs.unjoined_seq[p]) continue;
    (void)gpu.synchronize(pool[p].handle);
    pool.note_drained(p);
    ++stats.host_joins;
  }
  vs.unjoined = 0;
}

// Everything of `key` in the window and its summary issued up to `point`
// is covered by a later fork or a host sync: forget it.
void scheduler::state::drop_stream_entries(std::uintptr_t key, vstream_state& vs, std::uint64_t point) {
  win.remove_if([&](slot_id s) {
    if (win[s].vstream != key || win[s].stamp > point) return false;
    drop_entry(s);
    return true;
  });
  if (vs.older.last_stamp() <= point) vs.older.clear(released);
  if (vs.newer.last_stamp() <= point) {
    vs.newer.clear(released);
    vs.folds_into_newer = 0;
  }
  release_all(released);
}

// Makes room in a full window. The oldest entry may still be running: it is
// either seen complete, or folded into its stream's summary. Never lost.
// Its pool stream's second-newest kernel is asked first: older than the one
// most likely running there, it retires all but one of the stream's entries
// in one query while the GPU keeps up. Folding a quarter of the window at a
// time keeps queries to one per quarter-window of launches while it is behind.
void scheduler::state::make_room() {
  const slot_id o = win.oldest();
  const unsigned p = win[o].stream;
  const std::uint64_t oldest_seq = win[o].seq;
  pool_stream& ps = pool[p];
  if (ps.known_complete < oldest_seq) {
    const slot_id second = second_newest_on(p);
    if (second != no_slot && second != o && !probe(second)) return fail();
    if (ps.known_complete < oldest_seq && !probe(o)) return fail();
  }
  if (ps.known_complete >= oldest_seq) {
    const std::uint64_t done = ps.known_complete;
    win.remove_if([&](slot_id s) {
      if (win[s].stream != p || win[s].seq > done) return false;
      drop_entry(s);
      return true;
    });
    return;
  }
  const unsigned batch = std::max(1u, win.capacity() / 4);
  for (unsigned i = 0; i < batch && !win.empty() && !broken; ++i) fold_oldest();
}

ACS_STEP slot_id scheduler::state::second_newest_on(unsigned p) const {
  slot_id newest = no_slot, second = no_slot;
  win.for_each([&](slot_id s) {
    if (win[s].stream != p) return;
    second = newest;  // the window keeps a pool stream's entries in issue order
    newest = s;
  });
  return second;
}

// Queries entry `s` (recording its event first if it is its stream's tail);
// false when recording failed.
ACS_STEP bool scheduler::state::probe(slot_id s) {
  const window_entry& e = win[s];
  pool_stream& ps = pool[e.stream];
  if (ps.known_complete >= e.seq) return true;
  if (record_entry(s) != 0) return false;
  if (gpu.query_event(e.event) != event_state::pending)
    pool.note_complete(e.stream, e.seq);  // an error also means nothing more will run
  return true;
}

void scheduler::state::fold_oldest() {
  const slot_id s = win.oldest();
  if (record_entry(s) != 0) return fail();
  const window_entry& e = win[s];
  vstream_state& vs = vstreams[e.vstream];
  ++stats.folds;
  if (const event_handle unneeded = vs.newer.fold(e); unneeded != 0) events.release(unneeded);
  pool[e.stream].in_window--;
  win.remove(s);
  if (++vs.folds_into_newer >= win.capacity()) age_summaries(vs);
}

// Queries the older generation (oldest first, stopping at the first still
// running). Complete: drop it. Running: fold the newer into it.
void scheduler::state::age_summaries(vstream_state& vs) {
  vs.folds_into_newer = 0;
  bool complete = true;
  for (const folded_event& f : vs.older.events()) {
    pool_stream& ps = pool[f.stream];
    if (ps.known_complete >= f.seq) continue;
    if (gpu.query_event(f.event) == event_state::pending) {
      complete = false;
      break;
    }
    pool.note_complete(f.stream, f.seq);
  }
  if (complete) {
    vs.older.clear(released);
    std::swap(vs.older, vs.newer);
  } else {
    vs.older.absorb(vs.newer, released);
  }
  release_all(released);
}

void scheduler::state::pools_synchronized(std::uintptr_t owner, std::uint64_t point) {
  for (unsigned p = 0; p < pool.size(); ++p) {
    const pool_stream& ps = pool[p];
    if ((owner == no_owner || ps.owner == owner) && ps.last_stamp <= point) pool.note_drained(p);
  }
}

}  // namespace acs
