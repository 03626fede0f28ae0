// The oracle's schedule must order every conflicting pair of ops (RAW, WAR, WAW): checked
// on random stages by replaying the plan's stream order and event waits. A wrong oracle
// would show up on the GPU as a mismatch blamed on the oracle, or, worse, as a speed-up
// the true DAG does not allow.
#include "oracle_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace acs_bench {
namespace {

struct random_op {
  std::vector<int> reads, writes;
  int lane = -1;
};

bool intersects(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

// after[i][j]: op j has completed whenever op i starts, by stream order and waits alone.
std::vector<std::vector<char>> happens_before(const oracle_plan& plan, size_t n) {
  std::vector<std::vector<char>> after(n, std::vector<char>(n, 0));
  std::vector<int> tail(64, -1);
  const auto& steps = plan.steps();
  auto absorb = [&](size_t i, int d) {
    after[i][(size_t)d] = 1;
    for (size_t k = 0; k < n; ++k)
      if (after[(size_t)d][k]) after[i][k] = 1;
  };
  for (size_t i = 0; i < n; ++i) {
    const int s = steps[i].stream;
    EXPECT_EQ(steps[i].first_on_stream, tail[(size_t)s] < 0) << "op " << i;
    if (tail[(size_t)s] >= 0) absorb(i, tail[(size_t)s]);
    for (size_t k = steps[i].wait_begin; k < steps[i].wait_end; ++k) {
      const int d = plan.waits()[k];
      EXPECT_LT(d, (int)i);
      EXPECT_TRUE(steps[(size_t)d].record) << "op " << i << " waits for op " << d
                                           << ", which records no event";
      absorb(i, d);
    }
    tail[(size_t)s] = (int)i;
  }
  return after;
}

void check_stage(oracle_plan& plan, const std::vector<random_op>& ops, int n_streams) {
  std::vector<plan_input> in;
  for (const auto& o : ops) in.push_back({&o.reads, &o.writes, o.lane});
  plan.build(in, n_streams);
  const size_t n = ops.size();
  ASSERT_EQ(plan.steps().size(), n);
  const auto after = happens_before(plan, n);
  for (size_t i = 0; i < n; ++i) {
    const int s = plan.steps()[i].stream;
    EXPECT_GE(s, 0);
    EXPECT_LT(s, n_streams);
    if (ops[i].lane >= 0) {
      EXPECT_EQ(s, ops[i].lane % n_streams);
    }
    for (size_t j = 0; j < i; ++j) {
      const bool conflict = intersects(ops[i].reads, ops[j].writes) ||
                            intersects(ops[i].writes, ops[j].reads) ||
                            intersects(ops[i].writes, ops[j].writes);
      if (conflict) {
        EXPECT_TRUE(after[i][j]) << "op " << i << " may run before op " << j;
      }
    }
    for (int d : plan.deps_of(i)) {
      ASSERT_LT(d, (int)i);
      const auto& o = ops[(size_t)d];
      EXPECT_TRUE(intersects(ops[i].reads, o.writes) || intersects(ops[i].writes, o.reads) ||
                  intersects(ops[i].writes, o.writes))
          << "op " << i << " depends on op " << d << " without a conflict";
    }
  }
}

TEST(OraclePlan, RandomStagesOrderEveryConflict) {
  std::mt19937 rng(12345);
  oracle_plan plan;  // reused: per-buffer state must not leak from one stage to the next
  for (int round = 0; round < 400; ++round) {
    const int n = 1 + (int)(rng() % 120);
    const int buffers = 1 + (int)(rng() % 24);
    const int streams = std::vector<int>{1, 2, 3, 8, 32}[rng() % 5];
    const bool lanes = rng() % 2;
    std::vector<random_op> ops((size_t)n);
    for (auto& o : ops) {
      for (int k = (int)(rng() % 4); k > 0; --k) o.reads.push_back((int)(rng() % buffers));
      for (int k = (int)(rng() % 3); k > 0; --k) o.writes.push_back((int)(rng() % buffers));
      if (o.writes.empty() && o.reads.empty()) o.writes.push_back((int)(rng() % buffers));
      if (lanes && rng() % 3) o.lane = (int)(rng() % 12);
    }
    check_stage(plan, ops, streams);
    if (HasFailure()) {
      ADD_FAILURE() << "round " << round;
      return;
    }
  }
}

TEST(OraclePlan, ChainStaysOnOneStreamWithoutWaits) {
  std::vector<random_op> ops(10);
  for (int i = 0; i < 10; ++i) {
    ops[(size_t)i].reads = {i};
    ops[(size_t)i].writes = {i + 1};
  }
  oracle_plan plan;
  check_stage(plan, ops, 8);
  for (const auto& s : plan.steps()) {
    EXPECT_EQ(s.stream, plan.steps()[0].stream);
    EXPECT_EQ(s.wait_begin, s.wait_end);
    EXPECT_FALSE(s.record);
  }
}

TEST(OraclePlan, IndependentOpsSpreadOverStreams) {
  std::vector<random_op> ops(8);
  for (int i = 0; i < 8; ++i) ops[(size_t)i].writes = {i};
  oracle_plan plan;
  check_stage(plan, ops, 8);
  std::vector<int> used;
  for (const auto& s : plan.steps()) used.push_back(s.stream);
  std::sort(used.begin(), used.end());
  EXPECT_EQ(std::unique(used.begin(), used.end()) - used.begin(), 8);
  EXPECT_TRUE(plan.waits().empty());
}

TEST(OraclePlan, ReadersOfOneBufferRunTogetherAndTheNextWriterWaitsForAll) {
  std::vector<random_op> ops(5);
  ops[0].writes = {0};
  for (int i = 1; i <= 3; ++i) {
    ops[(size_t)i].reads = {0};
    ops[(size_t)i].writes = {i};
  }
  ops[4].writes = {0};  // write after the three reads
  oracle_plan plan;
  check_stage(plan, ops, 8);
  EXPECT_EQ(plan.deps_of(1), std::vector<int>{0});
  std::vector<int> last = plan.deps_of(4);
  std::sort(last.begin(), last.end());
  EXPECT_EQ(last, (std::vector<int>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace acs_bench
