// backfill: places BestEffort pods (empty requests) of admitted jobs.
//
// No resource check (they request nothing but a pod slot, which the predicates
// count); nothing to roll back: a statement that commits at once binds the
// job's allocated pods as soon as the job is ready.
#include "actions/builtin.h"
#include "actions/node_selection.h"
#include "actions/ordering.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {
namespace {

class BackfillAction : public Action {
 public:
  std::string_view Name() const override { return "backfill"; }

  void Execute(Session& ssn) override {
    // Queue -> job -> task order, as Volcano v1.11+. Only jobs with an
    // ungated BestEffort task take part: for the others BackfillJob does
    // nothing, so leaving them out of the sort changes no decision.
    std::vector<std::vector<JobId>> jobs_of(ssn.queues().size());
    for (const JobInfo& job : ssn.jobs()) {
      if (job.IsPending() || !HasBestEffortTask(ssn, job)) continue;
      if (auto invalid = ssn.JobValid(job)) continue;
      jobs_of[job.queue].push_back(job.id);
    }
    // Pipelined BestEffort tasks are taken back first, all of them, and
    // retried with the pending ones (Volcano v1.15.1 backfill).
    Statement now = Statement::CommitAtOnce(ssn);
    for (const std::vector<JobId>& job_ids : jobs_of) {
      for (JobId j : job_ids) Unpipeline(ssn, now, ssn.job(j));
    }
    std::vector<QueueId> queue_ids;
    for (const QueueInfo& q : ssn.queues()) queue_ids.push_back(q.id);
    std::sort(queue_ids.begin(), queue_ids.end(),
              [&](QueueId a, QueueId b) { return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b)); });
    // Every order is settled before the first task is placed.
    for (std::vector<JobId>& job_ids : jobs_of) {
      std::sort(job_ids.begin(), job_ids.end(),
                [&](JobId a, JobId b) { return ssn.JobOrderLess(ssn.job(a), ssn.job(b)); });
    }
    for (QueueId q : queue_ids) {
      for (JobId j : jobs_of[q]) BackfillJob(ssn, now, ssn.job(j));
    }
  }

 private:
  static bool HasBestEffortTask(const Session& ssn, const JobInfo& job) {
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.best_effort && !t.gated) return true;
    }
    return false;
  }

  static void Unpipeline(Session& ssn, Statement& now, const JobInfo& job) {
    for (TaskId id : job.tasks) {
      TaskInfo& t = ssn.task(id);
      if (t.best_effort && !t.gated && t.status == TaskStatus::kPipelined) now.Unpipeline(t);
    }
  }

  static void BackfillJob(Session& ssn, Statement& now, JobInfo& job) {
    std::vector<TaskId> tasks;
    for (TaskId id : job.tasks) {
      TaskInfo& t = ssn.task(id);
      if (t.best_effort && !t.gated && t.status == TaskStatus::kPending) tasks.push_back(id);
    }
    std::sort(tasks.begin(), tasks.end(),
              [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(a), ssn.task(b)); });
    for (TaskId id : tasks) {
      TaskInfo& t = ssn.task(id);
      FitErrors errors;
      PredicateStatus pre = ssn.PrePredicate(t);
      if (!pre.ok()) {
        for (const NodeInfo& n : ssn.nodes()) errors.Add(n.name, pre.reasons);
        job.fit_errors[id] = std::move(errors);
        continue;
      }
      std::vector<NodeInfo*> nodes = FeasibleNodes(ssn, t, FitMode::kBackfill, &errors);
      if (nodes.empty()) {
        job.fit_errors[id] = std::move(errors);
        continue;
      }
      now.Allocate(t, *BestNode(ssn, t, nodes));
    }
  }
};

}  // namespace

std::unique_ptr<Action> NewBackfillAction() { return std::make_unique<BackfillAction>(); }

}  // namespace basalt
