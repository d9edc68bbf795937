// Where a topology-constrained job may go (docs/topology.md): the HyperNodes
// allocate tries for it, in order, and the reason it stays pending when none
// can hold its gang.
//
// Volcano's allocate tries every HyperNode of the lowest tier, then the next
// tier up to the job's highest allowed one, dry-running the gang in each, and
// keeps the best-scored success of the first tier that has one. The scores
// (the HyperNode-order functions, e.g. network-topology-aware's binpacking)
// do not depend on the dry run, so basalt sorts a tier's HyperNodes by score
// first and stops at the first that holds the gang: the same choice, without
// dry-running the rest. HyperNodes whose free resources in total cannot hold
// the pods the gang still needs are skipped without a dry run.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/hypernode_tree.h"
#include "framework/session.h"

namespace basalt {

// Per HyperNode, the sum of its real nodes' FutureIdle, kept up to date from
// the session's node change log.
class HyperNodeFree {
 public:
  void Refresh(const Session& ssn);
  const Resource& Of(HyperNodeId h) const { return free_[h]; }

 private:
  std::vector<Resource> node_free_;  // per node, as last added in
  std::vector<Resource> free_;       // per HyperNode
  size_t seen_ = 0;                  // log entries read
  bool started_ = false;
};

// The qualifying HyperNodes of each tier (lowest tier first) with their
// scores; `Next` hands them out best first (score, then name), tier by tier.
// A tier is heapified when reached and popped one by one, so a gang that fits
// its first candidate costs one pass over the tier, not a sort.
class HyperNodePlan {
 public:
  std::optional<HyperNodeId> Next();
  void AddTier(std::vector<std::pair<double, HyperNodeId>> scored) {
    tiers_.push_back(std::move(scored));
  }
  std::string shortfall;  // why the skipped ones were skipped, for the reason

 private:
  std::vector<std::vector<std::pair<double, HyperNodeId>>> tiers_;
  size_t at_ = 0;
  bool heaped_ = false;
};

// The HyperNodes to try for `job` (constraint `c`, pending tasks `pending`),
// lowest tier first, each tier by descending HyperNode-order score then name.
// A HyperNode qualifies when its tier is at most the highest allowed (all
// tiers for soft without one), the lowest common ancestor of it and the
// HyperNode the job's placed pods already span stays within that tier, and its
// free resources cover the smallest requests of the pods the gang still needs.
HyperNodePlan PlanHyperNodes(const Session& ssn, const JobInfo& job, const TopologyConstraint& c,
                             const std::vector<TaskId>& pending, const HyperNodeFree& free);

// The same for one SubGroup of `job`: `tasks` are the SubGroup's tasks,
// `pending` those of them still to place and `needed` how many of them must
// be placed; only HyperNodes inside `root` qualify (the job's HyperNode, or
// kNone for any).
HyperNodePlan PlanSubGroupHyperNodes(const Session& ssn, const JobInfo& job,
                                     const TopologyConstraint& c, const std::vector<TaskId>& tasks,
                                     const std::vector<TaskId>& pending, int32_t needed,
                                     HyperNodeId root, const HyperNodeFree& free);

// The pending reason of a job no HyperNode could hold.
std::string TopologyPendingReason(const Session& ssn, const TopologyConstraint& c,
                                  const HyperNodePlan& plan, size_t tried);

// Allocate's node choice restricted to `within` (a HyperNode's nodes), as
// ReferenceAllocateNode makes it over every node.
NodeInfo* BestNodeWithin(Session& ssn, const TaskInfo& task, const std::vector<NodeId>& within,
                         FitErrors* errors);

// The HyperNode the job's placed pods span (the lowest common ancestor of
// their nodes' leaves), or kNone when none is placed on a HyperNode's node.
HyperNodeId JobSpan(const Session& ssn, const JobInfo& job);

}  // namespace basalt
