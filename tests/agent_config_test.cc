// The agent's configuration file, and `basalt agent` refusing a bad one.
#include "agent/agent_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/node_api.h"
#include "testing.h"

namespace basalt::agent {
namespace {

TEST(AgentConfig, DefaultsAndAFullFile) {
  auto empty = ParseAgentConfig("", "agent.yaml");
  ASSERT_OK(empty);
  EXPECT_EQ(*empty, AgentConfig{});
  auto c = ParseAgentConfig(R"(
mode: native
samplingPeriod: 5s
window: 1m
cgroup: {driver: systemd, parent: kubepods}
oversubscription: {enabled: true, cpuMarginPercent: 15, memoryMarginPercent: 20,
                   minReportInterval: 1m, materialChangePercent: 5}
eviction: {cpuHighWatermark: 90, cpuLowWatermark: 50, memoryHighWatermark: 70, memoryLowWatermark: 40}
throttling: {engagePercent: 50, releasePercent: 25, budgetPercent: 85, minBeCpu: 200m, periodMicros: 50000}
isolation: {beCpuShares: 4, beCpuIdle: false, beCpuQosLevel: false, beMemoryHighPercent: 30,
            beOomKillFirst: false}
)",
                            "agent.yaml");
  ASSERT_OK(c);
  EXPECT_EQ(c->mode, ReportMode::kNative);
  EXPECT_EQ(c->sampling_period_nanos, 5'000'000'000);
  EXPECT_EQ(c->window_nanos, 60'000'000'000);
  EXPECT_EQ(c->cgroup_driver, CgroupDriver::kSystemd);
  EXPECT_EQ(c->cpu_margin_percent, 15);
  EXPECT_EQ(c->memory_margin_percent, 20);
  EXPECT_EQ(c->cpu_report.min_interval_nanos, 60'000'000'000);
  EXPECT_EQ(c->memory_report.material_percent, 5);
  EXPECT_EQ(c->cpu_watermarks, (Watermarks{90, 50}));
  EXPECT_EQ(c->memory_watermarks, (Watermarks{70, 40}));
  EXPECT_EQ(c->throttle.min_be_milli, 200);
  EXPECT_EQ(c->cfs_period_us, 50000);
  EXPECT_EQ(c->be_cpu_shares, 4u);
  EXPECT_FALSE(c->be_cpu_idle);
  EXPECT_FALSE(c->be_cpu_qos_level);
  EXPECT_EQ(c->be_memory_high_percent, 30);
  EXPECT_FALSE(c->be_oom_kill_first);
}

void ExpectError(const std::string& text, const std::string& want) {
  auto c = ParseAgentConfig(text, "agent.yaml");
  ASSERT_FALSE(c.ok()) << text;
  EXPECT_NE(c.status().message().find(want), std::string::npos) << c.status().message();
}

TEST(AgentConfig, ErrorsNameTheFileAndField) {
  ExpectError("mode: turbo\n", "agent.yaml: mode: want extend or native, got \"turbo\"");
  ExpectError("eviction: {cpuHighWatermark: 120}\n",
              "agent.yaml: eviction.cpuHighWatermark: want a whole number from 0 to 100");
  ExpectError("eviction: {cpuHighWatermark: 50, cpuLowWatermark: 60}\n",
              "eviction.cpuLowWatermark: above cpuHighWatermark");
  ExpectError("eviction: {cpuHigh: 50}\n", "agent.yaml: eviction.cpuHigh: unknown field");
  ExpectError("samplingPeriod: soon\n", "agent.yaml: samplingPeriod");
  ExpectError("samplingPeriod: 10s\nwindow: 1s\n", "window: want at least one sampling period");
  ExpectError("throttling: {minBeCpu: lots}\n", "throttling.minBeCpu");
  ExpectError("throttling: {periodMicros: 10}\n", "throttling.periodMicros");
  ExpectError("oversubscription: [1]\n", "oversubscription: want a mapping");
  ExpectError("isolation: {beCpuIdle: maybe}\n", "isolation.beCpuIdle: want true or false");
  ExpectError("cgroup: {driver: runc}\n", "cgroup.driver: want cgroupfs or systemd");
}

// Found by the agent_config fuzz target: a value with bytes that are not
// UTF-8 made the message's JSON quoting throw (the agent aborted).
TEST(AgentConfig, InvalidUtf8ValueIsAnErrorNotACrash) {
  ExpectError("cgroup: {driver: sy\xaetemd}\n",
              "agent.yaml: cgroup.driver: want cgroupfs or systemd");
}

TEST(AgentConfig, ExtendPatchUsesVolcanoResourceNames) {
  auto patch = ExtendStatusPatch(4200, 1LL << 30);
  EXPECT_EQ(patch["status"]["allocatable"]["kubernetes.io/batch-cpu"], "4200");
  EXPECT_EQ(patch["status"]["capacity"]["kubernetes.io/batch-memory"], "1073741824");
}

TEST(AgentConfig, StandalonePodList) {
  auto pods = ParseStandalonePods(R"(
pods:
- {name: web, namespace: demo, qos: LS, cgroup: demo/online, cpuRequest: "2"}
- {name: batch, qos: BE, priority: -1, cgroup: demo/be}
)",
                                  "pods.yaml");
  ASSERT_OK(pods);
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].Key(), "demo/web");
  EXPECT_EQ((*pods)[0].cpu_request_milli, 2000);
  EXPECT_EQ(QosLevelOf((*pods)[1]), QosLevel::kBE);
  EXPECT_EQ((*pods)[1].cgroup_override, "demo/be");
  auto bad = ParseStandalonePods("pods:\n- {name: x}\n", "pods.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("pods.yaml: pods[0]: cgroup"), std::string::npos);
}

TEST(AgentCommand, MalformedConfigurationExitsTwoNamingTheField) {
  std::string path = "/tmp/basalt-agent-conf-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "eviction:\n  memoryLowWatermark: high\n";
  auto r = testing::Basalt("agent --config " + path + " --pods-file /dev/null --listen ''");
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ": eviction.memoryLowWatermark: want a whole number"),
            std::string::npos)
      << r.out;
}

TEST(AgentCommand, HelpDescribesTheAgent) {
  auto r = testing::Basalt("agent --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--pods-file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--config"), std::string::npos);
}

}  // namespace
}  // namespace basalt::agent
