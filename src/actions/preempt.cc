// preempt: inside one queue, starving jobs take resources from lower-priority
// work (docs/semantics/preempt-reclaim.md).
//
// For each queue in QueueOrder:
//  1. job level: each starving job, in JobOrder, pops its pending tasks while it
//     is starving; each task looks for a node (best score first) whose
//     preemptable victims (Bound/Running, preemptable, of other jobs of the same
//     queue, filtered by the Preemptable vote) would make room, evicts them in
//     victim order until the task fits the node's future idle room and the
//     queue's Allocatable, and is pipelined there. All of one job's evictions
//     and pipelines sit in one statement, committed only if the job is then
//     pipelined (gang), discarded otherwise;
//  2. task level: inside each starving job, higher-priority pending tasks take
//     from lower-priority running tasks of the same job, one statement per
//     task; the first task that finds no node is undone and ends the job's pass.
// On each node tried, victims are evicted inside the job's statement; a node
// that ends without the preemptor pipelined has its evictions undone at once.
// Plugins' own victim choices (VictimTasks) are shuffle's business alone.
// A pipelined preemptor that caused an eviction gets the node as its
// nominatedNodeName; allocate tries that node first next cycle.
//
// Gang-aware preemption (actions/victim_sets.h) replaces step 1 for the jobs
// it serves (a topology constraint in a cluster with HyperNodes; every job
// under the `gangpreempt` action name): the whole gang's victims are chosen at
// once, inside one allowed domain, and evicted with every needed pipeline in
// one statement, or nothing is. Those jobs skip step 2.
#include <map>
#include <set>

#include "actions/builtin.h"
#include "actions/node_selection.h"
#include "actions/ordering.h"
#include "actions/starving_jobs.h"
#include "actions/victim_sets.h"
#include "framework/session.h"
#include "framework/session_stats.h"
#include "framework/statement.h"

namespace basalt {
namespace {

// Which running tasks a preemptor may take from: preemptable tasks of other
// jobs of its queue (job-level pass) or of its own job (task-level pass); a
// best-effort preemptor only takes from best-effort tasks.
struct CandidateFilter {
  const Session* ssn;
  JobId job;
  QueueId queue;
  bool same_job;
  bool best_effort;
  bool operator()(const TaskInfo& c) const {
    if (!c.preemptable || c.job == kNone) return false;
    if (same_job != (c.job == job)) return false;
    if (best_effort && !c.best_effort) return false;
    return same_job || ssn->job(c.job).queue == queue;
  }
};

bool IsCandidateStatus(TaskStatus s) {
  return s == TaskStatus::kBound || s == TaskStatus::kRunning;
}

// False when the preemptor should not preempt now: its policy says Never, or
// its nominated node is already freeing room from a lower-priority pod.
bool EligibleToPreempt(Session& ssn, const TaskInfo& t) {
  if (t.preempt_never) return false;
  if (t.nominated_node.empty()) return true;
  auto nid = ssn.FindNode(t.nominated_node);
  if (!nid) return true;
  const NodeInfo& node = ssn.node(*nid);
  if (ssn.Predicate(t, node).code == PredicateStatus::Code::kUnresolvable) return true;
  for (TaskId id : node.tasks) {
    const TaskInfo& other = ssn.task(id);
    if (other.status == TaskStatus::kReleasing && other.priority < t.priority) return false;
  }
  return true;
}

enum class NodeAnswer {
  kPipelined,  // the preemptor is pipelined on the node
  kNoRoom,     // the victims named would not make room: nothing was changed
  kRefused,    // anything else (the queue's Allocatable said no); evictions undone
};

// Tries to make room for `preemptor` on `node` by evicting victims. An empty victim list is a valid
// answer: a preemptor that fits the node's future idle room (and its queue) as it is, is pipelined
// without evictions. A node without candidates is not put to the Preemptable
// vote, which could only name no victims. `candidates` is scratch space,
// reused between calls.
NodeAnswer TryNode(Session& ssn, Statement& stmt, TaskInfo& preemptor,
                   const CandidateFilter& filter, const QueueInfo& queue, NodeInfo& node,
                   std::vector<const TaskInfo*>& candidates) {
  candidates.clear();
  for (TaskId id : node.tasks) {
    const TaskInfo& c = ssn.task(id);
    if (IsCandidateStatus(c.status) && filter(c)) candidates.push_back(&c);
  }
  std::vector<const TaskInfo*> victims;
  if (!candidates.empty()) victims = ssn.Preemptable(preemptor, candidates);
  if (SessionStats* stats = ActiveSessionStats())
    stats->last_preemption_victims = static_cast<int64_t>(victims.size());
  if (!LessEqual(preemptor.request, node.FutureIdle() + SumRequests(victims)))
    return NodeAnswer::kNoRoom;
  SortVictims(ssn, queue, victims);
  const size_t mark = stmt.Mark();
  bool evicted = false;
  for (const TaskInfo* v : victims) {
    if (ssn.Allocatable(queue, preemptor) && LessEqual(preemptor.request, node.FutureIdle())) break;
    stmt.Evict(ssn.task(v->id), "preempt",
               "preempted by " + preemptor.key + " (queue " + queue.name + ")");
    evicted = true;
  }
  if (ssn.Allocatable(queue, preemptor) && LessEqual(preemptor.request, node.FutureIdle())) {
    stmt.Pipeline(preemptor, node, evicted);
    return NodeAnswer::kPipelined;
  }
  // The node's evictions are undone: only a node that takes the preemptor
  // loses pods for it.
  stmt.DiscardSince(mark);
  return NodeAnswer::kRefused;
}

// The fast path's memory of nodes that refused a preemptor during one job's
// turn of the job-level pass, per (equivalence class, priority) of preemptor.
//
// A node answers kNoRoom, changing nothing, when the Preemptable vote names too
// few victims to make room. It refuses a later preemptor of the same
// class and job again as long as neither the node nor the job of any
// candidate on it has changed: the votes (priority, gang, conformance, drf)
// read only the preemptor, the candidates and the candidates' jobs, and during
// its turn the preemptor's job only gains pipelined tasks, which can only make
// drf name fewer victims. (With those votes a changed candidate job only ever
// lost tasks, which names fewer victims too; the check keeps the memory sound
// for votes that are not monotone.) Tasks never leave nodes during a turn
// (only the discard at its end unpipelines), so EvictionWatch sees every
// changed job. The memory is dropped between turns: another job's preemptors
// start from its own, smaller share.
class RefusedNodes {
 public:
  void NewTurn() { by_class_.clear(); }
  // Per node: 1 + the change-log size when the node refused; 0 for none.
  std::vector<size_t>& For(const Session& ssn, const TaskInfo& t) {
    std::vector<size_t>& v = by_class_[{t.equivalence_class, t.priority}];
    if (v.empty()) v.assign(ssn.nodes().size(), 0);
    return v;
  }
  static bool Still(const Session& ssn, const EvictionWatch& watch, size_t refused,
                    const NodeInfo& node, JobId preemptor_job) {
    if (refused == 0 || watch.NodeChanged(node.id) >= refused) return false;
    for (TaskId id : node.tasks) {
      const TaskInfo& c = ssn.task(id);
      if (!IsCandidateStatus(c.status) || c.job == preemptor_job) continue;
      if (watch.JobChanged(c.job) >= refused) return false;
    }
    return true;
  }

 private:
  std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> by_class_;
};

// What the fast path keeps between preemptors.
struct FastPathState {
  EvictionNodeIndex index;
  EvictionWatch watch{{TaskStatus::kBound, TaskStatus::kRunning}};
  RefusedNodes refused;
  std::vector<const TaskInfo*> scratch;
};

// Nodes in the order of best score first (ties: snapshot order), among those
// whose predicates leave room for evictions. The fast path reads that order
// off the index (per equivalence class), passes over nodes without running
// tasks and, when `remember` (job-level pass), nodes that refused an earlier
// preemptor of the class this turn and have not changed since (RefusedNodes);
// the reference path scores every node and asks every one.
bool PreemptTask(Session& ssn, Statement& stmt, TaskInfo& preemptor, const CandidateFilter& filter,
                 FastPathState& fast, bool remember) {
  if (!EligibleToPreempt(ssn, preemptor)) return false;
  if (!ssn.PrePredicate(preemptor).ok()) return false;
  if (SessionStats* stats = ActiveSessionStats()) ++stats->preemption_attempts;
  const JobInfo& job = ssn.job(preemptor.job);
  const QueueInfo& queue = ssn.queue(job.queue);
  if (!ssn.options().reference_node_selection) {
    if (const EvictionNodeIndex::Order* order = fast.index.Nodes(ssn, preemptor)) {
      const auto& log = ssn.node_change_log();
      fast.watch.Refresh(ssn);
      std::vector<size_t>* refused = remember ? &fast.refused.For(ssn, preemptor) : nullptr;
      for (const auto& [score, id] : *order) {
        NodeInfo& node = ssn.node(id);
        // No running task means no candidates: only room as it is can take the preemptor.
        if (fast.watch.Holding(id) == 0 && !FitsFutureIdle(preemptor.request, node)) continue;
        if (refused && RefusedNodes::Still(ssn, fast.watch, (*refused)[id], node, job.id)) continue;
        const size_t before = log.size();
        const NodeAnswer answer = TryNode(ssn, stmt, preemptor, filter, queue, node, fast.scratch);
        if (answer == NodeAnswer::kPipelined) return true;
        if (answer == NodeAnswer::kNoRoom) {
          if (refused) (*refused)[id] = before + 1;
        } else if (log.size() != before) {
          fast.watch.Refresh(ssn);  // evicted, then undone: the node's jobs changed and back
        }
      }
      return false;
    }
  }
  std::vector<NodeInfo*> nodes = NodesForEviction(ssn, preemptor);
  std::vector<const NodeInfo*> view(nodes.begin(), nodes.end());
  std::vector<double> scores = ssn.NodeScores(preemptor, view);
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  for (size_t i : order) {
    if (TryNode(ssn, stmt, preemptor, filter, queue, *nodes[i], fast.scratch) ==
        NodeAnswer::kPipelined)
      return true;
  }
  return false;
}

// Gang-aware preemption for `job`: the cheapest victims inside one allowed
// domain, evicted together with every needed pipeline, or nothing.
bool PreemptGang(Session& ssn, JobInfo& job, const GangEvictionOptions& options) {
  // One attempt per gang, as one per preemptor task.
  if (SessionStats* stats = ActiveSessionStats()) ++stats->preemption_attempts;
  GangEvictionRequest req;
  req.job = &job;
  req.options = options;
  const CandidateFilter filter{&ssn, job.id, job.queue, false, false};
  req.may_take = [filter](const TaskInfo& t) { return filter(t); };
  std::optional<GangEvictionPlan> plan = PlanGangEviction(ssn, req);
  if (!plan) return false;
  const QueueInfo& queue = ssn.queue(job.queue);
  GangEvictionCommit how{"preempt", "preempted",
                         [&ssn, &queue](const TaskInfo& t) { return ssn.Allocatable(queue, t); },
                         true};
  return CommitGangEvictionPlan(ssn, job, queue, *plan, how);
}

class PreemptAction : public Action {
 public:
  explicit PreemptAction(bool gang_aware) : gang_aware_(gang_aware) {}
  std::string_view Name() const override { return gang_aware_ ? "gangpreempt" : "preempt"; }

  Status Configure(const Arguments& args) override {
    return ReadGangEvictionArguments(args, gang_aware_, &options_);
  }

  void Execute(Session& ssn) override {
    FastPathState fast;
    std::map<QueueId, StarvingJobs> preemptors;
    std::map<QueueId, std::vector<JobId>> starving;  // the task-level pass, per queue
    std::map<JobId, std::vector<TaskId>> tasks;      // pending tasks, best last
    std::set<JobId> gangs;                           // served by gang-aware preemption
    for (JobInfo& job : ssn.jobs()) {
      if (job.IsPending() || ssn.JobValid(job)) continue;
      if (!ssn.JobStarving(job)) continue;
      if (UsesGangEviction(ssn, job, gang_aware_)) {
        gangs.insert(job.id);
        preemptors.try_emplace(job.queue, ssn, fast.watch).first->second.Push(job.id);
        continue;
      }
      // A hard constraint in a cluster without HyperNodes: nowhere to go.
      if (ConstraintOf(job, ssn.hypernodes()).kind == TopologyConstraint::Kind::kHard) continue;
      preemptors.try_emplace(job.queue, ssn, fast.watch).first->second.Push(job.id);
      starving[job.queue].push_back(job.id);
      tasks[job.id] = PendingTasks(ssn, job);
    }
    // Queues in QueueOrder at the time of each pick: earlier queues'
    // evictions and pipelines move the shares.
    auto queues = MakePickList<QueueId>(
        [&ssn](QueueId a, QueueId b) { return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b)); });
    for (const auto& [q, list] : preemptors) queues.Push(q);
    while (!queues.Empty()) {
      const QueueId q = queues.Pop();
      auto& jobs = preemptors.at(q);
      // 1. Between jobs of the queue.
      while (!jobs.Empty()) {
        JobInfo& job = ssn.job(jobs.Pop());
        if (gangs.count(job.id)) {
          PreemptGang(ssn, job, options_);
          continue;
        }
        fast.refused.NewTurn();
        Statement stmt(ssn);
        bool assigned = false;
        auto& pending = tasks[job.id];
        while (ssn.JobStarving(job) && !pending.empty()) {
          TaskInfo& t = ssn.task(pending.back());
          pending.pop_back();
          CandidateFilter other_jobs{&ssn, job.id, job.queue, false, t.best_effort};
          // The answer for the job's last task decides whether it comes back.
          assigned = PreemptTask(ssn, stmt, t, other_jobs, fast, true);
        }
        if (!ssn.JobPipelined(job)) {
          stmt.Discard();
          continue;
        }
        stmt.Commit();
        if (assigned) jobs.Push(job.id);
      }
      // 2. Between tasks of one job.
      for (JobId j : starving[q]) {
        JobInfo& job = ssn.job(j);
        std::vector<TaskId> pending = PendingTasks(ssn, job);
        while (!pending.empty()) {
          TaskInfo& t = ssn.task(pending.back());
          pending.pop_back();
          CandidateFilter same_job{&ssn, job.id, job.queue, true, t.best_effort};
          Statement stmt(ssn);
          if (!PreemptTask(ssn, stmt, t, same_job, fast, false)) {
            stmt.Discard();
            break;
          }
          stmt.Commit();
        }
      }
    }
  }

 private:
  // Pending, ungated tasks in TaskOrder, best last (popped from the back).
  static std::vector<TaskId> PendingTasks(Session& ssn, const JobInfo& job) {
    std::vector<TaskId> out;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.status == TaskStatus::kPending && !t.gated) out.push_back(id);
    }
    std::sort(out.begin(), out.end(),
              [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(b), ssn.task(a)); });
    return out;
  }

  bool gang_aware_;
  GangEvictionOptions options_;
};

}  // namespace

std::unique_ptr<Action> NewPreemptAction() { return std::make_unique<PreemptAction>(false); }
std::unique_ptr<Action> NewGangPreemptAction() { return std::make_unique<PreemptAction>(true); }

}  // namespace basalt
