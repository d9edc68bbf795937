// The agent's cgroup layer: detection from mountinfo, a temporary directory
// laid out like cgroup v2, and the machine's real cgroup v1 hierarchy where
// it is mounted and writable (skipped otherwise).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/cgroup.h"
#include "testing.h"

namespace basalt::agent {
namespace {

namespace fs = std::filesystem;

class TempTree {
 public:
  TempTree() {
    char tmpl[] = "/tmp/basalt-cgroup-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempTree() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }
  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(path_ + "/" + rel).parent_path());
    std::ofstream(path_ + "/" + rel) << text;
  }
  std::string Read(const std::string& rel) const {
    std::ifstream in(path_ + "/" + rel);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }

 private:
  std::string path_;
};

constexpr char kHybridMountinfo[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:7 - cgroup cgroup rw,memory\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(AgentCgroupLayout, HybridNodeIsV1WithEachControllerMount) {
  auto layout = ParseCgroupLayout(kHybridMountinfo, "mountinfo");
  ASSERT_OK(layout);
  EXPECT_EQ(layout->version, CgroupVersion::kV1);
  EXPECT_EQ(layout->mounts.at(Controller::kCpu), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(layout->mounts.at(Controller::kCpuacct), "/sys/fs/cgroup/cpuacct");
  EXPECT_EQ(layout->mounts.at(Controller::kMemory), "/sys/fs/cgroup/memory");
}

TEST(AgentCgroupLayout, CombinedCpuCpuacctMountAndHostPrefix) {
  auto layout = ParseCgroupLayout(
      "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n", "m", "/host");
  ASSERT_OK(layout);
  EXPECT_EQ(layout->mounts.at(Controller::kCpu), "/host/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(layout->mounts.at(Controller::kCpuacct), "/host/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(layout->mounts.count(Controller::kMemory), 0u);
}

TEST(AgentCgroupLayout, MalformedLineAndNoCgroupAreErrors) {
  auto bad = ParseCgroupLayout("garbage\n", "/proc/self/mountinfo");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/proc/self/mountinfo:1"), std::string::npos);
  auto none = ParseCgroupLayout("1 0 0:1 / / rw - ext4 /dev/sda rw\n", "m");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no cgroup"), std::string::npos);
}

// A temporary tree laid out like a cgroup v2 root with a pod group.
class CgroupV2Tree : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.Write("cgroup.controllers", "cpuset cpu io memory pids\n");
    tree_.Write("kubepods/pod1/cpu.stat",
                "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
                "nr_periods 40\nnr_throttled 7\nthrottled_usec 1200\n");
    tree_.Write("kubepods/pod1/cpu.weight", "100\n");
    tree_.Write("kubepods/pod1/cpu.max", "max 100000\n");
    tree_.Write("kubepods/pod1/cpu.idle", "0\n");
    tree_.Write("kubepods/pod1/memory.current", "104857600\n");
    tree_.Write("kubepods/pod1/memory.max", "max\n");
    tree_.Write("kubepods/pod1/memory.high", "max\n");
    std::string mountinfo =
        "40 31 0:38 / " + tree_.path() + " rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    auto layout = ParseCgroupLayout(mountinfo, "mountinfo");
    ASSERT_OK(layout);
    cgroups_ = std::make_unique<Cgroups>(*layout);
  }
  TempTree tree_;
  std::unique_ptr<Cgroups> cgroups_;
};

TEST_F(CgroupV2Tree, DetectsV2AndReadsStatistics) {
  EXPECT_EQ(cgroups_->version(), CgroupVersion::kV2);
  EXPECT_TRUE(cgroups_->Has(Controller::kMemory, "test"));
  auto usage = cgroups_->CpuUsageNanos("kubepods/pod1");
  ASSERT_OK(usage);
  EXPECT_EQ(*usage, 2500000000u);
  auto stat = cgroups_->CpuStat("kubepods/pod1");
  ASSERT_OK(stat);
  EXPECT_EQ(stat->periods, 40u);
  EXPECT_EQ(stat->throttled_periods, 7u);
  EXPECT_EQ(stat->throttled_nanos, 1200000u);
  auto mem = cgroups_->MemoryUsageBytes("kubepods/pod1");
  ASSERT_OK(mem);
  EXPECT_EQ(*mem, 104857600);
}

TEST_F(CgroupV2Tree, WritesIdempotentlyAndRestores) {
  CgroupSetter setter(cgroups_.get());
  const std::string g = "kubepods/pod1";
  ASSERT_OK(setter.SetCpuShares(g, 2));
  ASSERT_OK(setter.SetCpuQuota(g, CpuQuota{20000, 100000}));
  ASSERT_OK(setter.SetCpuIdle(g, true));
  ASSERT_OK(setter.SetMemoryLimit(g, 1 << 30));
  ASSERT_OK(setter.SetMemoryHigh(g, 512 << 20));
  EXPECT_EQ(tree_.Read(g + "/cpu.weight"), "1");
  EXPECT_EQ(tree_.Read(g + "/cpu.max"), "20000 100000");
  EXPECT_EQ(tree_.Read(g + "/cpu.idle"), "1");
  EXPECT_EQ(tree_.Read(g + "/memory.max"), "1073741824");
  EXPECT_EQ(tree_.Read(g + "/memory.high"), "536870912");
  EXPECT_EQ(setter.writes(), 5);
  // The same values again write nothing; a new quota writes once.
  ASSERT_OK(setter.SetCpuShares(g, 2));
  ASSERT_OK(setter.SetCpuQuota(g, CpuQuota{20000, 100000}));
  EXPECT_EQ(setter.writes(), 5);
  ASSERT_OK(setter.SetCpuQuota(g, CpuQuota{30000, 100000}));
  EXPECT_EQ(setter.writes(), 6);
  EXPECT_EQ(setter.Changed(g), 5);
  // Restore puts back what was found before the first write.
  ASSERT_OK(setter.Restore(g));
  EXPECT_EQ(tree_.Read(g + "/cpu.weight"), "100");
  EXPECT_EQ(tree_.Read(g + "/cpu.max"), "max 100000");
  EXPECT_EQ(tree_.Read(g + "/cpu.idle"), "0");
  EXPECT_EQ(tree_.Read(g + "/memory.max"), "max");
  EXPECT_EQ(tree_.Read(g + "/memory.high"), "max");
  EXPECT_EQ(setter.Changed(g), 0);
}

TEST_F(CgroupV2Tree, MissingFileOrControllerSwitchesTheFeatureOff) {
  fs::remove(tree_.path() + "/kubepods/pod1/cpu.idle");
  CgroupSetter setter(cgroups_.get());
  Status idle = setter.SetCpuIdle("kubepods/pod1", true);
  EXPECT_EQ(idle.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(idle.message().find("cpu idle is off"), std::string::npos);

  // A root without the memory controller: memory features are off, no crash.
  tree_.Write("cgroup.controllers", "cpu\n");
  auto layout =
      ParseCgroupLayout("40 31 0:38 / " + tree_.path() + " rw - cgroup2 cgroup2 rw\n", "mountinfo");
  ASSERT_OK(layout);
  Cgroups no_memory(*layout);
  EXPECT_FALSE(no_memory.Has(Controller::kMemory, "memory limit"));
  EXPECT_FALSE(no_memory.Has(Controller::kMemory, "memory limit"));  // reported once
  CgroupSetter setter2(&no_memory);
  EXPECT_EQ(setter2.SetMemoryLimit("kubepods/pod1", 1).code(), Status::Code::kFailedPrecondition);
  EXPECT_FALSE(no_memory.MemoryUsageBytes("kubepods/pod1").ok());
  EXPECT_EQ(tree_.Read("kubepods/pod1/memory.max"), "max");
}

TEST(AgentCgroupWeight, SharesToWeightMatchesTheRuntimes) {
  EXPECT_EQ(SharesToWeight(2), 1u);
  EXPECT_EQ(SharesToWeight(1024), 39u);
  EXPECT_EQ(SharesToWeight(262144), 10000u);
  EXPECT_EQ(SharesToWeight(0), 1u);
}

// The real hierarchy of this machine: a test group under the cpu (and
// memory) controllers, values set and read back, the group removed.
class RealCgroupV1 : public ::testing::Test {
 protected:
  void SetUp() override {
    auto layout = DetectCgroupLayout("/proc/self/mountinfo");
    if (!layout.ok() || layout->version != CgroupVersion::kV1 ||
        !layout->mounts.count(Controller::kCpu)) {
      GTEST_SKIP() << "no cgroup v1 cpu hierarchy here";
    }
    cgroups_ = std::make_unique<Cgroups>(*layout);
    group_ = "basalt-agent-test-" + std::to_string(::getpid());
    if (::access(layout->mounts.at(Controller::kCpu).c_str(), W_OK) != 0 ||
        !cgroups_->CreateGroup(Controller::kCpu, group_).ok()) {
      GTEST_SKIP() << "cgroup v1 cpu hierarchy not writable";
    }
  }
  void TearDown() override {
    if (cgroups_ && !group_.empty()) {
      EXPECT_OK(cgroups_->RemoveGroup(Controller::kCpu, group_));
      if (memory_made_) EXPECT_OK(cgroups_->RemoveGroup(Controller::kMemory, group_));
      EXPECT_FALSE(cgroups_->GroupExists(Controller::kCpu, group_));
    }
  }
  std::string Read(Controller c, const std::string& file) {
    auto path = cgroups_->FilePath(c, group_, file);
    auto text = ReadControlFile(*path);
    return text.ok() ? *text : "<unreadable>";
  }
  std::unique_ptr<Cgroups> cgroups_;
  std::string group_;
  bool memory_made_ = false;
};

TEST_F(RealCgroupV1, SetsReadsBackAndRestoresCpuSettings) {
  CgroupSetter setter(cgroups_.get());
  const std::string shares_before = Read(Controller::kCpu, "cpu.shares");
  ASSERT_OK(setter.SetCpuShares(group_, 2));
  ASSERT_OK(setter.SetCpuQuota(group_, CpuQuota{25000, 50000}));
  EXPECT_EQ(Read(Controller::kCpu, "cpu.shares"), "2");
  EXPECT_EQ(Read(Controller::kCpu, "cpu.cfs_quota_us"), "25000");
  EXPECT_EQ(Read(Controller::kCpu, "cpu.cfs_period_us"), "50000");
  Status idle = setter.SetCpuIdle(group_, true);
  if (idle.ok()) EXPECT_EQ(Read(Controller::kCpu, "cpu.idle"), "1");
  int writes = setter.writes();
  ASSERT_OK(setter.SetCpuQuota(group_, CpuQuota{25000, 50000}));
  EXPECT_EQ(setter.writes(), writes);
  auto stat = cgroups_->CpuStat(group_);
  ASSERT_OK(stat);
  EXPECT_EQ(stat->throttled_periods, 0u);  // nothing runs in the group
  ASSERT_OK(setter.Restore(group_));
  EXPECT_EQ(Read(Controller::kCpu, "cpu.shares"), shares_before);
  EXPECT_EQ(Read(Controller::kCpu, "cpu.cfs_quota_us"), "-1");
  EXPECT_EQ(Read(Controller::kCpu, "cpu.cfs_period_us"), "100000");
  if (idle.ok()) EXPECT_EQ(Read(Controller::kCpu, "cpu.idle"), "0");
}

TEST_F(RealCgroupV1, SetsAndRestoresMemoryLimits) {
  if (!cgroups_->Has(Controller::kMemory, "memory limit") ||
      !cgroups_->CreateGroup(Controller::kMemory, group_).ok()) {
    GTEST_SKIP() << "cgroup v1 memory hierarchy not writable";
  }
  memory_made_ = true;
  CgroupSetter setter(cgroups_.get());
  ASSERT_OK(setter.SetMemoryLimit(group_, 256 << 20));
  ASSERT_OK(setter.SetMemoryHigh(group_, 128 << 20));
  EXPECT_EQ(Read(Controller::kMemory, "memory.limit_in_bytes"), "268435456");
  EXPECT_EQ(Read(Controller::kMemory, "memory.soft_limit_in_bytes"), "134217728");
  auto usage = cgroups_->MemoryUsageBytes(group_);
  ASSERT_OK(usage);
  EXPECT_EQ(*usage, 0);
  ASSERT_OK(setter.Restore(group_));
  // Unlimited again: the kernel's page-aligned maximum.
  EXPECT_GT(std::stoull(Read(Controller::kMemory, "memory.limit_in_bytes")), 1ull << 62);
  // Asking for unlimited when it already is writes nothing.
  int writes = setter.writes();
  ASSERT_OK(setter.SetMemoryLimit(group_, -1));
  EXPECT_EQ(setter.writes(), writes);
}

}  // namespace
}  // namespace basalt::agent
