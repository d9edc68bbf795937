// One node's colocation agent: every sampling period it lists the node's
// pods, measures them and the node, isolates and throttles BE pods through
// the cgroups, reports what online pods leave idle (oversubscription) and
// evicts BE pods when the node crosses a watermark. The cluster side (pods,
// node status, evictions) sits behind `NodeApi`, so a run without an API
// server (tests, the cgroup demonstration) drives the same loop.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/cgroup.h"
#include "agent/pod_qos.h"
#include "agent/usage.h"
#include "kube/metrics.h"

namespace basalt::agent {

class NodeApi {
 public:
  virtual ~NodeApi() = default;
  // The pods bound to this node.
  virtual Result<std::vector<AgentPod>> ListPods() = 0;
  // Puts the oversold amounts on the Node: extended resources (extend) or
  // allocatable (native).
  virtual Status ReportOversold(ReportMode mode, int64_t cpu_milli, int64_t memory_bytes) = 0;
  // Evicts through the eviction API and records Events; `note` has the numbers.
  virtual Status Evict(const AgentPod& pod, const std::string& note) = 0;
};

// What one period measured and decided (for logs, metrics and tests).
struct TickReport {
  std::optional<NodeUsage> node;
  int64_t online_cpu_milli = 0;
  int64_t online_memory_bytes = 0;
  int online_pods = 0;
  int be_pods = 0;
  bool throttled = false;
  int64_t be_budget_milli = -1;
  int64_t be_quota_us = -1;                   // per BE pod
  std::optional<int64_t> oversold_cpu_milli;  // set when reported this period
  std::optional<int64_t> oversold_memory_bytes;
  std::vector<std::string> evicted;
};

class Agent {
 public:
  Agent(AgentConfig config, const Cgroups* cgroups, NodeSampler* node, NodeApi* api,
        kube::Metrics* metrics);

  // A reloaded configuration takes effect from the next period.
  void SetConfig(const AgentConfig& config);
  const AgentConfig& config() const { return config_; }
  // One period at `now_nanos` (monotonic).
  TickReport Tick(int64_t now_nanos);
  // Restores every cgroup value the agent changed (on exit).
  Status RestoreAll();

 private:
  struct PodSample {
    const AgentPod* pod = nullptr;
    QosLevel level = QosLevel::kLS;
    std::string group;
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
  };
  std::vector<PodSample> SamplePods(const std::vector<AgentPod>& pods, int64_t now_nanos);
  void Isolate(const std::vector<PodSample>& samples, const std::optional<NodeUsage>& node);
  void IsolateBe(const PodSample& s, const std::optional<NodeUsage>& node);
  void Throttle(const std::vector<PodSample>& samples, int64_t capacity_milli, TickReport* report);
  void Report(const std::vector<PodSample>& samples, int64_t now_nanos, TickReport* report);
  void EvictUnderPressure(const std::vector<PodSample>& samples, const NodeUsage& node,
                          TickReport* report);
  std::vector<std::string> PickFor(const std::vector<PodSample>& samples, int64_t used,
                                   int64_t capacity, const Watermarks& marks, bool cpu,
                                   std::map<std::string, const PodSample*>* by_key);
  void ExportMetrics(const std::vector<PodSample>& samples, const TickReport& report);
  void Warn(const std::string& key, const Status& status);

  AgentConfig config_;
  const Cgroups* cgroups_;
  NodeSampler* node_;
  NodeApi* api_;
  kube::Metrics* metrics_;
  CgroupSetter setter_;
  GroupCpuSampler cpu_sampler_;
  SlidingWindow online_cpu_;
  SlidingWindow online_memory_;
  std::set<std::string> isolated_;   // groups of BE pods the agent has changed
  std::set<std::string> throttled_;  // ... and whose quota it set
  bool throttle_engaged_ = false;
  bool cpu_qos_level_absent_ = false;  // the kernel has no cpu.qos_level
  LastOversoldReport last_report_;
  std::set<std::string> evicting_;  // pod UIDs asked to leave, until they are gone
  std::set<std::string> warned_;    // one warning per cause
};

}  // namespace basalt::agent
