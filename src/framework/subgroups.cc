#include "framework/subgroups.h"

#include "api/subgroup.h"
#include "framework/snapshot.h"

namespace basalt {

SubGroupIndex SubGroupIndex::Build(const Snapshot& snap) {
  SubGroupIndex index;
  for (const JobInfo& job : snap.jobs) {
    if (!job.podgroup || job.podgroup->sub_group_policy.empty()) continue;
    const std::vector<SubGroupPolicy>& policies = job.podgroup->sub_group_policy;
    std::map<std::pair<int32_t, std::string>, int32_t> of_key;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = snap.tasks[id];
      if (!t.pod) continue;
      std::optional<SubGroupKey> key = SubGroupOf(policies, t.pod->meta.labels);
      if (!key) continue;
      auto [it, fresh] = of_key.emplace(std::pair{key->policy, key->name},
                                        static_cast<int32_t>(index.groups_.size()));
      if (fresh) {
        SubGroupInfo g;
        g.job = job.id;
        g.policy = key->policy;
        g.name = key->name;
        g.size = policies[key->policy].sub_group_size.value_or(1);
        index.groups_.push_back(std::move(g));
      }
      index.groups_[it->second].tasks.push_back(id);
      index.by_task_[id] = it->second;
    }
    std::vector<int32_t>& ids = index.by_job_[job.id];
    for (const auto& [key, id] : of_key) ids.push_back(id);
  }
  return index;
}

const std::vector<int32_t>& SubGroupIndex::OfJob(JobId job) const {
  static const std::vector<int32_t> kNoGroups;
  auto it = by_job_.find(job);
  return it == by_job_.end() ? kNoGroups : it->second;
}

int32_t SubGroupIndex::OfTask(TaskId task) const {
  auto it = by_task_.find(task);
  return it == by_task_.end() ? kNone : it->second;
}

}  // namespace basalt
