// Simulator::InitTopology: the part of the simulator's set-up that checks a
// scenario's `topology` section against the HyperNodes in the store
// (sim/topology_section.h) and starts recording placements.
#include <algorithm>
#include <set>

#include "sim/simulator.h"

namespace basalt {
namespace {

std::string TierList(const std::set<int32_t>& tiers) {
  std::string out;
  for (int32_t t : tiers) out += (out.empty() ? "" : ", ") + std::to_string(t);
  return out;
}

}  // namespace

Status Simulator::InitTopology() {
  const TopologySection& t = scenario_.topology;
  std::set<int32_t> tiers;
  std::set<std::string> tier_names;
  for (const auto& [name, h] : state_.hypernodes()) {
    tiers.insert(h.tier);
    if (!h.tier_name.empty()) tier_names.insert(h.tier_name);
  }
  default_topology_tier_ = tiers.empty() ? 0 : *tiers.rbegin();
  auto at = [&](int line, const std::string& field) {
    return scenario_.source + ":" + std::to_string(line) + ": " + field + ": ";
  };
  if ((t.jobs == "hard" || t.jobs == "soft") && tiers.empty()) {
    const std::string where = t.jobs_line > 0 ? at(t.jobs_line, "topology.jobs")
                                              : scenario_.source + ": --topology-jobs: ";
    return Status::InvalidArgument(where + t.jobs +
                                   " needs HyperNodes (topology.pools, or HyperNode objects "
                                   "under manifests:)");
  }
  if (t.highest_tier && !tiers.empty() && *t.highest_tier < *tiers.begin()) {
    return Status::InvalidArgument(at(t.highest_tier_line, "topology.highest_tier") +
                                   "no HyperNode has tier " + std::to_string(*t.highest_tier) +
                                   " or lower (tiers: " + TierList(tiers) + ")");
  }
  if (!t.highest_tier_name.empty() && !tier_names.count(t.highest_tier_name)) {
    std::string names;
    for (const std::string& n : tier_names) names += (names.empty() ? "" : ", ") + n;
    return Status::InvalidArgument(at(t.highest_tier_line, "topology.highest_tier_name") +
                                   "no HyperNode has tierName \"" + t.highest_tier_name +
                                   "\" (names: " + (names.empty() ? "none" : names) + ")");
  }
  if (t.present) placement_ = std::make_unique<PlacementQuality>(state_, t.jobs);
  return Status::Ok();
}

}  // namespace basalt
