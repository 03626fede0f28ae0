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
  EXPECT_EQ(pool.pick_least_loaded(), 2u);
  pool.mark_chosen(2);
  EXPECT_EQ(pool.pick_least_loaded(), 1u);
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
  EXPECT_EQ(pool.pick_least_loaded(), 1u);
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

}  // namespace
}  // namespace acs
