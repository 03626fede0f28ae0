// process::cgroup_cpu_limit (src/support/process.hpp): the CPU bandwidth limit of the process's
// cgroups, read from fake /proc/self/cgroup files and cgroup trees in a temporary folder. The relay
// (docs/design.md, "The relay") needs two whole CPUs: a container limited to 1.5 would throttle.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "src/support/process.hpp"

namespace acs {
namespace {

namespace fs = std::filesystem;

class cgroup_tree : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("acs_cgroup_test." + std::to_string(::getpid()) + "." +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Writes `text` to ROOT/relative, making its folders.
  void write(const std::string& relative, const std::string& text) {
    const fs::path p = dir_ / "root" / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  unsigned limit(const std::string& proc_cgroup) {
    std::ofstream(dir_ / "cgroup") << proc_cgroup;
    return process::cgroup_cpu_limit((dir_ / "cgroup").c_str(), (dir_ / "root").c_str());
  }
  fs::path dir_;
};

TEST_F(cgroup_tree, no_limit_anywhere_is_none) {
  EXPECT_EQ(limit("0::/user.slice\n"), 0u);
  write("user.slice/cpu.max", "max 100000\n");
  EXPECT_EQ(limit("0::/user.slice\n"), 0u);
  EXPECT_EQ(process::cgroup_cpu_limit((dir_ / "absent").c_str(), (dir_ / "root").c_str()), 0u);
}

TEST_F(cgroup_tree, v2_takes_the_tightest_level_rounded_down) {
  write("kubepods/cpu.max", "max 100000\n");
  write("kubepods/pod1/cpu.max", "150000 100000\n");     // 1.5 CPUs: one whole
  write("kubepods/pod1/c1/cpu.max", "400000 100000\n");  // 4
  EXPECT_EQ(limit("0::/kubepods/pod1/c1\n"), 1u);
  write("kubepods/pod1/cpu.max", "250000 100000\n");
  EXPECT_EQ(limit("0::/kubepods/pod1/c1\n"), 2u);
  write("kubepods/pod1/cpu.max", "20000 100000\n");  // a fifth of a CPU: still one
  EXPECT_EQ(limit("0::/kubepods/pod1/c1\n"), 1u);
}

TEST_F(cgroup_tree, a_container_sees_its_limit_at_the_mounts_root) {
  // /proc/self/cgroup names the host's path, the container's cgroup is mounted at the root.
  write("cpu.max", "200000 100000\n");
  EXPECT_EQ(limit("0::/docker/0123abcd\n"), 2u);
}

TEST_F(cgroup_tree, hybrid_and_v1_hierarchies) {
  // v2 mounted at ROOT/unified (a hybrid host), v1's cpu controller at ROOT/cpu,cpuacct.
  write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(limit("4:cpu,cpuacct:/\n0::/\n"), 0u);
  write("cpu,cpuacct/docker/x/cpu.cfs_quota_us", "300000\n");
  write("cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(limit("4:cpu,cpuacct:/docker/x\n0::/\n"), 3u);
  write("unified/cpu.max", "100000 100000\n");
  EXPECT_EQ(limit("4:cpu,cpuacct:/docker/x\n0::/\n"), 1u);
  // A controller list without cpu is not read; "cpuacct" alone is not "cpu".
  EXPECT_EQ(limit("2:cpuacct:/docker/x\n"), 0u);
  write("cpu/y/cpu.cfs_quota_us", "50000\n");
  write("cpu/y/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(limit("1:cpu:/y\n"), 1u);
}

TEST_F(cgroup_tree, malformed_files_are_no_limit) {
  write("a/cpu.max", "lots\n");
  EXPECT_EQ(limit("0::/a\n"), 0u);
  write("a/cpu.max", "100000\n");  // no period
  EXPECT_EQ(limit("0::/a\n"), 0u);
  EXPECT_EQ(limit("garbage without colons\n"), 0u);
}

// This process's own: whatever the machine, at least one CPU in the mask, and the limit read
// once is the one read now.
// The relay's thread (ACS_RELAY), and relayed graphs with it, need a CPU besides the program's.
TEST(process_cpus, a_spinning_thread_needs_two_cpus_by_the_mask_and_by_the_cgroup_limit) {
  EXPECT_TRUE(process::room_for_a_spinning_thread(2, 0));
  EXPECT_TRUE(process::room_for_a_spinning_thread(16, 2));
  EXPECT_FALSE(process::room_for_a_spinning_thread(1, 0));   // an affinity mask of one CPU
  EXPECT_FALSE(process::room_for_a_spinning_thread(16, 1));  // a container's --cpus=1.5, rounded down
  EXPECT_FALSE(process::room_for_a_spinning_thread(1, 8));
}

TEST(process_cpus, the_process_has_a_cpu_and_its_cgroup_limit_is_read_once_as_it_is) {
  EXPECT_GE(process::affinity_cpus(), 1u);
  EXPECT_EQ(process::process_cgroup_cpu_limit(), process::cgroup_cpu_limit());
}

}  // namespace
}  // namespace acs
