// SubGroupIndex: the SubGroups of the session's jobs (api/subgroup.h gives the
// rule that puts a pod into one), built when the session opens.
//
// Only jobs whose PodGroup has a spec.subGroupPolicy have SubGroups; for the
// others every lookup is an empty answer, so a cluster without any costs one
// pass over the jobs. Membership does not change during a session (it follows
// pod labels); readiness is counted from the tasks' statuses when asked.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/types.h"

namespace basalt {

struct Snapshot;

struct SubGroupInfo {
  JobId job = kNone;
  int32_t policy = 0;         // index into the PodGroup's spec.subGroupPolicy
  std::string name;           // "<policy>-<matchLabelKeys values>"
  int32_t size = 1;           // subGroupSize: pods that must be placed together
  std::vector<TaskId> tasks;  // in the job's task order
};

class SubGroupIndex {
 public:
  static SubGroupIndex Build(const Snapshot& snap);

  bool empty() const { return groups_.empty(); }
  // The SubGroups of `job`, by policy then name (empty for a job without).
  const std::vector<int32_t>& OfJob(JobId job) const;
  const SubGroupInfo& at(int32_t id) const { return groups_[id]; }
  // The SubGroup holding `task`, or kNone.
  int32_t OfTask(TaskId task) const;

 private:
  std::vector<SubGroupInfo> groups_;
  std::map<JobId, std::vector<int32_t>> by_job_;
  std::map<TaskId, int32_t> by_task_;
};

// Whether at least `size` of the SubGroup's tasks satisfy `counts`.
template <typename Tasks, typename Counts>
bool SubGroupHas(const SubGroupInfo& g, const Tasks& task_of, Counts counts) {
  int32_t n = 0;
  for (TaskId id : g.tasks) {
    if (counts(task_of(id)) && ++n >= g.size) return true;
  }
  return n >= g.size;
}

}  // namespace basalt
