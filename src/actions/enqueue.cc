// enqueue: admits Pending PodGroups (phase -> Inqueue) queue by queue.
//
// A job without minResources is admitted without a vote; otherwise the
// JobEnqueueable vote decides (proportion/capacity/overcommit ...). The queues
// take turns: the best queue offers its best pending job, then goes back in
// line until it has none left.
#include <map>

#include "actions/builtin.h"
#include "actions/ordering.h"
#include "framework/session.h"

namespace basalt {
namespace {

class EnqueueAction : public Action {
 public:
  std::string_view Name() const override { return "enqueue"; }

  void Execute(Session& ssn) override {
    auto queue_less = [&ssn](QueueId a, QueueId b) {
      return ssn.QueueOrderLess(ssn.queue(a), ssn.queue(b));
    };
    auto job_less = [&ssn](JobId a, JobId b) { return ssn.JobOrderLess(ssn.job(a), ssn.job(b)); };
    auto queues = MakePickList<QueueId>(queue_less);
    std::map<QueueId, HeapList<JobId, decltype(job_less)>> pending;
    for (JobInfo& job : ssn.jobs()) {
      auto it = pending.find(job.queue);
      if (it == pending.end()) {
        queues.Push(job.queue);
        it = pending.emplace(job.queue, MakeHeapList<JobId>(job_less)).first;
      }
      if (job.IsPending()) it->second.Push(job.id);
    }
    while (!queues.Empty()) {
      QueueId q = queues.Pop();
      auto& jobs = pending.at(q);
      if (jobs.Empty()) continue;
      JobInfo& job = ssn.job(jobs.Pop());
      if (!job.min_resources.has_value() || ssn.JobEnqueueable(job)) {
        ssn.JobEnqueued(job);
        job.phase = PodGroupPhase::kInqueue;
      }
      queues.Push(q);
    }
  }
};

}  // namespace

std::unique_ptr<Action> NewEnqueueAction() { return std::make_unique<EnqueueAction>(); }

}  // namespace basalt
