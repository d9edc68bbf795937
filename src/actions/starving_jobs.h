// Preempt's and reclaim's lists of starving jobs.
//
// Both actions pick "the job no other job of the list orders before"
// (Session::JobOrderLess at the time of the pick), as PickList does by
// scanning every job per pick. Unlike in allocate, a job's order key may move
// while the job waits in the list: evictions take running tasks from jobs
// that may themselves be starving (their gang readiness and drf share drop).
//
// The fast path keeps the jobs in an ordered set instead and, before every
// push or pop, takes out and puts back the jobs that changed since they were
// put in. A job changes only when one of its tasks changes status; every such
// change is logged against the task's node (Session::node_change_log), and
// EvictionWatch stamps the jobs of the tasks on a changed node. That needs the
// task to still be on its node when the log is read: true for evictions and
// pipelines, not for an unpipeline (a preempt statement's discard), which
// only touches the discarded job itself, never in the list at that moment.
// Every job-order key (priority, gang readiness, drf share, sla deadline)
// belongs to the job itself, so the jobs left in place keep their order.
//
// The reference path (SessionOptions::reference_node_selection) keeps
// PickList's scan.
#pragma once

#include <set>
#include <vector>

#include "actions/node_selection.h"
#include "api/check.h"
#include "framework/session.h"

namespace basalt {

class StarvingJobs {
 public:
  // `watch` may be shared with other lists; it is refreshed here.
  StarvingJobs(const Session& ssn, EvictionWatch& watch)
      : ssn_(&ssn),
        watch_(&watch),
        reference_(ssn.options().reference_node_selection),
        set_(Less{&ssn}) {}

  bool Empty() const { return reference_ ? items_.empty() : set_.empty(); }

  void Push(JobId job) {
    if (reference_) {
      items_.push_back(job);
      return;
    }
    Resync();
    Insert(job);
  }

  JobId Pop() {
    if (reference_) {
      size_t best = 0;
      for (size_t i = 1; i < items_.size(); ++i) {
        if (Less{ssn_}(items_[i], items_[best])) best = i;
      }
      JobId job = items_[best];
      items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(best));
      return job;
    }
    Resync();
    JobId job = *set_.begin();
    set_.erase(set_.begin());
    where_[job].in = false;
    return job;
  }

 private:
  struct Less {
    const Session* ssn;
    bool operator()(JobId a, JobId b) const { return ssn->JobOrderLess(ssn->job(a), ssn->job(b)); }
  };
  struct Place {
    std::set<JobId, Less>::iterator it;
    size_t stamp = 0;  // change-log size when the job was put in
    bool in = false;
  };

  void Insert(JobId job) {
    auto [it, fresh] = set_.insert(job);
    BASALT_CHECK(fresh) << "job " << ssn_->job(job).key << " is already in the list";
    if (where_.empty()) where_.resize(ssn_->jobs().size());
    where_[job] = Place{it, ssn_->node_change_log().size(), true};
  }

  // Takes out every job changed since it was put in (erasing by iterator asks
  // no comparison), then puts them back under their new keys.
  void Resync() {
    watch_->Refresh(*ssn_);
    const std::vector<JobId>& stamps = watch_->job_stamps();
    changed_.clear();
    for (; read_ < stamps.size(); ++read_) {
      const JobId job = stamps[read_];
      if (where_.empty() || !where_[job].in || watch_->JobChanged(job) <= where_[job].stamp)
        continue;
      set_.erase(where_[job].it);
      where_[job].in = false;
      changed_.push_back(job);
    }
    for (JobId job : changed_) Insert(job);
  }

  const Session* ssn_;
  EvictionWatch* watch_;
  bool reference_;
  std::vector<JobId> items_;  // reference path
  std::set<JobId, Less> set_;
  std::vector<Place> where_;    // per job
  size_t read_ = 0;             // position in watch_->job_stamps()
  std::vector<JobId> changed_;  // scratch
};

}  // namespace basalt
