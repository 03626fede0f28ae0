// support/recycler.hpp: objects given back are handed out again (their members' capacity kept),
// at most `capacity` wait, and taking and giving back from several threads loses nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "src/support/recycler.hpp"

namespace acs {
namespace {

struct buffer {
  std::vector<int> values;
};

TEST(support_recycler, an_object_given_back_is_taken_again_with_its_capacity) {
  recycler<buffer> r(4);
  std::unique_ptr<buffer> a = r.take();
  a->values.resize(1000);
  const buffer* where = a.get();
  r.give(std::move(a));
  EXPECT_EQ(r.spare(), 1u);
  std::unique_ptr<buffer> b = r.take();
  EXPECT_EQ(b.get(), where);
  EXPECT_GE(b->values.capacity(), 1000u);
  EXPECT_EQ(r.spare(), 0u);
  EXPECT_NE(r.take().get(), nullptr) << "an empty recycler makes a new object";
}

TEST(support_recycler, at_most_capacity_objects_wait) {
  recycler<buffer> r(2);
  std::vector<std::unique_ptr<buffer>> taken;
  for (int i = 0; i < 5; ++i) taken.push_back(r.take());
  for (auto& p : taken) r.give(std::move(p));
  EXPECT_EQ(r.spare(), 2u);
  r.give(nullptr);
  EXPECT_EQ(r.spare(), 2u);
}

TEST(support_recycler, objects_given_back_together_are_all_kept_up_to_capacity) {
  recycler<buffer> r(3);
  std::vector<buffer*> made;
  for (int i = 0; i < 5; ++i) made.push_back(r.take().release());
  std::set<const buffer*> kept(made.begin(), made.begin() + 3);
  r.give_all(made.size(), [&](std::size_t i) { return made[i]; });  // the last two are freed (ASan)
  EXPECT_EQ(r.spare(), 3u);
  std::set<const buffer*> taken;
  for (int i = 0; i < 3; ++i) taken.insert(r.take().get());
  EXPECT_EQ(taken, kept) << "the first `capacity` objects given back are the ones handed out again";
  EXPECT_EQ(r.spare(), 0u);
}

TEST(support_recycler, threads_taking_and_giving_back_share_no_object) {
  recycler<buffer> r(64);
  std::atomic<bool> shared{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        std::unique_ptr<buffer> p = r.take();
        // A holder marks its object with its number and clears the mark before giving it back:
        // a mark found at taking, or changed while held, means two holders at once.
        if (!p->values.empty() && p->values[0] != -1) shared = true;
        p->values.assign(1, t);
        if (i % 64 == 0) std::this_thread::yield();
        if (p->values[0] != t) shared = true;
        p->values[0] = -1;
        r.give(std::move(p));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_FALSE(shared.load());
  EXPECT_LE(r.spare(), 4u);
}

}  // namespace
}  // namespace acs
