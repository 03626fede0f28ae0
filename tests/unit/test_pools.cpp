#include <gtest/gtest.h>

#include "scheduler/event_pool.hpp"
#include "recording_backend.hpp"
#include "scheduler/stream_pool.hpp"

namespace acs {
namespace {

TEST(event_pool, reuses_released_events) {
  testing::recording_backend gpu;
  event_pool pool(gpu);
  event_handle a = 0, b = 0, c = 0;
  ASSERT_EQ(pool.acquire(&a), 0);
  ASSERT_EQ(pool.acquire(&b), 0);
  EXPECT_NE(a, b);
  pool.release(a);
  ASSERT_EQ(pool.acquire(&c), 0);
  EXPECT_EQ(c, a);
  EXPECT_EQ(pool.created(), 2u);
  EXPECT_EQ(gpu.events_created, 2u);
}

TEST(stream_pool, creates_the_requested_streams) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(4), 0);
  EXPECT_EQ(pool.size(), 4u);
  EXPECT_EQ(gpu.streams_created, 4u);
}

TEST(stream_pool, least_loaded_prefers_fewest_in_window_then_round_robin) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(3), 0);
  pool[0].in_window = 2;
  pool[1].in_window = 1;
  pool[2].in_window = 1;
  pool.mark_chosen(1);
  EXPECT_EQ(pool.pick_least_loaded(1, 0), 2u);
  pool.mark_chosen(2);
  EXPECT_EQ(pool.pick_least_loaded(1, 0), 1u);
}

TEST(stream_pool, prefers_a_stream_known_idle) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(2), 0);
  pool[0].issued = 3;
  pool[0].known_complete = 1;  // may still be busy
  pool[1].issued = 5;
  pool[1].known_complete = 5;  // known idle
  pool.mark_chosen(1);
  EXPECT_EQ(pool.pick_least_loaded(1, 0), 1u);
}

TEST(stream_pool, redundant_waits_are_skipped) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(3), 0);
  pool[1].issued = 4;
  EXPECT_TRUE(pool.note_wait(0, 1, 3));
  EXPECT_FALSE(pool.note_wait(0, 1, 2));  // already after seq 3 of stream 1
  EXPECT_FALSE(pool.note_wait(0, 1, 3));
  EXPECT_TRUE(pool.note_wait(0, 1, 4));
  EXPECT_TRUE(pool.note_wait(2, 1, 2));   // another stream knows nothing yet
  EXPECT_FALSE(pool.note_wait(1, 1, 4));  // same stream: order is free
  pool[1].known_complete = 4;
  EXPECT_FALSE(pool.note_wait(2, 1, 4));  // complete: nothing to wait for
}

// docs/design.md rule 12: a pool stream whose owner's work there may not have finished is
// never picked for another application stream, however idle it looks; once that work is known
// complete, it is.
TEST(stream_pool_cross_stream_spin, a_stream_held_by_another_stream_is_not_picked) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(2), 0);
  constexpr std::uintptr_t a = 11, b = 22;
  pool.claim(0, a);
  pool[0].issued = 1;
  pool.claim(1, b);
  pool[1].issued = 1;
  pool[1].in_window = 5;  // busier, but b's own
  EXPECT_EQ(pool.pick_least_loaded(b, 0), 1u);
  EXPECT_EQ(pool.pick_least_loaded(a, 0), 0u);
  EXPECT_EQ(pool.pick_least_loaded(33, 0), stream_pool::none) << "both streams are held";
  pool.note_complete(0, 1);
  EXPECT_EQ(pool.pick_least_loaded(33, 0), 0u) << "a's work there is complete";
  pool.claim(0, 33);
  EXPECT_EQ(pool[0].owner, 33u);
}

// While one application stream holds every stream it launched on, picking checks no owner;
// a second holder is noticed, and so is its leaving.
TEST(stream_pool_cross_stream_spin, a_set_knows_its_only_holder) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(3), 0);
  EXPECT_EQ(pool.set(0).holder, no_owner);
  pool.claim(0, 11);
  pool.claim(1, 11);
  EXPECT_EQ(pool.set(0).holder, 11u);
  pool.claim(2, 22);
  EXPECT_EQ(pool.set(0).holder, stream_pool::several_owners);
  for (unsigned i = 0; i < 3; ++i) pool[i].issued = 1;  // all busy
  EXPECT_EQ(pool.pick_least_loaded(11, 0), 0u) << "stream 2 is 22's, busy";
  pool.disown(22, 99);
  EXPECT_EQ(pool[2].owner, 99u);
  pool.note_complete(2, 1);
  pool.claim(2, 11);  // 99's work there is done: 11 takes it over
  EXPECT_EQ(pool.pick_least_loaded(11, 0), 2u) << "known idle";
  EXPECT_EQ(pool.set(0).holder, 11u) << "found out again: only 11 is left";
}

TEST(stream_pool_cross_stream_spin, a_failed_launch_holds_its_stream_until_drained) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(1), 0);
  pool.claim(0, 11);
  pool[0].held = true;  // waits queued there, behind no kernel
  pool.note_complete(0, 0);
  EXPECT_EQ(pool.pick_least_loaded(22, 0), stream_pool::none) << "its kernels are done, its waits maybe not";
  pool.note_drained(0);
  EXPECT_EQ(pool.pick_least_loaded(22, 0), 0u);
}

// A kernel only goes to a pool stream of its application stream's priority: one set each.
TEST(stream_pool_stream_priority, streams_are_made_and_picked_by_priority) {
  testing::recording_backend gpu;
  stream_pool pool(gpu);
  ASSERT_EQ(pool.create(2), 0);
  EXPECT_EQ(pool.create(2, -3), status_not_supported) << "the recording backend has no priorities";
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.set_of(0), 0u);
  ASSERT_EQ(pool.set_of(-3), 1u) << "the failure is remembered";
  EXPECT_EQ(pool.set(1).begin, pool.set(1).end);
  for (unsigned i = 0; i < pool.size(); ++i) EXPECT_EQ(pool[i].priority, 0);
  EXPECT_EQ(pool.set_of(-5), stream_pool::none);
}

}  // namespace
}  // namespace acs
