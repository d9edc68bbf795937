#include "actions/subgroup_allocate.h"

#include <algorithm>
#include <map>

namespace basalt {
namespace {

bool ReadyOrBestEffort(const TaskInfo& t) {
  return IsAllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded ||
         (t.status == TaskStatus::kPending && t.best_effort);
}

std::string ModeText(const TopologyConstraint& c) {
  std::string out = c.kind == TopologyConstraint::Kind::kHard ? "hard" : "soft";
  if (c.highest_tier) out += ", highest tier " + std::to_string(*c.highest_tier);
  return out;
}

// "subGroup worker-1 (hard, highest tier 1): no HyperNode within the allowed
// tier inside s4 can hold its pods; s0 (tier 1) lacks cpu 4".
std::string SubGroupTopologyReason(const Session& ssn, const std::string& name,
                                   const TopologyConstraint& c, const HyperNodePlan& plan,
                                   size_t tried, HyperNodeId root) {
  const HyperNodeTree& tree = ssn.hypernodes();
  std::string msg = "subGroup " + name + " (" + ModeText(c) + "): ";
  if (!c.unresolved_tier_name.empty()) {
    return msg + "highestTierName \"" + c.unresolved_tier_name +
           "\" is the spec.tierName of no HyperNode";
  }
  if (tree.empty()) return msg + "the cluster has no HyperNode";
  msg += "no HyperNode within the allowed tier";
  if (root != kNone) msg += " inside " + tree.at(root).name;
  msg += " can hold its pods";
  if (!plan.shortfall.empty()) msg += "; " + plan.shortfall;
  if (tried > 0) {
    msg += "; " + std::to_string(tried) +
           " had room in total but not pod by pod (fragmented, or predicates failed)";
  }
  return msg;
}

}  // namespace

bool SubGroupAllocator::GroupReady(int32_t group) const {
  auto task_of = [this](TaskId id) -> const TaskInfo& { return ssn_.task(id); };
  return SubGroupHas(ssn_.subgroups().at(group), task_of, ReadyOrBestEffort);
}

std::vector<SubGroupAllocator::Unit> SubGroupAllocator::UnitsOf(
    const JobInfo& job, const std::vector<TaskId>& pending) const {
  const SubGroupIndex& index = ssn_.subgroups();
  std::vector<Unit> units;
  std::map<int32_t, size_t> unit_of_group;
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {  // TaskOrder
    const int32_t g = index.OfTask(*it);
    if (g == kNone) {
      units.push_back({kNone, {*it}});
      continue;
    }
    auto [at, fresh] = unit_of_group.emplace(g, units.size());
    if (fresh) units.push_back({g, {}});
    units[at->second].tasks.push_back(*it);
  }
  // The SubGroups each policy's minSubGroups still needs go first.
  const std::vector<SubGroupPolicy>& policies = job.podgroup->sub_group_policy;
  std::vector<int32_t> still(policies.size(), 0);
  for (size_t p = 0; p < policies.size(); ++p) still[p] = policies[p].min_sub_groups.value_or(0);
  for (int32_t g : index.OfJob(job.id)) {
    if (GroupReady(g)) --still[index.at(g).policy];
  }
  std::vector<bool> required(units.size(), false);
  for (size_t i = 0; i < units.size(); ++i) {
    if (units[i].group == kNone || GroupReady(units[i].group)) continue;
    int32_t& left = still[index.at(units[i].group).policy];
    if (left > 0) {
      required[i] = true;
      --left;
    }
  }
  std::vector<Unit> ordered;
  ordered.reserve(units.size());
  for (bool want : {true, false}) {
    for (size_t i = 0; i < units.size(); ++i) {
      if (required[i] == want) ordered.push_back(std::move(units[i]));
    }
  }
  return ordered;
}

bool SubGroupAllocator::PlaceTasks(JobInfo& job, Statement& stmt, const std::vector<TaskId>& tasks,
                                   int32_t group, const std::vector<NodeId>* within) {
  const size_t mark = stmt.Mark();
  const QueueInfo& queue = ssn_.queue(job.queue);
  int32_t unplaced = 0;
  const FitErrors* last_errors = nullptr;
  for (TaskId id : tasks) {
    TaskInfo& task = ssn_.task(id);
    if (task.status != TaskStatus::kPending || !ssn_.Allocatable(queue, task)) continue;
    FitErrors errors;
    PredicateStatus pre = ssn_.PrePredicate(task);
    NodeInfo* node = nullptr;
    if (!pre.ok()) {
      auto counts = std::make_shared<std::map<std::string, int64_t>>();
      for (const std::string& r : pre.reasons) (*counts)[r] += 1;
      errors.reason_counts = std::move(counts);
    } else {
      node = choose_(task, within, &errors);
    }
    if (!node) {
      ++unplaced;
      last_errors = &(job.fit_errors[id] = std::move(errors));
      continue;
    }
    job.fit_errors.erase(id);
    if (LessEqual(task.request, node->idle())) {
      stmt.Allocate(task, *node);
    } else {
      stmt.Pipeline(task, *node);
    }
  }
  if (group == kNone) return stmt.Mark() > mark;
  if (GroupReady(group)) return true;
  stmt.DiscardSince(mark);
  if (first_reason_.empty()) {
    const SubGroupInfo& g = ssn_.subgroups().at(group);
    first_reason_ = "subGroup " + g.name + " cannot be placed whole (subGroupSize " +
                    std::to_string(g.size) + ", " + std::to_string(unplaced) +
                    " of its pending pods found no node with free resources)";
    const size_t nodes = within ? within->size() : ssn_.nodes().size();
    if (last_errors) first_reason_ += ": " + last_errors->Message(static_cast<int>(nodes));
  }
  return false;
}

bool SubGroupAllocator::PlaceGroup(JobInfo& job, Statement& stmt, const Unit& unit,
                                   HyperNodeId root, const std::vector<NodeId>* within) {
  const SubGroupInfo& g = ssn_.subgroups().at(unit.group);
  const HyperNodeTree& tree = ssn_.hypernodes();
  const TopologyConstraint c =
      ConstraintOfSpec(job.podgroup->sub_group_policy[g.policy].network_topology, tree);
  if (c.kind == TopologyConstraint::Kind::kNone ||
      (c.kind == TopologyConstraint::Kind::kSoft && tree.empty())) {
    return PlaceTasks(job, stmt, unit.tasks, unit.group, within);
  }
  int32_t ready = 0;
  for (TaskId id : g.tasks) ready += ReadyOrBestEffort(ssn_.task(id)) ? 1 : 0;
  free_.Refresh(ssn_);
  HyperNodePlan plan = PlanSubGroupHyperNodes(ssn_, job, c, g.tasks, unit.tasks,
                                              std::max(0, g.size - ready), root, free_);
  size_t tried = 0;
  const std::string reason_before = first_reason_;
  while (std::optional<HyperNodeId> h = plan.Next()) {
    ++tried;
    if (PlaceTasks(job, stmt, unit.tasks, unit.group, &tree.at(*h).nodes)) {
      first_reason_ = reason_before;  // a HyperNode that did not hold it is no reason
      return true;
    }
  }
  if (c.kind == TopologyConstraint::Kind::kSoft)
    return PlaceTasks(job, stmt, unit.tasks, unit.group, within);
  // As for a hard job: the SubGroup's reason is the PodGroup's, not per pod
  // (a pod's nodes there were only those of the HyperNodes tried).
  for (TaskId id : unit.tasks) job.fit_errors.erase(id);
  first_reason_ = reason_before.empty() ? SubGroupTopologyReason(ssn_, g.name, c, plan, tried, root)
                                        : reason_before;
  return false;
}

std::unique_ptr<Statement> SubGroupAllocator::PlaceIn(JobInfo& job,
                                                      const std::vector<TaskId>& pending,
                                                      HyperNodeId root,
                                                      const std::vector<NodeId>* within,
                                                      std::vector<TaskId>* left) {
  auto stmt = std::make_unique<Statement>(ssn_);
  std::vector<Unit> units = UnitsOf(job, pending);
  first_reason_.clear();
  size_t next = 0;
  while (next < units.size()) {
    const Unit& u = units[next++];
    const bool placed = u.group == kNone ? PlaceTasks(job, *stmt, u.tasks, kNone, within)
                                         : PlaceGroup(job, *stmt, u, root, within);
    if (placed && ssn_.JobReady(job)) break;  // one more unit per turn, as for tasks
  }
  left->clear();
  for (size_t i = units.size(); i-- > next;) {
    left->insert(left->end(), units[i].tasks.rbegin(), units[i].tasks.rend());
  }
  return stmt;
}

std::unique_ptr<Statement> SubGroupAllocator::Allocate(JobInfo& job, std::vector<TaskId>& pending,
                                                       const TopologyConstraint& job_c) {
  std::vector<TaskId> left;
  auto finish = [&](std::unique_ptr<Statement> stmt) -> std::unique_ptr<Statement> {
    if (ssn_.JobReady(job)) {
      pending = std::move(left);
      job.job_fit_error.clear();
      return stmt;
    }
    if (!ssn_.JobPipelined(job)) stmt->Discard();
    if (!first_reason_.empty()) job.job_fit_error = first_reason_;
    pending.clear();  // nothing changes for this job again this cycle
    return nullptr;
  };
  if (job_c.kind == TopologyConstraint::Kind::kNone)
    return finish(PlaceIn(job, pending, kNone, nullptr, &left));
  const HyperNodeTree& tree = ssn_.hypernodes();
  free_.Refresh(ssn_);
  HyperNodePlan plan = PlanHyperNodes(ssn_, job, job_c, pending, free_);
  size_t tried = 0;
  std::string inner;
  while (std::optional<HyperNodeId> h = plan.Next()) {
    ++tried;
    auto stmt = PlaceIn(job, pending, *h, &tree.at(*h).nodes, &left);
    if (ssn_.JobReady(job)) {
      pending = std::move(left);
      job.job_fit_error.clear();
      return stmt;
    }
    stmt->Discard();
    if (inner.empty() && !first_reason_.empty())
      inner = "in " + tree.at(*h).name + ": " + first_reason_;
  }
  if (job_c.kind == TopologyConstraint::Kind::kSoft)
    return finish(PlaceIn(job, pending, kNone, nullptr, &left));
  for (TaskId id : pending) job.fit_errors.erase(id);
  job.job_fit_error =
      TopologyPendingReason(ssn_, job_c, plan, tried) + (inner.empty() ? "" : "; " + inner);
  pending.clear();
  return nullptr;
}

}  // namespace basalt
