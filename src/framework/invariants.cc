#include "framework/invariants.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "framework/bind_check.h"
#include "framework/placed_span.h"
#include "framework/session.h"

namespace basalt {
namespace {

// `r` with every dimension negated, clamped at zero: how far below zero it is.
Resource Deficit(const Resource& r) { return (Resource() - r).ClampedAtZero(); }

std::string Fail(std::ostringstream& os) { return os.str(); }

// Equal amounts, an absent scalar counting as zero: bookkeeping adds and
// subtracts requests, which leaves zero-valued scalars present that a fresh
// recount does not have.
// Equal in every dimension, an absent scalar counting as 0 on either side
// (LessEqual alone skips the scalars its left side does not name).
bool SameAmount(const Resource& a, const Resource& b) {
  if (!LessEqual(a, b) || !LessEqual(b, a)) return false;
  for (const auto& [id, v] : b.scalars()) {
    if (a.Get(id) != v) return false;
  }
  return true;
}

}  // namespace

std::vector<Resource> QueueUsage(const Session& ssn) {
  std::vector<Resource> usage(ssn.queues().size());
  for (const TaskInfo& t : ssn.tasks()) {
    if (t.job == kNone) continue;
    if (IsAllocatedStatus(t.status) || t.status == TaskStatus::kPipelined)
      usage[ssn.job(t.job).queue] += t.request;
  }
  return usage;
}

void InvariantTracker::BeforeAction(const Session& ssn, std::string_view action) {
  action_ = action;
  if (!initialized_) {
    initialized_ = true;
    for (const NodeInfo& n : ssn.nodes()) {
      open_overcommit_.push_back((n.used() - n.allocatable).ClampedAtZero());
      open_future_deficit_.push_back(Deficit(n.FutureIdle()));
    }
    for (const TaskInfo& t : ssn.tasks()) open_on_node_.push_back(t.node != kNone);
  }
  before_status_.clear();
  for (const TaskInfo& t : ssn.tasks()) before_status_.push_back(t.status);
  before_queue_usage_ = QueueUsage(ssn);
}

Status CheckInvariants(const Session& ssn) {
  std::ostringstream os;
  const InvariantTracker& tracker = ssn.invariants();
  // 1. Node bookkeeping.
  std::vector<int> listed(ssn.tasks().size(), 0);
  for (const NodeInfo& n : ssn.nodes()) {
    Resource used, releasing, pipelined;
    for (TaskId id : n.tasks) {
      const TaskInfo& t = ssn.task(id);
      ++listed[id];
      if (t.node != n.id || !IsOnNodeStatus(t.status)) {
        os << "node " << n.name << " lists task " << t.key << " (status "
           << TaskStatusName(t.status) << ", node id " << t.node << ")";
        return Status::Internal(Fail(os));
      }
      if (t.status == TaskStatus::kPipelined) {
        pipelined += t.request;
      } else {
        used += t.request;
        if (t.status == TaskStatus::kReleasing) releasing += t.request;
      }
    }
    if (!SameAmount(used, n.used()) || !SameAmount(releasing, n.releasing()) ||
        !SameAmount(pipelined, n.pipelined()) || !SameAmount(n.idle(), n.allocatable - used)) {
      os << "node " << n.name << " bookkeeping: used " << n.used() << " (tasks: " << used
         << "), releasing " << n.releasing() << " (tasks: " << releasing << "), pipelined "
         << n.pipelined() << " (tasks: " << pipelined << "), idle " << n.idle()
         << " (allocatable - used: " << (n.allocatable - used) << ")";
      return Status::Internal(Fail(os));
    }
    // 2. Over-commit beyond what the input already had.
    const Resource over = (n.used() - n.allocatable).ClampedAtZero();
    const Resource deficit = Deficit(n.FutureIdle());
    const bool have_open =
        tracker.initialized() && static_cast<size_t>(n.id) < tracker.open_overcommit().size();
    const Resource open_over = have_open ? tracker.open_overcommit()[n.id] : Resource();
    const Resource open_deficit = have_open ? tracker.open_future_deficit()[n.id] : Resource();
    if (!LessEqual(over, open_over)) {
      os << "node " << n.name << " over-committed: used " << n.used() << " > allocatable "
         << n.allocatable << " (at open the excess was " << open_over << ")";
      return Status::Internal(Fail(os));
    }
    if (!LessEqual(deficit, open_deficit)) {
      os << "node " << n.name << " future idle negative: idle " << n.idle() << " + releasing "
         << n.releasing() << " - pipelined " << n.pipelined() << " (at open the deficit was "
         << open_deficit << ")";
      return Status::Internal(Fail(os));
    }
  }
  for (const TaskInfo& t : ssn.tasks()) {
    const int want = t.node != kNone ? 1 : 0;
    if (listed[t.id] != want) {
      os << "task " << t.key << " (status " << TaskStatusName(t.status) << ") is listed on "
         << listed[t.id] << " node(s), placed on " << want;
      return Status::Internal(Fail(os));
    }
    if (t.node != kNone && !IsOnNodeStatus(t.status)) {
      os << "task " << t.key << " has a node but status " << TaskStatusName(t.status);
      return Status::Internal(Fail(os));
    }
    if ((t.status == TaskStatus::kAllocated || t.status == TaskStatus::kPipelined ||
         t.status == TaskStatus::kBinding) &&
        t.node == kNone) {
      os << "task " << t.key << " is " << TaskStatusName(t.status) << " without a node";
      return Status::Internal(Fail(os));
    }
  }
  // 3. Job counters.
  for (const JobInfo& j : ssn.jobs()) {
    std::array<int32_t, static_cast<size_t>(TaskStatus::kCount)> count{};
    Resource allocated, total;
    for (TaskId id : j.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.job != j.id) {
        os << "job " << j.key << " lists task " << t.key << " of job id " << t.job;
        return Status::Internal(Fail(os));
      }
      ++count[static_cast<size_t>(t.status)];
      total += t.request;
      if (IsAllocatedStatus(t.status)) allocated += t.request;
    }
    if (count != j.status_count || !SameAmount(allocated, j.allocated) ||
        !SameAmount(total, j.total_request)) {
      os << "job " << j.key << " counters: allocated " << j.allocated << " (tasks: " << allocated
         << ")";
      for (size_t s = 0; s < count.size(); ++s) {
        if (count[s] != j.status_count[s]) {
          os << ", " << TaskStatusName(static_cast<TaskStatus>(s)) << " " << j.status_count[s]
             << " (tasks: " << count[s] << ")";
        }
      }
      return Status::Internal(Fail(os));
    }
  }
  for (const TaskInfo& t : ssn.tasks()) {
    if (t.job == kNone) continue;
    const auto& tasks = ssn.job(t.job).tasks;
    if (std::count(tasks.begin(), tasks.end(), t.id) != 1) {
      os << "task " << t.key << " is not listed once by its job " << ssn.job(t.job).key;
      return Status::Internal(Fail(os));
    }
  }
  // 4. Decisions.
  std::map<std::string, const TaskInfo*, std::less<>> by_key;
  for (const TaskInfo& t : ssn.tasks()) by_key.emplace(t.key, &t);
  std::set<std::string, std::less<>> bound, evicted;
  for (const BindDecision& b : ssn.decisions().binds) {
    auto it = by_key.find(b.pod);
    if (!bound.insert(b.pod).second) {
      os << "pod " << b.pod << " bound twice";
      return Status::Internal(Fail(os));
    }
    if (it == by_key.end()) {
      os << "bind of unknown pod " << b.pod;
      return Status::Internal(Fail(os));
    }
    const TaskInfo& t = *it->second;
    if (t.status != TaskStatus::kBinding || t.node == kNone || ssn.node(t.node).name != b.node) {
      os << "pod " << b.pod << " bound to " << b.node << " but is " << TaskStatusName(t.status)
         << " on " << (t.node == kNone ? std::string("no node") : ssn.node(t.node).name);
      return Status::Internal(Fail(os));
    }
    if (tracker.initialized() && tracker.open_on_node()[t.id]) {
      os << "pod " << b.pod << " bound but was already on node " << t.pod->spec.node_name
         << " at session open";
      return Status::Internal(Fail(os));
    }
  }
  for (const EvictDecision& e : ssn.decisions().evictions) {
    if (!evicted.insert(e.pod).second) {
      os << "pod " << e.pod << " evicted twice (" << e.action << ")";
      return Status::Internal(Fail(os));
    }
    auto it = by_key.find(e.pod);
    if (it == by_key.end() || it->second->status != TaskStatus::kReleasing) {
      os << "pod " << e.pod << " evicted (" << e.action << ") but is "
         << (it == by_key.end() ? "unknown" : TaskStatusName(it->second->status));
      return Status::Internal(Fail(os));
    }
  }
  // The plugins' own checks (6-9).
  std::vector<std::string> violations;
  ssn.CheckPluginInvariants(&violations);
  if (!violations.empty()) return Status::Internal(violations.front());
  return Status::Ok();
}

namespace {

// A ready job's Allocated task whose node would take the bind (a refused bind
// leaves the task Allocated: bind_check.h).
bool HasBindableAllocated(const Session& ssn, const JobInfo& j) {
  for (TaskId id : j.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.status == TaskStatus::kAllocated && BindFits(ssn.nodes(), ssn.tasks(), t)) return true;
  }
  return false;
}

}  // namespace

Status InvariantTracker::AfterAction(const Session& ssn, std::string_view action) const {
  const std::string context =
      "cycle " + std::to_string(ssn.cycle()) + ", after action " + std::string(action);
  Status s = CheckInvariants(ssn);
  if (!s.ok()) return s.WithContext(context);
  std::ostringstream os;
  // 5. Statements.
  for (const JobInfo& j : ssn.jobs()) {
    if (j.Count(TaskStatus::kAllocated) == 0) continue;
    if (ssn.JobReady(j) && HasBindableAllocated(ssn, j)) {
      os << "job " << j.key << " is ready but " << j.Count(TaskStatus::kAllocated)
         << " task(s) stay Allocated (neither bound nor discarded)";
      return Status::Internal(os.str()).WithContext(context);
    }
    if (action == "allocate" && !ssn.JobPipelined(j)) {
      os << "job " << j.key << " is neither ready nor pipelined but "
         << j.Count(TaskStatus::kAllocated)
         << " task(s) stay Allocated (its statement should have been discarded)";
      return Status::Internal(os.str()).WithContext(context);
    }
  }
  // 11. Topology.
  std::string topology = HardTopologyExceeded(ssn);
  if (!topology.empty()) return Status::Internal(topology).WithContext(context);
  // 12. SubGroups.
  std::string partial = PartialSubGroup(ssn);
  if (!partial.empty()) return Status::Internal(partial).WithContext(context);
  return Status::Ok();
}

namespace {

bool PlacedThisSession(TaskStatus s) {
  return s == TaskStatus::kAllocated || s == TaskStatus::kBinding || s == TaskStatus::kPipelined;
}

}  // namespace

std::string PartialSubGroup(const Session& ssn) {
  const SubGroupIndex& index = ssn.subgroups();
  const std::string_view action = ssn.invariants().action();
  // After allocate, and after the actions that pipeline a starving gang.
  if (index.empty() || (action != "allocate" && action != "preempt" && action != "reclaim" &&
                        action != "gangpreempt" && action != "gangreclaim")) {
    return "";
  }
  const HyperNodeTree& tree = ssn.hypernodes();
  for (const JobInfo& j : ssn.jobs()) {
    for (int32_t id : index.OfJob(j.id)) {
      const SubGroupInfo& g = index.at(id);
      int32_t ready = 0;
      bool bound = false, placed_now = false;
      for (TaskId t : g.tasks) {
        const TaskInfo& task = ssn.task(t);
        ready += IsAllocatedStatus(task.status) || task.status == TaskStatus::kSucceeded ||
                 (task.status == TaskStatus::kPending && task.best_effort);
        bound |= task.status == TaskStatus::kBinding;
        placed_now |= PlacedThisSession(task.status);
      }
      // Only allocate binds; after the eviction actions a SubGroup can lose
      // pods as a victim, which this rule is not about.
      if (action == "allocate" && bound && ready < g.size) {
        return "subGroup " + g.name + " of job " + j.key + " has pods bound this session but " +
               std::to_string(ready) + " ready, below subGroupSize " + std::to_string(g.size);
      }
      if (!placed_now || tree.empty()) continue;
      TopologyConstraint c =
          ConstraintOfSpec(j.podgroup->sub_group_policy[g.policy].network_topology, tree);
      if (c.kind != TopologyConstraint::Kind::kHard) continue;
      bool on_hypernode = false, outside = false;
      HyperNodeId span = PlacedSpan(ssn, g.tasks, &on_hypernode, &outside);
      if (!on_hypernode && !outside) continue;
      if (span != kNone && !outside && c.highest_tier && tree.at(span).tier <= *c.highest_tier)
        continue;
      return "subGroup " + g.name + " of job " + j.key + " is hard-constrained to tier " +
             (c.highest_tier ? std::to_string(*c.highest_tier) : "?") + " but its pods span " +
             (span == kNone || outside ? std::string("no single HyperNode")
                                       : "HyperNode " + tree.at(span).name + " of tier " +
                                             std::to_string(tree.at(span).tier));
    }
  }
  return "";
}

std::string HardTopologyExceeded(const Session& ssn) {
  const HyperNodeTree& tree = ssn.hypernodes();
  if (tree.empty()) return "";
  for (const JobInfo& j : ssn.jobs()) {
    if (j.Count(TaskStatus::kAllocated) + j.Count(TaskStatus::kBinding) +
            j.Count(TaskStatus::kPipelined) ==
        0) {
      continue;  // nothing placed this session
    }
    TopologyConstraint c = ConstraintOf(j, tree);
    if (c.kind != TopologyConstraint::Kind::kHard) continue;
    bool on_hypernode = false, outside = false;
    HyperNodeId span = PlacedSpan(ssn, j.tasks, &on_hypernode, &outside);
    if (!on_hypernode && !outside) continue;
    const bool too_high =
        span == kNone || outside || !c.highest_tier || tree.at(span).tier > *c.highest_tier;
    if (!too_high) continue;
    return "job " + j.key + " is hard-constrained to tier " +
           (c.highest_tier ? std::to_string(*c.highest_tier) : "?") + " but its pods span " +
           (span == kNone || outside ? std::string("no single HyperNode")
                                     : "HyperNode " + tree.at(span).name + " of tier " +
                                           std::to_string(tree.at(span).tier));
  }
  return "";
}

std::string CapabilityExceeded(const Session& ssn) {
  const InvariantTracker& tracker = ssn.invariants();
  if (tracker.action() != "allocate") return "";
  const std::vector<Resource> usage = QueueUsage(ssn);
  for (const QueueInfo& q : ssn.queues()) {
    if (!q.queue || !q.queue->capability) continue;
    const Resource& cap = *q.queue->capability;
    const Resource& now = usage[q.id];
    const Resource& before = tracker.before_queue_usage()[q.id];
    auto over = [&](ResourceId id, bool zero_unlimited) {
      if (!cap.Has(id)) return false;
      const int64_t c = cap.Get(id);
      if (zero_unlimited && c <= 0) return false;  // no cpu/memory cap
      return now.Get(id) > c && now.Get(id) > before.Get(id);
    };
    bool bad = over(ResourceNames::kCpu, true) || over(ResourceNames::kMemory, true);
    for (const auto& [id, v] : cap.scalars()) {
      if (id != ResourceNames::kPods) bad = bad || over(id, false);
    }
    if (bad) {
      std::ostringstream os;
      os << "queue " << q.name << " allocated " << now << " exceeds capability " << cap
         << " (before: " << before << ")";
      return os.str();
    }
  }
  return "";
}

ActionEvictions EvictionsOfAction(const Session& ssn) {
  const InvariantTracker& tracker = ssn.invariants();
  ActionEvictions out;
  for (const TaskInfo& t : ssn.tasks()) {
    if (t.job == kNone || t.status != TaskStatus::kReleasing ||
        tracker.before_status()[t.id] == TaskStatus::kReleasing) {
      continue;
    }
    ++out.evicted_of_job[t.job];
    out.lost_queues.insert(ssn.job(t.job).queue);
  }
  return out;
}

}  // namespace basalt
