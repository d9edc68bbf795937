// Colocation in `basalt simulate`: the scenario's `colocation:` section puts a
// model of `basalt agent` on the nodes (docs/simulate.md, docs/agent.md).
//
// Every agent period (the agent configuration's `samplingPeriod`) the model
// gives each Running pod a usage — an online pod a share of its requests
// following its workload's daily curve, a BE pod a fixed share of what it
// requests — and then decides as the real agent does, through the same
// functions (agent/policy.h): the node's online usage goes into a sliding
// window, the oversold amount (online requested − window peak − margin) is
// reported when due (extend: `kubernetes.io/batch-cpu` / `batch-memory` on the
// node; native: the node's allocatable raised), and BE pods are picked for
// eviction when the node's usage reaches a high watermark. The simulator
// applies what the model returns: node updates, which the next scheduling
// cycle sees, and evictions (cause `agent`), which requeue the BE jobs as any
// other eviction does.
//
// Usage noise comes from a hash of (seed, pod, period), not from the
// simulator's random stream, so adding colocation to a scenario changes none
// of its arrivals, and one seed gives the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/usage.h"
#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

class ClusterState;

// A share of a pod's requests over time: constant, a daily sine (`min` at the
// trough, `max` at `peak_at` within every `period`) or a table of
// (offset, share) points, piecewise constant, repeating every `period` when set.
struct UsageCurve {
  std::string kind = "constant";
  double value = 1.0;  // constant
  double min = 0, max = 0;
  int64_t period = 86400;
  int64_t peak_at = 14 * 3600;
  std::vector<std::pair<int64_t, double>> points;
  double At(int64_t t) const;
};

// How the pods of one workload use what they request.
struct OnlineUsage {
  std::string workload;
  UsageCurve cpu, memory;
  double noise = 0;  // each pod, each period: x (1 + noise x u), u uniform in [-1, 1)
  int yaml_line = 0;
};

struct ColocationSpec {
  agent::AgentConfig agent;        // the agent's configuration file, inline
  std::vector<std::string> pools;  // pools whose nodes run the agent; empty: every node
  std::vector<OnlineUsage> online;
  double offline_cpu = 1.0;  // BE pods use this share of what they request
  double offline_memory = 1.0;
  int yaml_line = 0;
  std::vector<int> pool_lines;  // YAML line of each entry of `pools`
};

// Parses the `colocation:` section (`file` names the scenario in messages:
// `file:line: colocation.field: problem`).
Status ParseColocation(const YAML::Node& node, const std::string& file, ColocationSpec* out);

// What one agent period asks of the simulator.
struct AgentPeriodResult {
  std::vector<Node> node_updates;  // nodes whose reported resources changed
  std::vector<std::string> evict;  // BE pods to evict, in the agents' order
};

class ColocationModel {
 public:
  // `nodes`: the node names running the agent. `workloads`: every workload
  // name of the scenario (to check `online[].workload`).
  static Result<ColocationModel> Create(const ColocationSpec& spec, const std::string& file,
                                        uint64_t seed, const std::vector<const Node*>& nodes,
                                        const std::set<std::string>& workloads);

  int64_t period_seconds() const { return period_; }
  // One period of every node's agent at simulated second `t`.
  AgentPeriodResult Tick(int64_t t, const ClusterState& state);
  // The figures of the latest period, for a metrics sample (cores and GiB).
  std::map<std::string, double> SampleValues() const;
  nlohmann::ordered_json SummaryJson() const;

 private:
  struct NodeAgent {
    std::string name;
    Resource base_allocatable;
    agent::SlidingWindow online_cpu{0}, online_memory{0};
    agent::LastOversoldReport last;
  };
  struct PodUse {  // one Running pod in one period
    std::string key;
    uint64_t key_hash = 0;  // the noise's per-pod input
    int usage = -1;         // index in `online`, -1: none
    agent::QosLevel level = agent::QosLevel::kLS;
    int32_t priority = 0;
    int64_t start_time = 0;
    int64_t cpu_requested = 0, memory_requested = 0;  // what it runs on (batch included)
    int64_t cpu_used = 0, memory_used = 0;
  };
  struct Totals {  // over the agent nodes, one period
    int64_t cpu_capacity = 0, cpu_online_requested = 0, cpu_online_used = 0, cpu_oversold = 0,
            cpu_be_requested = 0, cpu_be_used = 0;
    int64_t memory_capacity = 0, memory_online_requested = 0, memory_online_used = 0,
            memory_oversold = 0, memory_be_used = 0;
    int64_t node_cpu_peak_percent = 0;
  };

  ColocationModel() = default;
  PodUse FactsOf(const Pod& pod, int64_t t) const;
  std::vector<PodUse> UsesOn(const std::vector<const Pod*>& pods, int64_t t);
  // One node's period; the figures when a report is due.
  std::optional<agent::OversoldFigures> TickNode(NodeAgent& n, const std::vector<PodUse>& uses,
                                                 int64_t t, AgentPeriodResult* result);
  void EvictUnderPressure(const std::vector<PodUse>& uses, int64_t node_cpu, int64_t cpu_capacity,
                          int64_t node_memory, int64_t memory_capacity, AgentPeriodResult* result);
  Node Reported(const NodeAgent& n, const Node& current, const agent::OversoldFigures& f) const;
  void Accumulate(int64_t t);

  ColocationSpec spec_;
  uint64_t seed_ = 0;
  int64_t period_ = 10;
  std::vector<NodeAgent> nodes_;
  std::map<std::string, size_t> node_index_;
  std::map<std::string, size_t> usage_of_workload_;  // workload -> index in spec_.online
  std::map<std::string, PodUse> facts_;  // Running pods: what does not change while they run
  Totals now_;
  // Sums over the periods (milli-units x periods) and peaks.
  Totals sums_;
  int64_t periods_ = 0;
  int64_t online_cpu_peak_ = 0, online_cpu_peak_t_ = 0, online_cpu_peak_capacity_ = 0;
  int64_t node_periods_at_high_watermark_ = 0;
  int64_t reports_ = 0, evictions_ = 0, evictions_memory_ = 0;
};

}  // namespace basalt
