// Usage sampling on synthetic /proc and cgroup files with known numbers, and
// the pods' QoS levels.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/pod_qos.h"
#include "agent/usage.h"
#include "testing.h"

namespace basalt::agent {
namespace {

namespace fs = std::filesystem;

class ProcDir {
 public:
  ProcDir() {
    char tmpl[] = "/tmp/basalt-proc-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~ProcDir() { fs::remove_all(path_); }
  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(path_ + "/" + rel).parent_path());
    std::ofstream(path_ + "/" + rel) << text;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string Stat(uint64_t user, uint64_t system, uint64_t idle, uint64_t iowait) {
  return "cpu  " + std::to_string(user) + " 0 " + std::to_string(system) + " " +
         std::to_string(idle) + " " + std::to_string(iowait) +
         " 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\n"
         "cpu2 1 0 0 0 0 0 0 0 0 0\ncpu3 1 0 0 0 0 0 0 0 0 0\nintr 1 2 3\n";
}

TEST(AgentUsage, ParsesProcStat) {
  auto t = ParseProcStat("cpu  100 5 20 800 10 3 2 1 50 0\ncpu0 1\ncpu1 1\n", "stat");
  ASSERT_OK(t);
  EXPECT_EQ(t->busy, 100u + 5 + 20 + 3 + 2 + 1);  // guest (50) is inside user already
  EXPECT_EQ(t->total, t->busy + 800 + 10);
  EXPECT_EQ(t->cpus, 2);
  auto bad = ParseProcStat("intr 1\n", "/proc/stat");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/proc/stat"), std::string::npos);
}

TEST(AgentUsage, ParsesMeminfo) {
  auto m = ParseMeminfo(
      "MemTotal:       16384000 kB\nMemFree:  100 kB\nMemAvailable:   4096000 kB\n", "meminfo");
  ASSERT_OK(m);
  EXPECT_EQ(m->total_bytes, 16384000LL * 1024);
  EXPECT_EQ(m->used_bytes(), (16384000LL - 4096000) * 1024);
  EXPECT_FALSE(ParseMeminfo("MemTotal: 1 kB\n", "m").ok());
}

TEST(AgentUsage, NodeSamplerComputesRatesBetweenReadings) {
  ProcDir proc;
  proc.Write("meminfo", "MemTotal: 8000000 kB\nMemAvailable: 6000000 kB\n");
  proc.Write("stat", Stat(1000, 0, 9000, 0));
  NodeSampler sampler(proc.path());
  auto first = sampler.Sample();
  ASSERT_OK(first);
  EXPECT_FALSE(first->has_value());  // a rate needs two readings
  // 4 CPUs; 1000 ticks of 4000 busy -> a quarter of 4000 millicores.
  proc.Write("stat", Stat(1800, 200, 11900, 100));
  auto second = sampler.Sample();
  ASSERT_OK(second);
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->cpu_capacity_milli, 4000);
  EXPECT_EQ((*second)->cpu_used_milli, 1000 * 4000 / 4000);
  EXPECT_EQ((*second)->memory_used_bytes, 2000000LL * 1024);
}

TEST(AgentUsage, GroupCpuFromCgroupCounters) {
  ProcDir root;
  root.Write("cgroup.controllers", "cpu memory\n");
  root.Write("kubepods/podA/cpu.stat", "usage_usec 1000000\n");
  auto layout =
      ParseCgroupLayout("1 0 0:1 / " + root.path() + " rw - cgroup2 cgroup2 rw\n", "mountinfo");
  ASSERT_OK(layout);
  Cgroups cgroups(*layout);
  GroupCpuSampler sampler;
  auto first = sampler.Sample(cgroups, "kubepods/podA", 0);
  ASSERT_OK(first);
  EXPECT_FALSE(first->has_value());
  // 1.5 s of CPU in 2 s of wall time: 750 millicores.
  root.Write("kubepods/podA/cpu.stat", "usage_usec 2500000\n");
  auto second = sampler.Sample(cgroups, "kubepods/podA", 2'000'000'000);
  ASSERT_OK(second);
  EXPECT_EQ(**second, 750);
  EXPECT_FALSE(sampler.Sample(cgroups, "kubepods/gone", 1).ok());
  EXPECT_EQ(CpuMilliBetween(10, 5, 100), 0);  // counter went back: group recreated
}

TEST(AgentUsage, SlidingWindowKeepsOnlyTheWindow) {
  SlidingWindow w(30);
  w.Add(0, 100);
  w.Add(10, 300);
  w.Add(20, 200);
  EXPECT_EQ(w.Mean(), 200);
  EXPECT_EQ(w.Max(), 300);
  w.Add(40, 50);  // 0 and 10 fall out (at or before 40 - 30)
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(w.Max(), 200);
  EXPECT_EQ(w.Mean(), 125);
  EXPECT_EQ(w.Latest(), 50);
}

nlohmann::json PodJson(const std::string& extra_meta, const std::string& resources,
                       const std::string& status = R"({"phase":"Running"})") {
  return nlohmann::json::parse(R"({"metadata":{"namespace":"ns","name":"p","uid":"ab-cd")" +
                               extra_meta + R"(},"spec":{"nodeName":"n1","priority":5,)" +
                               R"("containers":[{"name":"c","resources":)" + resources +
                               "}]},\"status\":" + status + "}");
}

TEST(AgentQos, AnnotationWins) {
  auto pod = DecodeAgentPod(
      PodJson(R"(,"annotations":{"volcano.sh/qos-level":"HLS"})", R"({"requests":{"cpu":"1"}})"));
  ASSERT_OK(pod);
  std::string why;
  EXPECT_EQ(QosLevelOf(*pod, &why), QosLevel::kHLS);
  EXPECT_EQ(why, "annotation");
  EXPECT_EQ(pod->cpu_request_milli, 1000);
  EXPECT_EQ(pod->priority, 5);
}

TEST(AgentQos, FallbackMapping) {
  // No requests at all: BestEffort -> BE.
  auto be = DecodeAgentPod(PodJson("", "{}"));
  ASSERT_OK(be);
  EXPECT_EQ(be->qos_class, "BestEffort");
  EXPECT_EQ(QosLevelOf(*be), QosLevel::kBE);
  // Oversold resources requested -> BE even when Burstable.
  auto batch = DecodeAgentPod(
      PodJson("", R"({"requests":{"kubernetes.io/batch-cpu":"2000","memory":"1Gi"}})"));
  ASSERT_OK(batch);
  EXPECT_EQ(batch->batch_cpu_request_milli, 2000);
  EXPECT_EQ(QosLevelOf(*batch), QosLevel::kBE);
  // Guaranteed and an unknown annotation value -> LS.
  auto g = DecodeAgentPod(PodJson(R"(,"annotations":{"volcano.sh/qos-level":"gold"})",
                                  R"({"requests":{"cpu":"1","memory":"1Gi"},)"
                                  R"("limits":{"cpu":"1","memory":"1Gi"}})"));
  ASSERT_OK(g);
  EXPECT_EQ(g->qos_class, "Guaranteed");
  EXPECT_EQ(QosLevelOf(*g), QosLevel::kLS);
  // Negative priority -> BE.
  auto low = *g;
  low.annotations.clear();
  low.priority = -10;
  EXPECT_EQ(QosLevelOf(low), QosLevel::kBE);
}

TEST(AgentQos, BadQuantityNamesPodAndField) {
  auto bad = DecodeAgentPod(PodJson("", R"({"requests":{"cpu":"lots"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Pod ns/p: spec.containers[0].resources.requests.cpu"),
            std::string::npos)
      << bad.status().message();
}

TEST(AgentQos, StartTimeAndCgroupPaths) {
  auto pod = DecodeAgentPod(
      PodJson("", "{}", R"({"phase":"Running","startTime":"2026-11-26T00:00:10Z"})"));
  ASSERT_OK(pod);
  EXPECT_EQ(pod->start_time, 1795651210);
  EXPECT_EQ(PodCgroup(*pod, CgroupDriver::kCgroupfs, "kubepods"), "kubepods/besteffort/podab-cd");
  EXPECT_EQ(PodCgroup(*pod, CgroupDriver::kSystemd, "kubepods"),
            "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podab_cd.slice");
  pod->qos_class = "Guaranteed";
  EXPECT_EQ(PodCgroup(*pod, CgroupDriver::kCgroupfs, "kubepods"), "kubepods/podab-cd");
  EXPECT_EQ(PodCgroup(*pod, CgroupDriver::kSystemd, "kubepods"),
            "kubepods.slice/kubepods-podab_cd.slice");
}

}  // namespace
}  // namespace basalt::agent
