// preempt: inside one queue, starving jobs take resources from lower-priority
// work (VOLCANO_SEMANTICS §4.4).
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
//     from lower-priority running tasks of the same job.
// A pipelined preemptor that caused an eviction gets the node as its
// nominatedNodeName; allocate tries that node first next cycle.
#include <functional>
#include <map>

#include "actions/builtin.h"
#include "actions/node_selection.h"
#include "actions/ordering.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {
namespace {

using Filter = std::function<bool(const TaskInfo& candidate)>;

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

// Tries to make room for `preemptor` on `node` by evicting victims; true once
// it is pipelined there. `skip_empty`: a node without candidates is passed
// over without asking the Preemptable vote (which can only answer "none").
bool TryNode(Session& ssn, Statement& stmt, TaskInfo& preemptor, const Filter& filter, const QueueInfo& queue,
             NodeInfo& node, bool skip_empty) {
  std::vector<const TaskInfo*> candidates;
  for (TaskId id : node.tasks) {
    const TaskInfo& c = ssn.task(id);
    if ((c.status == TaskStatus::kBound || c.status == TaskStatus::kRunning) && filter(c)) candidates.push_back(&c);
  }
  if (skip_empty && candidates.empty()) return false;
  std::vector<const TaskInfo*> victims = ssn.Preemptable(preemptor, candidates);
  if (victims.empty() || !LessEqual(preemptor.request, node.FutureIdle() + SumRequests(victims))) return false;
  SortVictims(ssn, queue, victims);
  bool evicted = false;
  for (const TaskInfo* v : victims) {
    if (ssn.Allocatable(queue, preemptor) && LessEqual(preemptor.request, node.FutureIdle())) break;
    stmt.Evict(ssn.task(v->id), "preempt", "preempted by " + preemptor.key + " (queue " + queue.name + ")");
    evicted = true;
  }
  if (ssn.Allocatable(queue, preemptor) && LessEqual(preemptor.request, node.FutureIdle())) {
    stmt.Pipeline(preemptor, node, evicted);
    return true;
  }
  return false;
}

// Nodes in the order of best score first (ties: snapshot order), among those
// whose predicates leave room for evictions. The fast path reads that order
// off `index` (per equivalence class); the reference path scores every node.
bool PreemptTask(Session& ssn, Statement& stmt, TaskInfo& preemptor, const Filter& filter, EvictionNodeIndex& index) {
  if (!EligibleToPreempt(ssn, preemptor)) return false;
  if (!ssn.PrePredicate(preemptor).ok()) return false;
  const JobInfo& job = ssn.job(preemptor.job);
  const QueueInfo& queue = ssn.queue(job.queue);
  if (!ssn.options().reference_node_selection) {
    if (const EvictionNodeIndex::Order* order = index.Nodes(ssn, preemptor)) {
      for (const auto& [score, id] : *order) {
        if (TryNode(ssn, stmt, preemptor, filter, queue, ssn.node(id), true)) return true;
      }
      return false;
    }
  }
  std::vector<NodeInfo*> nodes = NodesForEviction(ssn, preemptor);
  std::vector<const NodeInfo*> view(nodes.begin(), nodes.end());
  std::vector<double> scores = ssn.NodeScores(preemptor, view);
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  for (size_t i : order) {
    if (TryNode(ssn, stmt, preemptor, filter, queue, *nodes[i], false)) return true;
  }
  return false;
}

class PreemptAction : public Action {
 public:
  std::string_view Name() const override { return "preempt"; }

  void Execute(Session& ssn) override {
    EvictionNodeIndex index;
    auto job_less = [&ssn](JobId a, JobId b) { return ssn.JobOrderLess(ssn.job(a), ssn.job(b)); };
    std::map<QueueId, PickList<JobId, decltype(job_less)>> preemptors;
    std::map<QueueId, std::vector<JobId>> starving;  // the task-level pass, per queue
    std::map<JobId, std::vector<TaskId>> tasks;      // pending tasks, best last
    for (JobInfo& job : ssn.jobs()) {
      if (job.IsPending() || ssn.JobValid(job)) continue;
      if (!ssn.JobStarving(job)) continue;
      preemptors.try_emplace(job.queue, MakePickList<JobId>(job_less)).first->second.Push(job.id);
      starving[job.queue].push_back(job.id);
      tasks[job.id] = PendingTasks(ssn, job);
    }
    std::vector<QueueId> queues;
    for (const auto& [q, list] : preemptors) queues.push_back(q);
    std::stable_sort(queues.begin(), queues.end(),
                     [&](QueueId a, QueueId b) { return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b)); });
    for (QueueId q : queues) {
      auto& jobs = preemptors.at(q);
      // 1. Between jobs of the queue.
      while (!jobs.Empty()) {
        JobInfo& job = ssn.job(jobs.Pop());
        Statement stmt(ssn);
        bool assigned = false;
        auto& pending = tasks[job.id];
        while (ssn.JobStarving(job) && !pending.empty()) {
          TaskInfo& t = ssn.task(pending.back());
          pending.pop_back();
          Filter other_jobs = [&](const TaskInfo& c) {
            if (!c.preemptable || c.job == kNone || c.job == job.id) return false;
            if (t.best_effort && !c.best_effort) return false;
            return ssn.job(c.job).queue == job.queue;
          };
          if (PreemptTask(ssn, stmt, t, other_jobs, index)) assigned = true;
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
          Filter same_job = [&](const TaskInfo& c) {
            if (!c.preemptable || c.job != job.id) return false;
            return !(t.best_effort && !c.best_effort);
          };
          Statement stmt(ssn);
          bool ok = PreemptTask(ssn, stmt, t, same_job, index);
          stmt.Commit();
          if (!ok) break;
        }
      }
    }
    // Victims named by plugins (e.g. time-window evictions) go last.
    std::vector<const TaskInfo*> running;
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.status == TaskStatus::kRunning) running.push_back(&t);
    }
    std::vector<const TaskInfo*> victims = ssn.VictimTasks(running);
    if (!victims.empty()) {
      Statement stmt(ssn);
      for (const TaskInfo* v : victims) stmt.Evict(ssn.task(v->id), "preempt", "evicted by a plugin's victim selection");
      stmt.Commit();
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
    std::sort(out.begin(), out.end(), [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(b), ssn.task(a)); });
    return out;
  }
};

}  // namespace

std::unique_ptr<Action> NewPreemptAction() { return std::make_unique<PreemptAction>(); }

}  // namespace basalt
