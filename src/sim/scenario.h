// The scenario file of `basalt simulate` (docs/simulate.md is the reference):
// node pools, queues, priority classes, the scheduler configuration verbatim,
// the schedule period, the duration, the seed, workloads (generated training
// vcjobs, inference Deployments following a tide curve, trace replays) and
// node events.
//
// `ParseScenario` checks every field before the simulator sees it, so nothing
// user-supplied reaches the engine unchecked; errors read
// `file:line: field.path: problem`, the line being the YAML line of the field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"
#include "sim/colocation.h"
#include "sim/topology_section.h"

namespace basalt {

// A random duration (seconds). `kind`: fixed (value), uniform (min..max),
// exponential (mean), lognormal (median, sigma). Results are clamped to
// [min, max] when those are set (for lognormal/exponential) and to >= 1 s.
struct DurationDist {
  std::string kind = "fixed";
  int64_t value = 3600;
  int64_t min = 0;
  int64_t max = 0;  // 0 = unbounded
  int64_t mean = 0;
  int64_t median = 0;
  double sigma = 0.5;
};

// A replica count over time. `kind`: sine (min..max, peak at `peak_at` within
// every `period`) or table (piecewise-constant points, repeating every
// `period` when set). The curve is sampled every `step` seconds.
struct TideCurve {
  std::string kind = "sine";
  int32_t min = 0;
  int32_t max = 0;
  int64_t period = 86400;
  int64_t peak_at = 14 * 3600;
  int64_t step = 900;
  std::vector<std::pair<int64_t, int32_t>> points;  // (offset seconds, replicas), sorted

  // Replicas at simulated second `t` (pure, deterministic).
  int32_t At(int64_t t) const;
};

struct NodePool {
  std::string name;
  int32_t count = 0;
  int yaml_line = 0;  // where the pool is written, for messages
  Resource allocatable;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  std::string card_model;  // becomes the label `volcano.sh/card.name` ... and a metrics key
};

struct TrainingTask {
  std::string name = "worker";
  std::vector<int32_t> replicas;  // one is drawn uniformly per job
  Resource request;
};

struct TrainingWorkload {
  std::string name;
  std::string namespace_ = "default";
  std::string queue = "default";
  std::string priority_class;
  std::string card_model;           // node selector on the card model label when set
  std::string arrival = "poisson";  // poisson (mean interval) or fixed (interval)
  int64_t interval = 600;
  int64_t start = 0;
  int64_t stop = 0;      // 0 = the end of the simulation
  int32_t max_jobs = 0;  // 0 = unbounded
  std::vector<TrainingTask> tasks;
  DurationDist duration;
  std::vector<LifecyclePolicy> policies;
  // The jobs' spec.networkTopology (the scenario's `topology.jobs` may override it).
  std::optional<NetworkTopologySpec> network_topology;
  int yaml_line = 0;
};

struct InferenceWorkload {
  std::string name;
  std::string namespace_ = "default";
  std::string queue = "default";
  std::string priority_class;
  std::string card_model;
  Resource request;
  TideCurve replicas;
  int yaml_line = 0;
};

// A trace replay. kind `openb-pods`: Alibaba openb pod list (bare pods, one
// per row; arrivals from creation_time, durations from deletion_time) mapped to
// queues by `qos`; kind `dlrm-inference`: the DLRM inference trace (pods of a
// ReplicaSet per app, created and deleted at the trace's times).
struct TraceWorkload {
  std::string kind;
  std::string path;
  std::string namespace_ = "default";
  std::map<std::string, std::string>
      queue_by_class;  // qos (openb) or role (dlrm) -> queue; "*" = any
  // qos / role -> node selector (labels) for the pods of that class ("*" = any
  // class without its own), e.g. DLRM's CN instances on the CPU pool.
  std::map<std::string, std::map<std::string, std::string>> node_selector_by_class;
  std::string priority_class;
  std::string card_model;           // dlrm: node selector for HN pods
  double time_scale = 1.0;          // trace seconds -> simulated seconds
  int64_t time_offset = 0;          // subtracted from trace times (before scaling)
  int64_t default_duration = 3600;  // when a row has no deletion time
  int32_t max_rows = 0;             // 0 = all
  int yaml_line = 0;
};

struct NodeEvent {
  int64_t at = 0;
  std::string action;              // fail, recover, drain
  std::vector<std::string> nodes;  // node names
  int yaml_line = 0;
};

struct Scenario {
  std::string name;
  std::string source;  // the scenario file path (messages, relative trace paths)
  uint64_t seed = 1;
  int64_t duration = 86400;
  int64_t period = 60;
  int64_t metrics_interval = 300;
  std::string scheduler_conf;  // verbatim Volcano scheduler configuration
  std::vector<PriorityClass> priority_classes;
  std::vector<Queue> queues;
  std::vector<NodePool> pools;
  std::string openb_nodes_path;  // optional: node list from the openb trace
  int32_t openb_nodes_limit = 0;
  std::vector<TrainingWorkload> training;
  std::vector<InferenceWorkload> inference;
  std::vector<TraceWorkload> traces;
  std::vector<NodeEvent> node_events;
  // Manifest files or folders (vcjobs, JobTemplates, JobFlows, ...) loaded as
  // `basalt schedule --cluster` loads them; relative to the scenario file.
  std::vector<std::string> manifests;
  // The label naming a node's card model (and the pods' node selector key).
  std::string card_label = "nvidia.com/gpu.product";
  // Agents on the nodes (sim/colocation.h); none without the section.
  std::optional<ColocationSpec> colocation;
  // Racks and spines over the pools and the jobs' constraints (sim/topology_section.h).
  TopologySection topology;
};

// Parses a scenario document. `file` names it in messages; relative trace
// paths are resolved against its folder.
Result<Scenario> ParseScenario(const std::string& text, const std::string& file);
Result<Scenario> LoadScenario(const std::string& path);

// "90", "90s", "15m", "2h", "1d", "1w" -> seconds. Error text names no field.
Result<int64_t> ParseSimDuration(const std::string& text);

}  // namespace basalt
