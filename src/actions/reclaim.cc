// reclaim: queues below their share take resources back from queues above
// theirs (docs/semantics/preempt-reclaim.md).
//
// Queues take turns in QueueOrder. A queue that is not Overused serves all its
// starving jobs in its turn, in JobOrder, each inside one statement: while the
// job is starving, its pending tasks are tried in TaskOrder; a task with
// preemptionPolicy Never, one that fails Preemptive (it would take the queue
// beyond what it deserves) or the pre-predicates is passed over and the next
// one is tried. The statement is committed when the job ends up pipelined (its
// gang met counting pipelined tasks) and discarded otherwise: a gang that
// cannot be placed whole evicts nothing.
//
// For one task, nodes are walked in snapshot order; on each, the Running,
// preemptable pods of other, reclaimable queues are the candidates and the
// Reclaimable vote picks the victims among them. If the node's future idle
// room plus the victims would fit the task, victims are evicted in victim
// order until the task fits the future idle room, and the task is pipelined
// there (nominated to the node when something was evicted for it).
//
// Pods of a queue with a higher spec.priority than the reclaimer's are never
// candidates (queue priority beats job priority; docs/semantics/preempt-reclaim.md),
// unless the action argument `protectHigherPriorityQueues` is false (Volcano's
// rule: queue priority only orders reclaimers and victims).
//
// Gang-aware reclaim (actions/victim_sets.h) serves the jobs with a topology
// constraint in a cluster with HyperNodes, and every job under the
// `gangreclaim` action name: in its queue's turn, the whole gang's victims are
// chosen at once inside one allowed domain and evicted together with every
// needed pipeline (each pod passing Preemptive), or nothing is.
#include <algorithm>
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
    Turn turn(ssn);
    std::map<QueueId, StarvingJobs> preemptors;
    std::set<QueueId> seen;
    for (JobInfo& job : ssn.jobs()) {
      if (job.IsPending() || ssn.JobValid(job)) continue;
      if (seen.insert(job.queue).second) queues.Push(job.queue);
      if (!ssn.JobStarving(job)) continue;
      if (UsesGangEviction(ssn, job, gang_aware_)) {
        turn.gangs.insert(job.id);
      } else if (ConstraintOf(job, ssn.hypernodes()).kind == TopologyConstraint::Kind::kHard) {
        continue;  // a hard constraint in a cluster without HyperNodes: nowhere to go
      } else {
        turn.tasks[job.id] = PendingTasks(ssn, job);
      }
      preemptors.try_emplace(job.queue, ssn, turn.watch).first->second.Push(job.id);
    }
    while (!queues.Empty()) {
      const QueueInfo& queue = ssn.queue(queues.Pop());
      if (ssn.Overused(queue)) continue;
      auto it = preemptors.find(queue.id);
      if (it == preemptors.end()) continue;
      // Every starving job of the queue, in JobOrder at the time of its pick.
      while (!it->second.Empty()) {
        JobInfo& job = ssn.job(it->second.Pop());
        if (turn.gangs.count(job.id)) {
          if (ssn.JobStarving(job)) ReclaimGang(ssn, queue, job);
          continue;
        }
        ReclaimForJob(ssn, queue, job, turn);
      }
    }
  }

 private:
  // What one Execute keeps between jobs.
  struct Turn {
    explicit Turn(const Session& ssn) : barren(ssn.queues().size()) {}
    EvictionWatch watch{{TaskStatus::kRunning}};
    std::map<JobId, std::vector<TaskId>> tasks;  // pending tasks, best last
    std::set<JobId> gangs;                       // served by gang-aware reclaim
    std::vector<const TaskInfo*> candidates;     // scratch
    // Per reclaiming queue, the nodes found without candidates. Within a
    // job's statement reclaim only evicts (Running tasks become Releasing),
    // so such a node stays without candidates until a discard puts evicted
    // tasks back to Running; a discard forgets the queue's marks.
    std::vector<std::vector<char>> barren;
  };

  // One starving job in one statement: its pending tasks in TaskOrder while it
  // is starving; committed if the job is then pipelined, else discarded.
  void ReclaimForJob(Session& ssn, const QueueInfo& queue, JobInfo& job, Turn& turn) const {
    Statement stmt(ssn);
    std::vector<TaskId>& pending = turn.tasks[job.id];
    std::vector<char>& barren = turn.barren[queue.id];
    while (ssn.JobStarving(job) && !pending.empty()) {
      TaskInfo& task = ssn.task(pending.back());
      pending.pop_back();
      // Passed over, the job's next task is tried.
      if (task.preempt_never || !ssn.Preemptive(queue, task) || !ssn.PrePredicate(task).ok())
        continue;
      if (barren.empty()) barren.assign(ssn.nodes().size(), 0);
      ReclaimFor(ssn, stmt, queue, task, turn.watch, barren, turn.candidates,
                 protect_higher_priority_);
    }
    if (ssn.JobPipelined(job)) {
      stmt.Commit();
      return;
    }
    if (stmt.empty()) return;
    stmt.Discard();
    std::fill(barren.begin(), barren.end(), 0);
  }

  // Pending, ungated tasks in TaskOrder, best last (popped from the back).
  static std::vector<TaskId> PendingTasks(const Session& ssn, const JobInfo& job) {
    std::vector<TaskId> pending;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.status == TaskStatus::kPending && !t.gated) pending.push_back(id);
    }
    std::sort(pending.begin(), pending.end(),
              [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(b), ssn.task(a)); });
    return pending;
  }

  // Nodes in snapshot order; true once the task is pipelined. The reference
  // path filters every node by the predicates first; the fast path passes
  // over nodes without running tasks (EvictionWatch, no look at their tasks),
  // looks at a node's candidates next and asks the predicates only when there
  // are some (a node without candidates is passed over either way, and
  // predicates have no side effects).
  static bool ReclaimFor(Session& ssn, Statement& stmt, const QueueInfo& queue, TaskInfo& task,
                         EvictionWatch& watch, std::vector<char>& barren,
                         std::vector<const TaskInfo*>& candidates, bool protect) {
    if (ssn.options().reference_node_selection) {
      for (NodeInfo* node : NodesForEviction(ssn, task)) {
        Candidates(ssn, queue, *node, candidates, protect);
        if (TryNode(ssn, stmt, queue, task, *node, candidates)) return true;
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
      if (TryNode(ssn, stmt, queue, task, node, candidates)) return true;
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

  // On a node with candidates, asks the Reclaimable vote for the victims
  // (none is a valid answer when the node has room as it is). If the victims
  // would make room, evicts them in victim order until the task fits the
  // node's future idle room and pipelines it there; true then. The evictions
  // of a node that does not end with the pipeline are undone.
  static bool TryNode(Session& ssn, Statement& stmt, const QueueInfo& queue, TaskInfo& task,
                      NodeInfo& node, const std::vector<const TaskInfo*>& candidates) {
    if (candidates.empty()) return false;
    std::vector<const TaskInfo*> victims = ssn.Reclaimable(task, candidates);
    if (!LessEqual(task.request, node.FutureIdle() + SumRequests(victims))) return false;
    SortVictims(ssn, queue, victims);
    const size_t mark = stmt.Mark();
    bool evicted = false;
    for (const TaskInfo* v : victims) {
      if (FitsFutureIdle(task.request, node)) break;
      stmt.Evict(ssn.task(v->id), "reclaim",
                 "reclaimed by " + task.key + " (queue " + queue.name + ")");
      evicted = true;
    }
    if (!FitsFutureIdle(task.request, node)) {
      stmt.DiscardSince(mark);
      return false;
    }
    stmt.Pipeline(task, node, evicted);
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
