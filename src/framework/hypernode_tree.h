// HyperNodeTree: the session's view of the HyperNodes (api/hypernode.h) over
// the snapshot's nodes, built when the session opens.
//
// Each HyperNode gets a dense id (name order), its parent and children, and
// its real nodes: the nodes its members select, directly or through member
// HyperNodes, as sorted NodeIds. Tiers are read from the objects; `tiers()`
// lists the distinct ones, lowest first. A node's leaf is the lowest-tier
// HyperNode holding it (earliest name on a tie), as Volcano's
// FindHyperNodeForNode picks it. docs/topology.md describes the rules.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/snapshot.h"
#include "framework/types.h"

namespace basalt {

using HyperNodeId = int32_t;

class HyperNodeTree {
 public:
  struct Entry {
    std::string name;
    int32_t tier = 0;
    std::string tier_name;
    HyperNodeId parent = kNone;
    std::vector<HyperNodeId> children;
    std::vector<NodeId> nodes;  // real nodes, sorted
  };

  HyperNodeTree() = default;
  // The tree of `state`'s HyperNodes over `snap`'s nodes (empty without HyperNodes).
  static HyperNodeTree Build(const ClusterState& state, const Snapshot& snap);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const Entry& at(HyperNodeId id) const { return entries_[id]; }
  std::optional<HyperNodeId> Find(const std::string& name) const;
  const std::vector<int32_t>& tiers() const { return tiers_; }
  // HyperNodes of `tier`, in name order (empty for a tier no HyperNode has).
  const std::vector<HyperNodeId>& OfTier(int32_t tier) const;
  // The lowest-tier HyperNode holding `node`, or kNone.
  HyperNodeId LeafOf(NodeId node) const {
    return node < static_cast<NodeId>(leaf_.size()) ? leaf_[node] : kNone;
  }
  // Every HyperNode holding `node` (its leaf and their ancestors, or more when
  // HyperNodes overlap), in id order.
  const std::vector<HyperNodeId>& Containing(NodeId node) const;
  // The lowest common ancestor of `a` and `b` (either may be kNone: then the
  // other), or kNone when they share no ancestor.
  HyperNodeId Lca(HyperNodeId a, HyperNodeId b) const;
  // The tier a `highestTierName` names: the tier of the HyperNodes carrying that
  // spec.tierName (the lowest when several tiers share it).
  std::optional<int32_t> TierNamed(const std::string& tier_name) const;
  // Whether `node` is among the real nodes of `h`.
  bool Holds(HyperNodeId h, NodeId node) const;
  // Whether network topology constraints apply: a plugin of the session
  // places constrained jobs inside HyperNodes (Session::AddHyperNodeGradient,
  // the network-topology-aware plugin). As in Volcano v1.15.1, without one a
  // hard or soft `networkTopology` (of a job or a SubGroup) constrains nothing.
  bool constraining() const { return constraining_; }
  void set_constraining(bool on) { constraining_ = on; }

 private:
  void ResolveNodes(const ClusterState& state, const Snapshot& snap);
  void IndexNodes(size_t node_count);
  int32_t Depth(HyperNodeId h) const;

  std::vector<Entry> entries_;
  std::map<std::string, HyperNodeId, std::less<>> index_;
  std::vector<int32_t> tiers_;
  std::map<int32_t, std::vector<HyperNodeId>> by_tier_;
  std::vector<HyperNodeId> leaf_;
  std::vector<std::vector<HyperNodeId>> containing_;
  bool constraining_ = false;
};

// The network topology constraint of a job as the scheduler applies it: none
// (no spec, no plugin placing by topology (`constraining()`), or hard without
// a highest tier, as Volcano reads it), hard or soft, with the highest tier
// resolved (a highestTierName through the tree).
struct TopologyConstraint {
  enum class Kind { kNone, kHard, kSoft };
  Kind kind = Kind::kNone;
  std::optional<int32_t> highest_tier;  // unset for soft, or a tier name no HyperNode has
  std::string unresolved_tier_name;     // the highestTierName that named no tier
};
TopologyConstraint ConstraintOf(const JobInfo& job, const HyperNodeTree& tree);
// The same for a spec (a SubGroup's networkTopology); unset: no constraint.
TopologyConstraint ConstraintOfSpec(const std::optional<NetworkTopologySpec>& spec,
                                    const HyperNodeTree& tree);

}  // namespace basalt
