// The agent's period on synthetic /proc and a cgroup v2 tree: BE isolation,
// throttling when online usage rises and release when it falls, the
// oversubscription report, eviction of BE pods under pressure, restore on exit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "testing.h"

namespace basalt::agent {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSecond = 1'000'000'000;

class FakeApi : public NodeApi {
 public:
  std::vector<AgentPod> pods;
  std::vector<std::pair<int64_t, int64_t>> reports;
  std::vector<std::string> evictions;
  std::vector<std::string> notes;
  Result<std::vector<AgentPod>> ListPods() override { return pods; }
  Status ReportOversold(ReportMode, int64_t cpu, int64_t memory) override {
    reports.emplace_back(cpu, memory);
    return Status::Ok();
  }
  Status Evict(const AgentPod& pod, const std::string& note) override {
    evictions.push_back(pod.Key());
    notes.push_back(note);
    return Status::Ok();
  }
};

AgentPod MakePod(const std::string& name, const std::string& qos, int32_t priority, int64_t start,
                 int64_t cpu_request) {
  AgentPod p;
  p.namespace_ = "ns";
  p.name = name;
  p.uid = name;
  p.phase = "Running";
  p.qos_class = "Burstable";
  p.priority = priority;
  p.start_time = start;
  p.annotations[kQosLevelAnnotation] = qos;
  p.cpu_request_milli = cpu_request;
  p.memory_request_bytes = 1LL << 30;
  p.cgroup_override = "pods/" + name;
  return p;
}

class AgentLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/basalt-agent-loop-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    Write("cg/cgroup.controllers", "cpu memory\n");
    Write("proc/meminfo", "MemTotal: 8000000 kB\nMemAvailable: 7000000 kB\n");
    for (const char* name : {"web", "batch-old", "batch-new"}) {
      std::string g = std::string("cg/pods/") + name;
      Write(g + "/cpu.stat", "usage_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
      Write(g + "/cpu.weight", "100\n");
      Write(g + "/cpu.idle", "0\n");
      Write(g + "/cpu.max", "max 100000\n");
      Write(g + "/memory.current", "104857600\n");
    }
    auto layout =
        ParseCgroupLayout("1 0 0:1 / " + root_ + "/cg rw - cgroup2 cgroup2 rw\n", "mountinfo");
    ASSERT_OK(layout);
    cgroups_ = std::make_unique<Cgroups>(*layout);
    node_ = std::make_unique<NodeSampler>(root_ + "/proc");
    api_.pods = {MakePod("web", "LS", 100, 10, 1500), MakePod("batch-old", "BE", 0, 100, 0),
                 MakePod("batch-new", "BE", 0, 200, 0)};
    config_.window_nanos = 60 * kSecond;
    config_.cpu_report.min_interval_nanos = 0;
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << text;
  }
  std::string Read(const std::string& rel) {
    std::ifstream in(root_ + "/" + rel);
    std::string s;
    std::getline(in, s);
    return s;
  }
  // Node: 2 CPUs, `busy` of 1000 ticks busy since the last call.
  void NodeTicks(uint64_t busy_total, uint64_t all_total) {
    Write("proc/stat", "cpu  " + std::to_string(busy_total) + " 0 0 " +
                           std::to_string(all_total - busy_total) + " 0 0 0 0\ncpu0 0\ncpu1 0\n");
  }
  void PodCpu(const std::string& name, uint64_t usec) {
    Write("cg/pods/" + name + "/cpu.stat", "usage_usec " + std::to_string(usec) + "\n");
  }

  std::string root_;
  std::unique_ptr<Cgroups> cgroups_;
  std::unique_ptr<NodeSampler> node_;
  FakeApi api_;
  AgentConfig config_;
};

TEST_F(AgentLoop, IsolatesThrottlesReportsEvictsAndRestores) {
  Agent agent(config_, cgroups_.get(), node_.get(), &api_, nullptr);
  NodeTicks(0, 0);
  auto first = agent.Tick(0);
  EXPECT_FALSE(first.node.has_value());
  // BE pods get the lowest weight and cpu.idle at once; the online pod is untouched.
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.weight"), "1");
  EXPECT_EQ(Read("cg/pods/batch-new/cpu.idle"), "1");
  EXPECT_EQ(Read("cg/pods/web/cpu.weight"), "100");
  // First report: online requested 1500m, nothing measured yet -> 1500 - 150.
  ASSERT_EQ(api_.reports.size(), 1u);
  EXPECT_EQ(api_.reports[0].first, 1350);

  // 1 s later the online pod used 1.2 cores (60 % of 2): throttling engages,
  // BE budget 1600 - 1200 = 400m, 200m (20 ms per 100 ms) per BE pod.
  NodeTicks(1000, 2000);  // node 50 % busy: no eviction
  PodCpu("web", 1'200'000);
  auto busy = agent.Tick(kSecond);
  EXPECT_EQ(busy.online_cpu_milli, 1200);
  EXPECT_TRUE(busy.throttled);
  EXPECT_EQ(busy.be_budget_milli, 400);
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.max"), "20000 100000");
  EXPECT_TRUE(busy.evicted.empty());
  // Oversold follows the window's peak: 1500 - 1200 - 150 = 150m.
  ASSERT_TRUE(busy.oversold_cpu_milli.has_value());
  EXPECT_EQ(*busy.oversold_cpu_milli, 150);

  // Pressure: the node is 95 % busy, the BE pods use 600m and 500m. The newer
  // one goes first (same priority); 1900 - 500 = 1400 (70 %) is not below the
  // 30 % low watermark, so the older goes too; the online pod never.
  NodeTicks(1000 + 1900, 2000 + 2000);
  PodCpu("web", 1'200'000 + 800'000);
  PodCpu("batch-old", 600'000);
  PodCpu("batch-new", 500'000);
  auto pressure = agent.Tick(2 * kSecond);
  EXPECT_EQ(pressure.evicted, (std::vector<std::string>{"ns/batch-new", "ns/batch-old"}));
  ASSERT_EQ(api_.notes.size(), 2u);
  EXPECT_NE(api_.notes[0].find("node cpu 1900m of 2 (95%) at or above the high watermark 80%"),
            std::string::npos)
      << api_.notes[0];
  // Still listed while terminating: not evicted again.
  NodeTicks(2900 + 1900, 4000 + 2000);
  EXPECT_TRUE(agent.Tick(3 * kSecond).evicted.empty());

  // The online pod goes quiet (under the 20 % release): quotas are lifted.
  api_.pods.resize(1);  // the BE pods have left
  api_.pods.push_back(MakePod("batch-old", "BE", 0, 100, 0));
  NodeTicks(4800 + 100, 6000 + 2000);
  auto quiet = agent.Tick(4 * kSecond);
  EXPECT_FALSE(quiet.throttled);
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.max"), "max 100000");
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.weight"), "1");  // still BE: still isolated
  // batch-new left: its values were put back.
  EXPECT_EQ(Read("cg/pods/batch-new/cpu.weight"), "100");
  EXPECT_EQ(Read("cg/pods/batch-new/cpu.idle"), "0");

  ASSERT_OK(agent.RestoreAll());
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.weight"), "100");
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.idle"), "0");
}

TEST_F(AgentLoop, MissingCpuIdleIsReportedOnceAndTheRestStillWorks) {
  fs::remove(root_ + "/cg/pods/batch-old/cpu.idle");
  fs::remove(root_ + "/cg/pods/batch-new/cpu.idle");
  Agent agent(config_, cgroups_.get(), node_.get(), &api_, nullptr);
  NodeTicks(0, 0);
  agent.Tick(0);
  agent.Tick(kSecond);
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.weight"), "1");
}

TEST_F(AgentLoop, BeMemoryHighCpuQosLevelAndOomScore) {
  config_.be_memory_high_percent = 25;
  Write("cg/pods/batch-old/cgroup.procs", "4242\n4243\n");
  Write("proc/4242/oom_score_adj", "0\n");  // 4243 has exited: skipped
  Write("cg/pods/batch-old/cpu.qos_level", "0\n");
  Write("cg/pods/batch-old/memory.high", "max\n");
  Agent agent(config_, cgroups_.get(), node_.get(), &api_, nullptr);
  NodeTicks(0, 0);
  agent.Tick(0);
  EXPECT_EQ(Read("proc/4242/oom_score_adj"), "1000");
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.qos_level"), "-1");
  // memory.high needs the node's MemTotal: from the second period on.
  NodeTicks(100, 2000);
  agent.Tick(kSecond);
  EXPECT_EQ(Read("cg/pods/batch-old/memory.high"), std::to_string(8000000LL * 1024 / 4));
  ASSERT_OK(agent.RestoreAll());
  EXPECT_EQ(Read("proc/4242/oom_score_adj"), "0");
  EXPECT_EQ(Read("cg/pods/batch-old/cpu.qos_level"), "0");
  EXPECT_EQ(Read("cg/pods/batch-old/memory.high"), "max");
}

TEST_F(AgentLoop, ReportsOnlyMaterialChanges) {
  config_.cpu_report.min_interval_nanos = 10 * kSecond;
  Agent agent(config_, cgroups_.get(), node_.get(), &api_, nullptr);
  NodeTicks(0, 0);
  agent.Tick(0);
  ASSERT_EQ(api_.reports.size(), 1u);
  // A small usage change within the interval: no new report.
  NodeTicks(100, 2000);
  PodCpu("web", 10'000);
  agent.Tick(kSecond);
  EXPECT_EQ(api_.reports.size(), 1u);
  // A large change after the interval: reported.
  NodeTicks(1100, 22000);
  PodCpu("web", 10'000 + 11'000'000);  // 1.1 cores over 10 s
  agent.Tick(11 * kSecond);
  ASSERT_EQ(api_.reports.size(), 2u);
  EXPECT_EQ(api_.reports[1].first, 1500 - 1100 - 150);
}

}  // namespace
}  // namespace basalt::agent
