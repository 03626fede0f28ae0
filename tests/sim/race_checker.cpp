#include "race_checker.hpp"

namespace acs::sim {

void race_checker::check(cell c, const access_tag& earlier, const access_tag& later,
                         const vector_clock& clock, race_kind kind) {
  if (earlier.op == later.op || clock.get(earlier.timeline) >= earlier.tick) return;
  if (reported_.insert({earlier.op, later.op}).second) races_.push_back({c, earlier.op, later.op, kind});
}

void race_checker::read(cell c, const access_tag& who, const vector_clock& clock) {
  history& h = cells_.at(c);
  if (h.last_write) check(c, *h.last_write, who, clock, race_kind::read_after_write);
  for (access_tag& r : h.reads) {
    if (r.timeline == who.timeline) {
      // Accesses of one timeline are ordered: the latest read stands for all.
      if (who.tick >= r.tick) r = who;
      return;
    }
  }
  h.reads.push_back(who);
}

void race_checker::write(cell c, const access_tag& who, const vector_clock& clock) {
  history& h = cells_.at(c);
  if (h.last_write) check(c, *h.last_write, who, clock, race_kind::write_after_write);
  for (const access_tag& r : h.reads) check(c, r, who, clock, race_kind::write_after_read);
  h.last_write = who;
  h.reads.clear();
}

}  // namespace acs::sim
