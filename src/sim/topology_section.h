// The `topology` section of a `basalt simulate` scenario (docs/simulate.md):
// racks and spines over the generated node pools, turned into HyperNode
// objects, and the network topology constraint of the training jobs, so one
// line (`topology.jobs: hard|soft|none`) or one flag (`--topology-jobs`)
// compares placements with and without topology on the same workload.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/hypernode.h"
#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

struct NodePool;

namespace scenario_yaml {
class Reader;
}

// One pool's switch tree: `nodes_per_leaf` consecutive nodes share a leaf
// (tier 1), `leaves_per_spine` consecutive leaves a spine (tier 2), and
// `spines_per_core` consecutive spines a core switch (tier 3). 0 = no such tier.
struct TopologyPool {
  std::string pool;
  int32_t nodes_per_leaf = 0;
  int32_t leaves_per_spine = 0;
  int32_t spines_per_core = 0;
};

struct TopologySection {
  bool present = false;  // the scenario has a `topology` section: report placements
  // The constraint of every training job: "hard" or "soft" (each workload's own
  // highest tier, else the section's), "none" (no constraint), or "as_written"
  // (each workload's own `network_topology`, if any).
  std::string jobs = "as_written";
  std::optional<int32_t> highest_tier;  // the default highest tier allowed
  std::string highest_tier_name;        // or the default by tier name
  std::vector<std::string> tier_names = {"leaf", "spine", "core"};
  std::vector<TopologyPool> pools;
  int yaml_line = 0;
  int jobs_line = 0;          // 0: `jobs` is not in the file (default or --topology-jobs)
  int highest_tier_line = 0;  // of highest_tier or highest_tier_name
};

inline constexpr const char* kTopologyJobModes[] = {"hard", "soft", "none", "as_written"};
bool IsTopologyJobMode(const std::string& mode);

// Reads the section at `node` (`topology`); `pools` are the scenario's node
// pools, which the section's pools must name.
Status ParseTopologySection(const scenario_yaml::Reader& r, const YAML::Node& node,
                            const std::vector<NodePool>& pools, TopologySection* out);

// Reads a training workload's `network_topology` (a vcjob's
// spec.networkTopology, verbatim: mode, highestTierAllowed or highestTierName).
Status ParseWorkloadTopology(const scenario_yaml::Reader& r, const YAML::Node& node,
                             const std::string& field, std::optional<NetworkTopologySpec>* out);

// The HyperNodes of the section's pools: `<pool>-leaf-NN` (tier 1, nodes by
// exact name), `<pool>-spine-NN` (tier 2), `<pool>-core-NN` (tier 3), with the
// section's tier names. `node_name(pool, i)` names a pool's i-th node.
std::vector<HyperNode> GenerateHyperNodes(
    const TopologySection& section, const std::vector<NodePool>& pools,
    const std::function<std::string(const std::string&, int32_t)>& node_name);

// The constraint a training job of a workload carries under the section:
// `own` is the workload's `network_topology`; `default_tier` fills in the
// highest tier when neither the workload nor the section names one.
std::optional<NetworkTopologySpec> EffectiveJobTopology(
    const TopologySection& section, const std::optional<NetworkTopologySpec>& own,
    int32_t default_tier);

}  // namespace basalt
