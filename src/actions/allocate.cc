// allocate: places pending tasks of admitted jobs, gang by gang.
//
// Per docs/semantics/actions.md:
//  * queues take turns (QueueOrder, re-evaluated after every placement), an
//    Overused queue leaves the loop;
//  * a job places tasks in TaskOrder inside one Statement; the statement is
//    committed (binds issued) only once the job is ready (gang), discarded when
//    the job cannot even be pipelined, and otherwise kept in the session without
//    binding (its reservations block resources for later jobs this cycle);
//  * once ready, a job places one more task per turn, so queues interleave;
//    a job that did not become ready in its turn does not come back;
//  * a node where the task fits Idle always beats one where it only fits
//    FutureIdle (Idle + Releasing - Pipelined); in the latter the task is
//    pipelined onto resources being released.
//  * a job with a network topology constraint is dry-run in one HyperNode
//    after another (AllocateInHyperNode; docs/topology.md);
//  * a job with SubGroups (spec.subGroupPolicy) is placed SubGroup by
//    SubGroup, each whole or not at all (actions/subgroup_allocate.h).
//
// Cost per task: tasks with identical scheduling inputs (an equivalence class,
// e.g. the replicas of one vcjob task) share feasibility answers and scores
// through AllocateNodeIndex (actions/node_selection.h): the first task of a
// class checks and scores every node, each later one re-checks only the nodes
// changed since and reads the best node off a max-tree (O(changed nodes x
// log nodes)). Tasks of a role that already failed on every node are skipped
// without any pass. SessionOptions::reference_node_selection switches to the
// straightforward path (every node checked and every feasible node scored per
// task), which makes the same decisions.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "actions/builtin.h"
#include "actions/hypernode_search.h"
#include "actions/node_selection.h"
#include "actions/ordering.h"
#include "actions/subgroup_allocate.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {
namespace {

class AllocateAction : public Action {
 public:
  std::string_view Name() const override { return "allocate"; }

  void Execute(Session& ssn) override {
    // One action object serves many sessions: per-session caches start empty.
    pending_.clear();
    failed_roles_.clear();
    index_ = std::make_unique<AllocateNodeIndex>();
    free_ = HyperNodeFree();
    const bool has_enqueue = ssn.config().HasAction("enqueue");
    auto queue_less = [&ssn](QueueId a, QueueId b) {
      return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b));
    };
    auto job_less = [&ssn](JobId a, JobId b) { return ssn.JobOrderLess(ssn.job(a), ssn.job(b)); };
    auto queues = MakePickList<QueueId>(queue_less);
    std::map<QueueId, HeapList<JobId, decltype(job_less)>> jobs_of;
    for (JobInfo& job : ssn.jobs()) {
      if (job.IsPending()) {
        if (has_enqueue) continue;
        job.phase = PodGroupPhase::kInqueue;  // without enqueue, allocate admits every job
      }
      if (auto invalid = ssn.JobValid(job)) {
        job.job_fit_error = invalid->message;
        continue;
      }
      // A job without a task to place would be popped and dropped without any
      // effect (the state, hence every later pick, stays the same): leave it
      // out, which keeps steady clusters with many running jobs cheap.
      if (!HasTaskToPlace(ssn, job)) continue;
      auto it = jobs_of.find(job.queue);
      if (it == jobs_of.end()) {
        queues.Push(job.queue);
        it = jobs_of.emplace(job.queue, MakeHeapList<JobId>(job_less)).first;
      }
      it->second.Push(job.id);
    }
    while (!queues.Empty()) {
      QueueId q = queues.Pop();
      if (ssn.Overused(ssn.queue(q))) continue;
      auto& jobs = jobs_of.at(q);
      if (jobs.Empty()) continue;
      JobInfo& job = ssn.job(jobs.Pop());
      std::vector<TaskId>& pending = PendingTasks(ssn, job);
      if (pending.empty()) {
        queues.Push(q);
        continue;
      }
      const TopologyConstraint topology = ConstraintOf(job, ssn.hypernodes());
      std::unique_ptr<Statement> stmt;
      if (!ssn.subgroups().OfJob(job.id).empty()) {
        stmt = SubGroupsOf(ssn).Allocate(job, pending, topology);
      } else if (topology.kind == TopologyConstraint::Kind::kNone) {
        stmt = AllocateTasks(ssn, job, pending);
      } else {
        stmt = AllocateInHyperNode(ssn, job, pending, topology);
      }
      // Only a job that became ready comes back for its remaining tasks.
      if (stmt) {
        stmt->Commit();
        if (!pending.empty()) jobs.Push(job.id);
      }
      queues.Push(q);
    }
  }

 private:
  // Jobs with SubGroups are placed unit by unit (actions/subgroup_allocate.h).
  SubGroupAllocator SubGroupsOf(Session& ssn) {
    free_.Refresh(ssn);
    return SubGroupAllocator(
        ssn, free_,
        [this, &ssn](TaskInfo& task, const std::vector<NodeId>* within, FitErrors* errors) {
          return ChooseNode(ssn, task, within, errors);
        });
  }

  // The node for `task`: its nominated node while the task still fits there
  // (and the node is among `within`), else the best node of `within` (every
  // node when nullptr).
  NodeInfo* ChooseNode(Session& ssn, TaskInfo& task, const std::vector<NodeId>* within,
                       FitErrors* errors) {
    if (!task.nominated_node.empty()) {
      auto nid = ssn.FindNode(task.nominated_node);
      if (nid && within && !std::binary_search(within->begin(), within->end(), *nid)) {
        nid.reset();  // outside the HyperNode being tried
      }
      if (nid) {
        NodeInfo& n = ssn.node(*nid);
        if (LessEqual(task.request, n.FutureIdle()) && ssn.Predicate(task, n).ok()) return &n;
      }
    }
    const bool reference =
        ssn.options().reference_node_selection || task.equivalence_class == kNone;
    return within      ? BestNodeWithin(ssn, task, *within, errors)
           : reference ? ReferenceAllocateNode(ssn, task, errors)
                       : index_->Best(ssn, task, errors);
  }

  static bool HasTaskToPlace(const Session& ssn, const JobInfo& job) {
    if (job.Count(TaskStatus::kPending) == 0) return false;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.status == TaskStatus::kPending && !t.gated && !t.best_effort) return true;
    }
    return false;
  }

  // Pending, ungated, non-BestEffort tasks in TaskOrder, popped from the front.
  std::vector<TaskId>& PendingTasks(Session& ssn, const JobInfo& job) {
    auto it = pending_.find(job.id);
    if (it != pending_.end()) return it->second;
    std::vector<TaskId> tasks;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.status == TaskStatus::kPending && !t.gated && !t.best_effort) tasks.push_back(id);
    }
    std::sort(tasks.begin(), tasks.end(),
              [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(a), ssn.task(b)); });
    std::reverse(tasks.begin(), tasks.end());  // pop from the back
    return pending_.emplace(job.id, std::move(tasks)).first->second;
  }

  // Every node gives the pre-predicate's reasons. The reference path lists
  // them per node; the fast path counts them (the same message).
  static FitErrors PrePredicateErrors(const Session& ssn, const PredicateStatus& pre) {
    FitErrors errors;
    if (ssn.options().reference_node_selection) {
      for (const NodeInfo& n : ssn.nodes()) errors.Add(n.name, pre.reasons);
    } else if (!ssn.nodes().empty()) {
      auto counts = std::make_shared<std::map<std::string, int64_t>>();
      for (const std::string& r : pre.reasons)
        (*counts)[r] += static_cast<int64_t>(ssn.nodes().size());
      errors.reason_counts = std::move(counts);
    }
    return errors;
  }

  // Volcano's NeedContinueAllocating: after a task found no node, may the job
  // still become ready with the tasks that are left?
  static bool NeedContinue(const Session& ssn, const JobInfo& job,
                           const std::vector<TaskId>& pending,
                           const std::set<std::string>& failed) {
    if (job.min_member == static_cast<int32_t>(job.tasks.size())) return false;
    int32_t task_min_total = 0;
    for (const auto& [role, n] : job.min_task_member) task_min_total += n;
    if (job.min_member < task_min_total) {
      int32_t possible = job.ReadyTaskNum();
      for (TaskId id : pending) {
        if (!failed.count(ssn.task(id).role)) ++possible;
      }
      return possible >= job.min_member;
    }
    for (const std::string& role : failed) {
      auto it = job.min_task_member.find(role);
      if (it == job.min_task_member.end()) continue;
      int32_t placed = 0;
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (t.role == role && (IsAllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded ||
                               t.status == TaskStatus::kPipelined)) {
          ++placed;
        }
      }
      if (placed < it->second) return false;
    }
    return true;
  }

  // A topology-constrained job (docs/topology.md): the gang is dry-run in the
  // HyperNodes of PlanHyperNodes, in order, and the first that holds it wins.
  // A soft job no HyperNode holds falls back to every node; a hard one stays
  // pending with the reason.
  std::unique_ptr<Statement> AllocateInHyperNode(Session& ssn, JobInfo& job,
                                                 std::vector<TaskId>& pending,
                                                 const TopologyConstraint& topology) {
    free_.Refresh(ssn);
    HyperNodePlan plan = PlanHyperNodes(ssn, job, topology, pending, free_);
    size_t tried = 0;
    while (std::optional<HyperNodeId> h = plan.Next()) {
      std::vector<TaskId> trial = pending;
      std::set<std::string> failed;
      ++tried;
      auto stmt = AllocateTasks(ssn, job, trial, &ssn.hypernodes().at(*h).nodes, failed);
      if (!stmt) continue;
      pending = std::move(trial);
      job.job_fit_error.clear();
      return stmt;
    }
    if (topology.kind == TopologyConstraint::Kind::kSoft) return AllocateTasks(ssn, job, pending);
    for (TaskId id : pending) job.fit_errors.erase(id);
    job.job_fit_error = TopologyPendingReason(ssn, topology, plan, tried);
    pending.clear();  // nothing changes for this job again this cycle
    return nullptr;
  }

  std::unique_ptr<Statement> AllocateTasks(Session& ssn, JobInfo& job,
                                           std::vector<TaskId>& pending) {
    return AllocateTasks(ssn, job, pending, nullptr, failed_roles_[job.id]);
  }

  // Places `pending` tasks in TaskOrder. `within`: the nodes they may use (a
  // HyperNode's, for a dry run: a gang that is not ready is then discarded
  // even when pipelined), or nullptr for every node. `failed`: the roles that
  // found no node.
  std::unique_ptr<Statement> AllocateTasks(Session& ssn, JobInfo& job, std::vector<TaskId>& pending,
                                           const std::vector<NodeId>* within,
                                           std::set<std::string>& failed) {
    auto stmt = std::make_unique<Statement>(ssn);
    const QueueInfo& queue = ssn.queue(job.queue);
    while (!pending.empty()) {
      TaskInfo& task = ssn.task(pending.back());
      pending.pop_back();
      if (!ssn.Allocatable(queue, task)) continue;
      if (!task.role.empty() && failed.count(task.role)) {
        // Same role already failed on every node: skip, with the same reasons.
        for (TaskId id : job.tasks) {
          const TaskInfo& other = ssn.task(id);
          if (other.role == task.role && job.fit_errors.count(id)) {
            job.fit_errors[task.id] = job.fit_errors[id];
            break;
          }
        }
        continue;
      }
      PredicateStatus pre = ssn.PrePredicate(task);
      if (!pre.ok()) {
        // A failed pre-predicate is a fit failure of the task's role like any other.
        job.fit_errors[task.id] = PrePredicateErrors(ssn, pre);
        if (!task.role.empty()) failed.insert(task.role);
        if (NeedContinue(ssn, job, pending, failed)) continue;
        break;
      }
      FitErrors errors;
      NodeInfo* chosen = ChooseNode(ssn, task, within, &errors);
      if (!chosen) {
        job.fit_errors[task.id] = std::move(errors);
        if (!task.role.empty()) failed.insert(task.role);
        if (NeedContinue(ssn, job, pending, failed)) continue;
        break;
      }
      job.fit_errors.erase(task.id);
      if (LessEqual(task.request, chosen->idle())) {
        stmt->Allocate(task, *chosen);
      } else {
        stmt->Pipeline(task, *chosen);
      }
      if (ssn.JobReady(job) && !pending.empty()) break;
    }
    if (ssn.JobReady(job)) return stmt;
    if (within || !ssn.JobPipelined(job)) stmt->Discard();
    return nullptr;
  }

  std::map<JobId, std::vector<TaskId>> pending_;
  std::map<JobId, std::set<std::string>> failed_roles_;
  std::unique_ptr<AllocateNodeIndex> index_;
  HyperNodeFree free_;
};

}  // namespace

std::unique_ptr<Action> NewAllocateAction() { return std::make_unique<AllocateAction>(); }

}  // namespace basalt
