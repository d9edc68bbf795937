// The configuration file of `basalt agent` (docs/agent.md has every field):
//
//   mode: extend                 # extend | native
//   samplingPeriod: 10s
//   window: 5m
//   cgroup: {driver: cgroupfs, parent: kubepods}
//   oversubscription: {enabled: true, cpuMarginPercent: 10, memoryMarginPercent: 10,
//                      minReportInterval: 30s, materialChangePercent: 10}
//   eviction: {enabled: true, cpuHighWatermark: 80, cpuLowWatermark: 30,
//              memoryHighWatermark: 60, memoryLowWatermark: 30}
//   throttling: {enabled: true, engagePercent: 40, releasePercent: 20,
//                budgetPercent: 80, minBeCpu: 100m, periodMicros: 100000}
//   isolation: {beCpuShares: 2, beCpuIdle: true, beCpuQosLevel: true, beMemoryHighPercent: 0,
//               beOomKillFirst: true}
//
// Every field is optional. An unknown field, a value of the wrong type or
// range, or a low watermark above its high one is an error naming the file
// and the field.
#pragma once

#include <cstdint>
#include <string>

#include "agent/pod_qos.h"
#include "agent/policy.h"
#include "api/status.h"

namespace basalt::agent {

enum class ReportMode { kExtend, kNative };

struct AgentConfig {
  ReportMode mode = ReportMode::kExtend;
  int64_t sampling_period_nanos = 10'000'000'000;
  int64_t window_nanos = 300'000'000'000;
  CgroupDriver cgroup_driver = CgroupDriver::kCgroupfs;
  std::string cgroup_parent = "kubepods";

  bool oversubscription = true;
  int cpu_margin_percent = 10;
  int memory_margin_percent = 10;
  ReportPolicy cpu_report{30'000'000'000, 10, 100};            // 100m floor
  ReportPolicy memory_report{30'000'000'000, 10, 64LL << 20};  // 64 MiB floor

  bool eviction = true;
  Watermarks cpu_watermarks{80, 30};
  Watermarks memory_watermarks{60, 30};

  bool throttling = true;
  ThrottlePolicy throttle;
  int64_t cfs_period_us = 100000;

  uint64_t be_cpu_shares = 2;
  bool be_cpu_idle = true;
  bool be_cpu_qos_level = true;    // cpu.qos_level -1 where the kernel has it
  int be_memory_high_percent = 0;  // of MemTotal, per BE pod; 0: not set
  bool be_oom_kill_first = true;   // oom_score_adj 1000 for BE processes

  OversoldPolicy oversold_policy() const {
    return {cpu_margin_percent, memory_margin_percent, cpu_report, memory_report};
  }
  bool operator==(const AgentConfig&) const = default;
};

// Parses the text of a configuration file; `where` (the file name) prefixes
// errors. `field_prefix` names the document's place when it is a section of
// another file (the simulator's `colocation.agent`): fields then read
// `colocation.agent.eviction.cpuLowWatermark`.
Result<AgentConfig> ParseAgentConfig(const std::string& text, const std::string& where,
                                     const std::string& field_prefix = "");
// Reads and parses a file; an empty path gives the defaults.
Result<AgentConfig> LoadAgentConfig(const std::string& path);

}  // namespace basalt::agent
