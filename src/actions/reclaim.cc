// reclaim: queues below their share take resources back from queues above
// theirs (docs/semantics/preempt-reclaim.md).
//
// Queues take turns in QueueOrder. A queue reclaims for its best starving job,
// one task per turn, if it is not Overused and the task passes Preemptive (the
// task still fits what the queue deserves). Nodes are walked in snapshot order;
// on each, the Running, preemptable pods of other, reclaimable queues are
// offered to the Reclaimable vote; if the node's future idle room plus the
// victims would fit the task, victims are evicted in victim order until the
// evicted amount alone covers the request, then the task is pipelined there.
//
// Pods of a queue with a higher spec.priority than the reclaimer's are never
// candidates (queue priority beats job priority; docs/semantics/preempt-reclaim.md),
// unless the action argument `protectHigherPriorityQueues` is false (Volcano's
// rule: queue priority only orders reclaimers and victims).
//
// Unlike preempt, reclaim acts at once (no statement, no rollback), counts only
// evicted resources, and drops a queue as soon as its best job is not starving:
// a queue cannot take back what it would immediately have to give again.
//
// Gang-aware reclaim (actions/victim_sets.h) serves the jobs with a topology
// constraint in a cluster with HyperNodes, and every job under the
// `gangreclaim` action name: on its queue's turn, the whole gang's victims are
// chosen at once inside one allowed domain and evicted together with every
// needed pipeline (each pod passing Preemptive), or nothing is.
#include <map>
#include <set>

#include "actions/builtin.h"
#include "actions/node_selection.h"
#include "actions/ordering.h"
#include "actions/starving_jobs.h"
#include "actions/victim_sets.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {
namespace {

class ReclaimAction : public Action {
 public:
  explicit ReclaimAction(bool gang_aware) : gang_aware_(gang_aware) {}
  std::string_view Name() const override { return gang_aware_ ? "gangreclaim" : "reclaim"; }

  Status Configure(const Arguments& args) override {
    BASALT_RETURN_IF_ERROR(args.GetBool(kProtectArgument, &protect_higher_priority_));
    return ReadGangEvictionArguments(args, gang_aware_, &options_);
  }

  void Execute(Session& ssn) override {
    auto queue_less = [&ssn](QueueId a, QueueId b) {
      return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b));
    };
    auto queues = MakePickList<QueueId>(queue_less);
    EvictionWatch watch({TaskStatus::kRunning});
    std::map<QueueId, StarvingJobs> preemptors;
    std::map<JobId, std::vector<TaskId>> tasks;  // pending tasks, best last
    std::set<QueueId> seen;
    std::set<JobId> gangs;                    // served by gang-aware reclaim
    std::vector<const TaskInfo*> candidates;  // scratch
    // Per reclaiming queue, the nodes found without candidates. Reclaim only
    // evicts (Running tasks become Releasing; none becomes Running), so a node
    // without candidates for a queue stays so for the rest of the action.
    std::vector<std::vector<char>> barren(ssn.queues().size());
    for (JobInfo& job : ssn.jobs()) {
      if (job.IsPending() || ssn.JobValid(job)) continue;
      if (seen.insert(job.queue).second) queues.Push(job.queue);
      if (!ssn.JobStarving(job)) continue;
      if (UsesGangEviction(ssn, job, gang_aware_)) {
        gangs.insert(job.id);
        preemptors.try_emplace(job.queue, ssn, watch).first->second.Push(job.id);
        continue;
      }
      // A hard constraint in a cluster without HyperNodes: nowhere to go.
      if (ConstraintOf(job, ssn.hypernodes()).kind == TopologyConstraint::Kind::kHard) continue;
      preemptors.try_emplace(job.queue, ssn, watch).first->second.Push(job.id);
      std::vector<TaskId>& pending = tasks[job.id];
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (t.status == TaskStatus::kPending && !t.gated) pending.push_back(id);
      }
      std::sort(pending.begin(), pending.end(),
                [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(b), ssn.task(a)); });
    }
    while (!queues.Empty()) {
      QueueId q = queues.Pop();
      const QueueInfo& queue = ssn.queue(q);
      if (ssn.Overused(queue)) continue;
      auto it = preemptors.find(q);
      if (it == preemptors.end() || it->second.Empty()) continue;
      JobInfo& job = ssn.job(it->second.Pop());
      if (gangs.count(job.id)) {
        if (ssn.JobStarving(job)) ReclaimGang(ssn, queue, job);
        queues.Push(q);
        continue;
      }
      std::vector<TaskId>& pending = tasks[job.id];
      if (pending.empty() || !ssn.JobStarving(job)) continue;  // the whole queue is done this cycle
      TaskInfo& task = ssn.task(pending.back());
      pending.pop_back();
      if (task.preempt_never) {
        it->second.Push(job.id);
        queues.Push(q);
        continue;
      }
      if (!ssn.Preemptive(queue, task)) continue;
      if (!ssn.PrePredicate(task).ok()) continue;
      std::vector<char>& queue_barren = barren[q];
      if (queue_barren.empty()) queue_barren.assign(ssn.nodes().size(), 0);
      if (ReclaimFor(ssn, queue, task, watch, queue_barren, candidates, protect_higher_priority_))
        it->second.Push(job.id);
      queues.Push(q);
    }
  }

 private:
  // Nodes in snapshot order. The reference path filters every node by the
  // predicates first; the fast path passes over nodes without running tasks
  // (EvictionWatch, no look at their tasks), looks at a node's candidates next
  // and asks the predicates only when there are some (a node without
  // candidates gets no victims either way, and predicates have no side
  // effects).
  static bool ReclaimFor(Session& ssn, const QueueInfo& queue, TaskInfo& task, EvictionWatch& watch,
                         std::vector<char>& barren, std::vector<const TaskInfo*>& candidates,
                         bool protect) {
    if (ssn.options().reference_node_selection) {
      for (NodeInfo* node : NodesForEviction(ssn, task)) {
        if (TryNode(ssn, queue, task, *node, candidates, protect)) return true;
      }
      return false;
    }
    watch.Refresh(ssn);
    for (NodeInfo& node : ssn.nodes()) {
      if (barren[node.id] || watch.Holding(node.id) == 0) continue;
      Candidates(ssn, queue, node, candidates, protect);
      if (candidates.empty()) {
        barren[node.id] = 1;
        continue;
      }
      PredicateStatus st = ssn.Predicate(task, node);
      if (!st.ok() && st.code != PredicateStatus::Code::kUnschedulable) continue;
      if (TryNode(ssn, queue, task, node, candidates, protect)) return true;
    }
    return false;
  }

  // A running, preemptable task of another, reclaimable queue. `protect`:
  // not of a queue of higher spec.priority.
  static bool IsCandidate(const Session& ssn, const QueueInfo& queue, const TaskInfo& c,
                          bool protect) {
    if (c.status != TaskStatus::kRunning || !c.preemptable || c.job == kNone) return false;
    const QueueInfo& cq = ssn.queue(ssn.job(c.job).queue);
    if (cq.id == queue.id || !cq.reclaimable) return false;
    // The preemption hierarchy (docs/semantics/preempt-reclaim.md): queue
    // priority beats job priority, so a queue never takes from a queue of
    // higher spec.priority, however important the reclaiming job. Volcano
    // only orders by queue priority (protectHigherPriorityQueues: false).
    return !(protect && cq.priority > queue.priority);
  }

  // The candidates on `node`.
  static void Candidates(const Session& ssn, const QueueInfo& queue, const NodeInfo& node,
                         std::vector<const TaskInfo*>& out, bool protect) {
    out.clear();
    for (TaskId id : node.tasks) {
      const TaskInfo& c = ssn.task(id);
      if (IsCandidate(ssn, queue, c, protect)) out.push_back(&c);
    }
  }

  // Gang-aware reclaim for `job`: the cheapest victims inside one allowed
  // domain, evicted together with every needed pipeline, or nothing.
  void ReclaimGang(Session& ssn, const QueueInfo& queue, JobInfo& job) const {
    GangEvictionRequest req;
    req.job = &job;
    req.reclaim = true;
    req.options = options_;
    req.may_take = [&ssn, &queue, protect = protect_higher_priority_](const TaskInfo& t) {
      return IsCandidate(ssn, queue, t, protect);
    };
    std::optional<GangEvictionPlan> plan = PlanGangEviction(ssn, req);
    if (!plan) return;
    GangEvictionCommit how{"reclaim", "reclaimed",
                           [&ssn, &queue](const TaskInfo& t) { return ssn.Preemptive(queue, t); },
                           false};
    CommitGangEvictionPlan(ssn, job, queue, *plan, how);
  }

  // Asks the Reclaimable vote about `node`'s candidates (computed afresh on the
  // reference path) and, if the victims would make room, evicts them in
  // victim order until the evicted amount covers the request; true once the
  // task is pipelined there.
  static bool TryNode(Session& ssn, const QueueInfo& queue, TaskInfo& task, NodeInfo& node,
                      std::vector<const TaskInfo*>& candidates, bool protect) {
    if (ssn.options().reference_node_selection) Candidates(ssn, queue, node, candidates, protect);
    std::vector<const TaskInfo*> victims = ssn.Reclaimable(task, candidates);
    if (victims.empty() || !LessEqual(task.request, node.FutureIdle() + SumRequests(victims)))
      return false;
    SortVictims(ssn, queue, victims);
    // Reclaim never rolls back: evictions are decisions as they are made.
    Statement now = Statement::CommitAtOnce(ssn);
    Resource reclaimed;
    for (const TaskInfo* v : victims) {
      now.Evict(ssn.task(v->id), "reclaim",
                "reclaimed by " + task.key + " (queue " + queue.name + ")");
      reclaimed += v->request;
      if (LessEqual(task.request, reclaimed)) break;
    }
    if (!LessEqual(task.request, reclaimed)) return false;
    now.Pipeline(task, node);
    return true;
  }

  static constexpr const char* kProtectArgument = "protectHigherPriorityQueues";
  bool gang_aware_;
  bool protect_higher_priority_ = true;
  GangEvictionOptions options_;
};

}  // namespace

std::unique_ptr<Action> NewReclaimAction() { return std::make_unique<ReclaimAction>(false); }
std::unique_ptr<Action> NewGangReclaimAction() { return std::make_unique<ReclaimAction>(true); }

}  // namespace basalt
