// Application streams and their pool work (scheduler.hpp, "virtual-stream note"): the lazy
// join that makes a stream wait for its redirected kernels, the fork that orders later kernels
// after work issued on the stream directly, and the legacy stream's implicit synchronisation
// (docs/design.md rules 2-4).
#include <algorithm>

#include "scheduler/backend_check.hpp"
#include "scheduler/scheduler_state.hpp"

namespace acs {

// An event recorded on pool stream `p` after its kernel `seq`: the earliest
// window entry there from `seq` on, else a temporary one recorded now (later
// than needed, never earlier). 0 when that kernel is known complete.
backend_status scheduler::state::covering_event(unsigned p, std::uint64_t seq, event_handle& out, bool& temporary) {
  out = 0;
  temporary = false;
  if (pool[p].known_complete >= seq) return 0;
  slot_id best = no_slot;
  win.for_each([&](slot_id s) {
    const window_entry& e = win[s];
    if (e.stream == p && e.seq >= seq && (best == no_slot || e.seq < win[best].seq)) best = s;
  });
  if (best != no_slot) {
    ACS_BACKEND_CHECK(record_entry(best));
    out = win[best].event;
    return 0;
  }
  ACS_BACKEND_CHECK(events.acquire(&out));
  const backend_status recorded = gpu.record_event(out, pool[p].handle);
  if (recorded != 0) {
    events.release(out);
    out = 0;
  }
  ACS_BACKEND_CHECK(recorded);
  temporary = true;
  return 0;
}

// Makes `target` wait for the pool work of `source` that `source` itself
// does not wait for yet.
backend_status scheduler::state::join_into(stream_handle target, const vstream_state& source) {
  for (std::uint64_t bits = source.unjoined; bits != 0; bits &= bits - 1) {
    const auto p = static_cast<unsigned>(__builtin_ctzll(bits));
    event_handle e = 0;
    bool temporary = false;
    ACS_BACKEND_CHECK(covering_event(p, source.unjoined_seq[p], e, temporary));
    if (e == 0) continue;
    const backend_status waited = gpu.wait_event(target, e);
    if (temporary) events.release(e);
    ACS_BACKEND_CHECK(waited);
    ++stats.join_waits;
  }
  return 0;
}

// The stream waits for all its own pool work. Where an event join fails, acs stops reordering
// and the host waits for that work (retirement.cpp, fail).
void scheduler::state::join_own(vstream_state& vs) {
  if (vs.unjoined == 0) return;
  if (join_into(vs.handle, vs) != 0) {
    fail();
    join_on_host(vs);
  }
  vs.unjoined = 0;
}

// What the legacy stream's implicit synchronisation needs before work on `s`:
// the legacy stream waits for blocking streams, blocking streams for the
// legacy stream. Their pool work is made a wait of `s` itself (a per-thread
// default stream can only be named by its own thread).
void scheduler::state::join_coupled(const virtual_stream& s) {
  if (s.kind == stream_kind::non_blocking) return;
  for (auto& [key, other] : vstreams) {
    if (key == s.key || other.unjoined == 0) continue;
    const bool coupled =
        s.kind == stream_kind::legacy ? other.kind == stream_kind::blocking : other.kind == stream_kind::legacy;
    if (coupled && join_into(s.handle, other) != 0) {
      fail();
      join_on_host(other);  // complete: nobody waits for it any more
    }
  }
}

// Records the fork event on the application stream, after the stream has
// joined its own pool work (and, under legacy coupling, the other side's).
backend_status scheduler::state::refresh_fork(const virtual_stream& s, vstream_state& vs, bool coupled) {
  join_own(vs);
  if (coupled) join_coupled(s);
  if (broken) return 1;
  event_handle e = vs.fork_event;
  if (e == 0) ACS_BACKEND_CHECK(events.acquire(&e));
  const backend_status recorded = gpu.record_event(e, s.handle);
  if (recorded != 0 && vs.fork_event == 0) events.release(e);
  ACS_BACKEND_CHECK(recorded);
  vs.fork_event = e;
  vs.fork_waiters = 0;
  vs.fork_dirty = false;
  vs.seen_legacy_epoch = legacy_epoch;
  vs.seen_blocking_epoch = blocking_epoch;
  drop_stream_entries(s.key, vs);
  return 0;
}

// Before work is issued on `s` directly: it must follow s's pool work, and
// the implicit synchronisation of the legacy stream.
void scheduler::state::before_direct_work(const virtual_stream& s) {
  join_own(vstream(s));
  join_coupled(s);
}

// After it: the next redirected kernel forks after it. Marked only now, so
// that another thread's launch in between cannot take a fork recorded before
// the work (refresh_fork joins whatever that launch added).
void scheduler::state::after_direct_work(const virtual_stream& s) {
  vstream_state& vs = vstream(s);
  bump_epoch(s.kind);
  vs.fork_dirty = true;
  drop_stream_entries(s.key, vs);
}

// A blocking stream forgotten (destroyed, or a per-thread default stream whose
// thread ended) with kernels it never joined: the legacy stream's implicit
// synchronisation must still wait for them. They move to a stream-less
// blocking entry that only legacy coupling reads (and a device sync clears).
void scheduler::state::orphan_unjoined(const vstream_state& vs) {
  if (vs.unjoined == 0 || vs.kind != stream_kind::blocking) return;
  vstream_state& o = vstreams[orphans_key];
  o.kind = stream_kind::blocking;
  // A pool stream's sequence numbers only grow: the later kernel of the two covers both.
  for (std::uint64_t bits = vs.unjoined; bits != 0; bits &= bits - 1) {
    const auto p = static_cast<unsigned>(__builtin_ctzll(bits));
    o.unjoined_seq[p] = std::max(o.unjoined_seq[p], vs.unjoined_seq[p]);
  }
  o.unjoined |= vs.unjoined;
  o.unjoined_stamp = std::max(o.unjoined_stamp, vs.unjoined_stamp);
}

}  // namespace acs
