#include "actions/hypernode_search.h"

#include <algorithm>
#include <optional>

#include "actions/node_selection.h"
#include "framework/placed_span.h"

namespace basalt {

void HyperNodeFree::Refresh(const Session& ssn) {
  const HyperNodeTree& tree = ssn.hypernodes();
  const auto& log = ssn.node_change_log();
  if (!started_) {
    started_ = true;
    seen_ = log.size();
    node_free_.assign(ssn.nodes().size(), Resource());
    free_.assign(tree.size(), Resource());
    for (const NodeInfo& n : ssn.nodes()) node_free_[n.id] = n.FutureIdle();
    for (HyperNodeId h = 0; h < static_cast<HyperNodeId>(tree.size()); ++h) {
      for (NodeId n : tree.at(h).nodes) free_[h] += node_free_[n];
    }
    return;
  }
  for (; seen_ < log.size(); ++seen_) {
    NodeId n = log[seen_];
    const std::vector<HyperNodeId>& holders = tree.Containing(n);
    if (holders.empty()) continue;
    Resource now = ssn.node(n).FutureIdle();
    for (HyperNodeId h : holders) {
      free_[h] -= node_free_[n];
      free_[h] += now;
    }
    node_free_[n] = std::move(now);
  }
}

namespace {

// Per dimension, the sum of the `count` smallest requests among `pending`: no
// set of `count` of these pods asks for less.
Resource SmallestRequests(const Session& ssn, const std::vector<TaskId>& pending, size_t count) {
  std::vector<ResourceId> dims = {ResourceNames::kCpu, ResourceNames::kMemory};
  for (TaskId id : pending) {
    for (const auto& [dim, v] : ssn.task(id).request.scalars()) {
      if (std::find(dims.begin(), dims.end(), dim) == dims.end()) dims.push_back(dim);
    }
  }
  Resource out;
  std::vector<int64_t> values;
  for (ResourceId dim : dims) {
    values.clear();
    for (TaskId id : pending) values.push_back(ssn.task(id).request.Get(dim));
    std::sort(values.begin(), values.end());
    int64_t sum = 0;
    for (size_t i = 0; i < count && i < values.size(); ++i) sum += values[i];
    if (sum > 0 || dim == ResourceNames::kCpu || dim == ResourceNames::kMemory) out.Set(dim, sum);
  }
  return out;
}

// "cpu 2, memory 1Gi": by how much `free` falls short of `need`.
std::string Lacking(const Resource& need, const Resource& free) {
  std::string out;
  auto add = [&](ResourceId id) {
    int64_t n = need.Get(id), f = free.Get(id);
    if (n <= f) return;
    out += (out.empty() ? "" : ", ") + ResourceNames::Name(id) + " " + FormatDimension(id, n - f);
  };
  add(ResourceNames::kCpu);
  add(ResourceNames::kMemory);
  for (const auto& [id, v] : need.scalars()) add(id);
  return out;
}

int32_t TierOf(const HyperNodeTree& tree, HyperNodeId h) { return tree.at(h).tier; }

}  // namespace

HyperNodeId JobSpan(const Session& ssn, const JobInfo& job) {
  bool any = false, outside = false;
  return PlacedSpan(ssn, job.tasks, &any, &outside);
}

std::optional<HyperNodeId> HyperNodePlan::Next() {
  // Max-heap order: the higher score, then the lower id (earlier name), first.
  auto lower = [](const std::pair<double, HyperNodeId>& a,
                  const std::pair<double, HyperNodeId>& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  while (at_ < tiers_.size()) {
    auto& tier = tiers_[at_];
    if (tier.empty()) {
      ++at_;
      heaped_ = false;
      continue;
    }
    if (!heaped_) {
      std::make_heap(tier.begin(), tier.end(), lower);
      heaped_ = true;
    }
    std::pop_heap(tier.begin(), tier.end(), lower);
    HyperNodeId h = tier.back().second;
    tier.pop_back();
    return h;
  }
  return std::nullopt;
}

namespace {

// The qualifying HyperNodes, tier by tier up to the highest allowed one: inside
// `root` (when given), keeping the placed pods' `span` within the allowed tier,
// and with free resources of at least `need`.
HyperNodePlan PlanTiers(const Session& ssn, const JobInfo& job, const TopologyConstraint& c,
                        const Resource& need, HyperNodeId span, bool placed, HyperNodeId root,
                        const HyperNodeFree& free) {
  HyperNodePlan plan;
  const HyperNodeTree& tree = ssn.hypernodes();
  auto within_limit = [&](int32_t tier) { return !c.highest_tier || tier <= *c.highest_tier; };
  int skipped = 0;
  std::vector<HyperNodeId> fit;
  for (int32_t tier : tree.tiers()) {
    if (!within_limit(tier)) break;
    fit.clear();
    for (HyperNodeId h : tree.OfTier(tier)) {
      if (root != kNone && tree.Lca(h, root) != root) continue;
      if (placed) {
        HyperNodeId lca = span == kNone ? kNone : tree.Lca(h, span);
        if (lca == kNone || !within_limit(TierOf(tree, lca))) continue;
      }
      if (!LessEqual(need, free.Of(h))) {
        if (++skipped <= 3) {
          plan.shortfall += (plan.shortfall.empty() ? "" : "; ") + tree.at(h).name + " (tier " +
                            std::to_string(tier) + ") lacks " + Lacking(need, free.Of(h));
        }
        continue;
      }
      fit.push_back(h);
    }
    std::vector<double> scores = ssn.HyperNodeScores(job, fit);
    std::vector<std::pair<double, HyperNodeId>> scored;
    scored.reserve(fit.size());
    for (size_t i = 0; i < fit.size(); ++i) scored.emplace_back(scores[i], fit[i]);
    plan.AddTier(std::move(scored));
  }
  if (skipped > 3) plan.shortfall += "; and " + std::to_string(skipped - 3) + " more";
  return plan;
}

}  // namespace

HyperNodePlan PlanHyperNodes(const Session& ssn, const JobInfo& job, const TopologyConstraint& c,
                             const std::vector<TaskId>& pending, const HyperNodeFree& free) {
  if (!c.unresolved_tier_name.empty()) return {};  // a tier no HyperNode has: none qualifies
  const int32_t needed = std::max(1, job.min_member - job.ReadyTaskNum());
  const Resource need = SmallestRequests(ssn, pending, std::min<size_t>(needed, pending.size()));
  bool placed = false, outside = false;  // pods outside every HyperNode do not count here
  const HyperNodeId span = PlacedSpan(ssn, job.tasks, &placed, &outside);
  return PlanTiers(ssn, job, c, need, span, placed, kNone, free);
}

HyperNodePlan PlanSubGroupHyperNodes(const Session& ssn, const JobInfo& job,
                                     const TopologyConstraint& c, const std::vector<TaskId>& tasks,
                                     const std::vector<TaskId>& pending, int32_t needed,
                                     HyperNodeId root, const HyperNodeFree& free) {
  if (!c.unresolved_tier_name.empty()) return {};
  const Resource need =
      SmallestRequests(ssn, pending, std::min<size_t>(std::max(1, needed), pending.size()));
  bool placed = false, outside = false;
  const HyperNodeId span = PlacedSpan(ssn, tasks, &placed, &outside);
  return PlanTiers(ssn, job, c, need, span, placed, root, free);
}

std::string TopologyPendingReason(const Session& ssn, const TopologyConstraint& c,
                                  const HyperNodePlan& plan, size_t tried) {
  std::string mode = c.kind == TopologyConstraint::Kind::kHard ? "hard" : "soft";
  std::string msg = "network topology (" + mode;
  if (c.highest_tier) msg += ", highest tier " + std::to_string(*c.highest_tier);
  msg += "): ";
  if (!c.unresolved_tier_name.empty()) {
    return msg + "highestTierName \"" + c.unresolved_tier_name +
           "\" is the spec.tierName of no HyperNode";
  }
  if (ssn.hypernodes().empty()) return msg + "the cluster has no HyperNode";
  msg += "no HyperNode within the allowed tier can hold the gang";
  if (!plan.shortfall.empty()) msg += "; " + plan.shortfall;
  if (tried > 0) {
    msg += "; " + std::to_string(tried) +
           " had room in total but not pod by pod (fragmented, or predicates failed)";
  }
  return msg;
}

NodeInfo* BestNodeWithin(Session& ssn, const TaskInfo& task, const std::vector<NodeId>& within,
                         FitErrors* errors) {
  std::vector<NodeInfo*> feasible, idle_fit;
  for (NodeId id : within) {
    NodeInfo& node = ssn.node(id);
    if (!FitsFutureIdle(task.request, node)) {
      errors->Add(node.name, InsufficientResourceReasons(task.request, node.FutureIdle()));
      continue;
    }
    PredicateStatus st = ssn.Predicate(task, node);
    if (!st.ok()) {
      errors->Add(node.name, st.reasons);
      continue;
    }
    feasible.push_back(&node);
    if (LessEqual(task.request, node.idle())) idle_fit.push_back(&node);
  }
  if (feasible.empty()) return nullptr;
  return BestNode(ssn, task, idle_fit.empty() ? feasible : idle_fit);
}

}  // namespace basalt
