#include "framework/hypernode_tree.h"

#include <algorithm>
#include <functional>

#include "api/hypernode.h"

namespace basalt {

HyperNodeTree HyperNodeTree::Build(const ClusterState& state, const Snapshot& snap) {
  HyperNodeTree tree;
  if (state.hypernodes().empty()) return tree;
  for (const auto& [name, h] : state.hypernodes()) {
    tree.index_.emplace(name, static_cast<HyperNodeId>(tree.entries_.size()));
    tree.entries_.push_back(Entry{name, h.tier, h.tier_name, kNone, {}, {}});
  }
  // Children by exact name; a member naming no HyperNode is skipped (it may
  // come later), and the store keeps the tree valid (one parent, no cycle).
  for (const auto& [name, h] : state.hypernodes()) {
    HyperNodeId id = tree.index_.at(name);
    for (const HyperNodeMember& m : h.members) {
      if (m.type != HyperNodeMember::Type::kHyperNode) continue;
      auto child = tree.Find(m.exact_name);
      if (!child) continue;
      tree.entries_[id].children.push_back(*child);
      tree.entries_[*child].parent = id;
    }
  }
  for (HyperNodeId id = 0; id < static_cast<HyperNodeId>(tree.entries_.size()); ++id) {
    tree.by_tier_[tree.entries_[id].tier].push_back(id);
  }
  for (const auto& [tier, ids] : tree.by_tier_) tree.tiers_.push_back(tier);
  tree.ResolveNodes(state, snap);
  tree.IndexNodes(snap.nodes.size());
  return tree;
}

void HyperNodeTree::ResolveNodes(const ClusterState& state, const Snapshot& snap) {
  // Direct node members first.
  std::vector<std::vector<NodeId>> direct(entries_.size());
  for (const auto& [name, h] : state.hypernodes()) {
    std::vector<NodeId>& out = direct[index_.at(name)];
    for (const HyperNodeMember& m : h.members) {
      if (m.type != HyperNodeMember::Type::kNode) continue;
      if (!m.exact_name.empty()) {
        auto it = snap.node_index.find(m.exact_name);
        if (it != snap.node_index.end()) out.push_back(it->second);
        continue;
      }
      for (const NodeInfo& n : snap.nodes) {
        if (MemberMatchesNode(m, *n.node)) out.push_back(n.id);
      }
    }
  }
  // Then the union over each subtree, children before parents (the tree has no cycle).
  std::vector<bool> done(entries_.size(), false);
  std::function<void(HyperNodeId)> resolve = [&](HyperNodeId id) {
    if (done[id]) return;
    done[id] = true;
    std::vector<NodeId> nodes = std::move(direct[id]);
    for (HyperNodeId c : entries_[id].children) {
      resolve(c);
      nodes.insert(nodes.end(), entries_[c].nodes.begin(), entries_[c].nodes.end());
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    entries_[id].nodes = std::move(nodes);
  };
  for (HyperNodeId id = 0; id < static_cast<HyperNodeId>(entries_.size()); ++id) resolve(id);
}

void HyperNodeTree::IndexNodes(size_t node_count) {
  leaf_.assign(node_count, kNone);
  containing_.assign(node_count, {});
  for (HyperNodeId id = 0; id < static_cast<HyperNodeId>(entries_.size()); ++id) {
    for (NodeId n : entries_[id].nodes) {
      containing_[n].push_back(id);
      HyperNodeId& leaf = leaf_[n];
      if (leaf == kNone || entries_[id].tier < entries_[leaf].tier) leaf = id;
    }
  }
}

std::optional<HyperNodeId> HyperNodeTree::Find(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const std::vector<HyperNodeId>& HyperNodeTree::OfTier(int32_t tier) const {
  static const std::vector<HyperNodeId> kEmpty;
  auto it = by_tier_.find(tier);
  return it == by_tier_.end() ? kEmpty : it->second;
}

const std::vector<HyperNodeId>& HyperNodeTree::Containing(NodeId node) const {
  static const std::vector<HyperNodeId> kEmpty;
  return node >= 0 && node < static_cast<NodeId>(containing_.size()) ? containing_[node] : kEmpty;
}

int32_t HyperNodeTree::Depth(HyperNodeId h) const {
  int32_t d = 0;
  for (HyperNodeId at = entries_[h].parent; at != kNone; at = entries_[at].parent) ++d;
  return d;
}

HyperNodeId HyperNodeTree::Lca(HyperNodeId a, HyperNodeId b) const {
  if (a == kNone) return b;
  if (b == kNone) return a;
  int32_t da = Depth(a), db = Depth(b);
  for (; da > db; --da) a = entries_[a].parent;
  for (; db > da; --db) b = entries_[b].parent;
  while (a != b) {
    a = entries_[a].parent;
    b = entries_[b].parent;
    if (a == kNone || b == kNone) return kNone;
  }
  return a;
}

std::optional<int32_t> HyperNodeTree::TierNamed(const std::string& tier_name) const {
  for (const auto& [tier, ids] : by_tier_) {
    for (HyperNodeId id : ids) {
      if (entries_[id].tier_name == tier_name) return tier;
    }
  }
  return std::nullopt;
}

bool HyperNodeTree::Holds(HyperNodeId h, NodeId node) const {
  const std::vector<NodeId>& nodes = entries_[h].nodes;
  return std::binary_search(nodes.begin(), nodes.end(), node);
}

TopologyConstraint ConstraintOf(const JobInfo& job, const HyperNodeTree& tree) {
  if (!job.podgroup) return {};
  return ConstraintOfSpec(job.podgroup->network_topology, tree);
}

TopologyConstraint ConstraintOfSpec(const std::optional<NetworkTopologySpec>& given,
                                    const HyperNodeTree& tree) {
  TopologyConstraint c;
  if (!given || !tree.constraining()) return c;
  const NetworkTopologySpec& spec = *given;
  if (spec.highest_tier_allowed) {
    c.highest_tier = *spec.highest_tier_allowed;
  } else if (!spec.highest_tier_name.empty()) {
    c.highest_tier = tree.TierNamed(spec.highest_tier_name);
    if (!c.highest_tier) c.unresolved_tier_name = spec.highest_tier_name;
  }
  if (spec.mode == NetworkTopologySpec::Mode::kSoft) {
    c.kind = TopologyConstraint::Kind::kSoft;
    return c;
  }
  // Volcano v1.15.1 adds a HyperNode holding every node one tier above the
  // highest real one (tier 1 without HyperNodes) and treats a job as hard only
  // with a highest tier: a highestTierName no HyperNode carries leaves none,
  // and without HyperNodes any highest tier >= 1 reaches the whole cluster.
  // Either way the job is placed as an unconstrained one.
  if (!c.highest_tier || (tree.tiers().empty() && *c.highest_tier >= 1)) {
    c.unresolved_tier_name.clear();
    return c;
  }
  c.kind = TopologyConstraint::Kind::kHard;
  return c;
}

}  // namespace basalt
