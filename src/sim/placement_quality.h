// Placement quality of training gangs in a simulated cluster with HyperNodes
// (`basalt simulate` with a `topology` section, docs/simulate.md): for every
// job, where its gang landed when it first started — the tier of the lowest
// HyperNode holding all its pods, the leaves it uses against the fewest that
// could hold it — and the aggregates the report and the summary show.
//
// The HyperNodes and the nodes of a simulation do not change, so the tree is
// read once from the store; a node in no HyperNode counts as outside the tree.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "state/cluster_state.h"

namespace basalt {

struct JobPlacement {
  std::string workload;
  std::string mode = "none";            // hard, soft or none
  std::optional<int32_t> highest_tier;  // resolved (a tier name through the HyperNodes)
  int32_t pods = 0;
  int64_t arrived = 0;
  int64_t started = -1;  // -1: never started
  int32_t nodes = 0;
  int32_t leaves = 0;
  int32_t min_leaves = 0;    // the fewest leaves that could hold the gang in an empty cluster
  int32_t tier_spanned = 0;  // the top tier + 1 when no HyperNode holds every pod
  std::string spanned_hypernode;
};

class PlacementQuality {
 public:
  PlacementQuality(const ClusterState& state, std::string jobs_mode);

  // The highest tier of the HyperNodes (0 without any).
  int32_t top_tier() const { return top_tier_; }
  // The tier a HyperNode spec.tierName names (the lowest carrying it).
  std::optional<int32_t> TierNamed(const std::string& name) const;

  void OnJobSubmitted(const VcJob& job, const std::string& workload, int64_t t);
  // The gang of `key` became complete at `t`: records its placement (its first only).
  void OnGangStarted(const std::string& key, const ClusterState& state, int64_t t);

  const std::map<std::string, JobPlacement>& jobs() const { return jobs_; }
  nlohmann::ordered_json SummaryJson() const;
  // One row per job (file `topology.csv`).
  std::string Csv() const;

 private:
  struct Span {
    int32_t tier = 0;
    std::string hypernode;
  };
  Span SpanOf(const std::vector<std::string>& leaves, bool outside) const;
  int32_t MinLeaves(const Resource& pod_request, int32_t pods);
  nlohmann::ordered_json PlacementsJson() const;
  nlohmann::ordered_json TierNamesJson() const;

  std::string jobs_mode_;
  int32_t top_tier_ = 0;
  std::map<std::string, int32_t> tier_of_;
  std::map<std::string, std::string> parent_of_;
  std::map<std::string, std::string> tier_name_of_;  // HyperNode -> spec.tierName
  std::map<std::string, std::string> leaf_of_node_;
  std::map<std::string, std::vector<Resource>> allocatable_of_leaf_;  // one per node
  std::map<std::string, int32_t> min_leaves_cache_;  // request and pods -> min leaves
  std::map<std::string, JobPlacement> jobs_;
};

}  // namespace basalt
