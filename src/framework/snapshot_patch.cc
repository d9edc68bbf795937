// Snapshot::Patch: brings the previous session's snapshot up to date with what
// changed since, re-deriving only the changed pods and PodGroups and summing
// again only the totals they touch, in the order a full build sums them.
#include <algorithm>

#include "framework/snapshot.h"
#include "framework/snapshot_builder.h"

namespace basalt {
namespace {

// Keys sorted, duplicates removed.
void SortUnique(std::vector<std::string>& keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

// Keeps the ids whose task is still there, once each, in id order.
template <typename StillThere>
void Tidy(std::vector<TaskId>& v, StillThere still_there) {
  v.erase(std::remove_if(v.begin(), v.end(), [&](TaskId id) { return !still_there(id); }), v.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

class SnapshotPatcher {
 public:
  SnapshotPatcher(const ClusterState& state, const SnapshotScope& scope, Snapshot& snap,
                  SnapshotChanges changes, std::vector<TaskInfo>* spare_tasks)
      : state_(state),
        snap_(snap),
        builder_(state, scope, snap),
        changes_(std::move(changes)),
        spare_tasks_(*spare_tasks) {
    builder_.set_track_orphans(true);
  }

  void Run() {
    // Queues are few: read again, in the same order (the cache checked the names).
    size_t queue_index = 0;
    for (const auto& [name, q] : state_.queues()) ReadQueue(q, &snap_.queues[queue_index++]);
    for (TaskId id : changes_.touched_tasks) changes_.pod_keys.push_back(snap_.tasks[id].key);
    node_dirty_.assign(snap_.nodes.size(), 0);
    for (NodeId id : changes_.touched_nodes) node_dirty_[id] = 1;
    PatchJobs();
    PatchTasks();
    RelistFreshTasks();
    TidyDirtyLists();
    SumDirtyTotals();
    builder_.NumberEquivalenceClasses();
  }

 private:
  // Re-derives the changed PodGroups; a removed job's tasks and the orphans of
  // a new one are derived again with the pods.
  void PatchJobs() {
    SortUnique(changes_.group_keys);
    std::vector<JobInfo> new_jobs;  // in key order
    std::vector<char> job_removed(snap_.jobs.size(), 0);
    bool removed_any = false;
    for (const std::string& key : changes_.group_keys) {
      const JobId old = FindByKey(snap_.jobs, key);
      const PodGroup* pg = state_.FindPodGroup(key);
      JobInfo fresh;
      const bool present = pg && builder_.DeriveJob(key, *pg, &fresh);
      if (old != kNone && present) {
        KeepJobTotals(snap_.jobs[old], fresh);
      } else if (old != kNone) {
        job_removed[old] = 1;
        removed_any = true;
        for (TaskId id : snap_.jobs[old].tasks) changes_.pod_keys.push_back(snap_.tasks[id].key);
      } else if (present) {
        for (const auto& [pod_key, group] : snap_.orphans) {
          if (group == key) changes_.pod_keys.push_back(pod_key);
        }
        new_jobs.push_back(std::move(fresh));
      }
    }
    if (!new_jobs.empty() || removed_any) MergeJobs(new_jobs, job_removed);
  }

  // Replaces `job` by `fresh`, keeping what the tasks sum into it.
  static void KeepJobTotals(JobInfo& job, JobInfo& fresh) {
    fresh.id = job.id;
    fresh.tasks = std::move(job.tasks);
    fresh.status_count = job.status_count;
    fresh.allocated = std::move(job.allocated);
    fresh.total_request = std::move(job.total_request);
    job = std::move(fresh);
  }

  // Ids follow key order, as in a full build; tasks name their job's new id.
  void MergeJobs(std::vector<JobInfo>& new_jobs, const std::vector<char>& job_removed) {
    std::vector<JobInfo>& jobs = snap_.jobs;
    std::vector<JobId> remap(jobs.size(), kNone);
    std::vector<JobInfo> merged;
    merged.reserve(jobs.size() + new_jobs.size());
    size_t n = 0;
    for (size_t o = 0; o < jobs.size(); ++o) {
      while (n < new_jobs.size() && new_jobs[n].key < jobs[o].key)
        merged.push_back(std::move(new_jobs[n++]));
      if (job_removed[o]) continue;
      remap[o] = static_cast<JobId>(merged.size());
      merged.push_back(std::move(jobs[o]));
    }
    while (n < new_jobs.size()) merged.push_back(std::move(new_jobs[n++]));
    jobs = std::move(merged);
    for (size_t j = 0; j < jobs.size(); ++j) jobs[j].id = static_cast<JobId>(j);
    for (TaskInfo& t : snap_.tasks) {
      if (t.job != kNone) t.job = remap[t.job];
    }
  }

  void Mark(const TaskInfo& t) {
    if (t.node != kNone) node_dirty_[t.node] = 1;
    if (t.job != kNone) job_dirty_[t.job] = 1;
  }

  // Re-derives the changed pods: in place when the task stays, else merged.
  void PatchTasks() {
    SortUnique(changes_.pod_keys);
    job_dirty_.assign(snap_.jobs.size(), 0);
    std::vector<TaskInfo> new_tasks;  // in key order
    std::vector<char> task_removed(snap_.tasks.size(), 0);
    bool removed_any = false;
    std::vector<TaskId> changed;  // tasks re-derived in place
    for (const std::string& key : changes_.pod_keys) {
      const TaskId old = FindByKey(snap_.tasks, key);
      if (old != kNone) Mark(snap_.tasks[old]);
      const Pod* pod = state_.FindPod(key);
      TaskInfo fresh;
      bool present = false;
      if (pod) {
        present = builder_.DeriveTask(key, *pod, &fresh);
      } else {
        snap_.orphans.erase(key);
      }
      if (present) Mark(fresh);
      if (old != kNone && present) {
        fresh.id = old;
        snap_.tasks[old] = std::move(fresh);
        changed.push_back(old);
      } else if (old != kNone) {
        task_removed[old] = 1;
        removed_any = true;
      } else if (present) {
        new_tasks.push_back(std::move(fresh));
      }
    }
    if (new_tasks.empty() && !removed_any) {
      fresh_ids_ = std::move(changed);
    } else {
      MergeTasks(new_tasks, task_removed, changed);
    }
  }

  // Ids follow key order, as in a full build. Merges into the spare buffer
  // (no fresh allocation of the whole vector), moving the runs of old tasks
  // between two new ones, then renumbers the lists through `remap`, which
  // keeps their order.
  void MergeTasks(std::vector<TaskInfo>& new_tasks, const std::vector<char>& task_removed,
                  const std::vector<TaskId>& changed) {
    std::vector<TaskInfo>& tasks = snap_.tasks;
    std::vector<TaskInfo> merged = std::move(spare_tasks_);
    merged.clear();
    merged.reserve(tasks.size() + new_tasks.size());
    std::vector<TaskId> remap(tasks.size(), kNone);
    std::vector<TaskId> new_ids;
    size_t o = 0;
    auto move_old_until = [&](size_t end) {
      for (; o < end; ++o) {
        if (task_removed[o]) continue;
        remap[o] = static_cast<TaskId>(merged.size());
        merged.push_back(std::move(tasks[o]));
      }
    };
    for (TaskInfo& t : new_tasks) {
      auto at = std::lower_bound(tasks.begin() + static_cast<std::ptrdiff_t>(o), tasks.end(), t.key,
                                 [](const TaskInfo& x, const std::string& k) { return x.key < k; });
      move_old_until(static_cast<size_t>(at - tasks.begin()));
      new_ids.push_back(static_cast<TaskId>(merged.size()));
      merged.push_back(std::move(t));
    }
    move_old_until(tasks.size());
    for (TaskId id : changed) fresh_ids_.push_back(remap[id]);
    fresh_ids_.insert(fresh_ids_.end(), new_ids.begin(), new_ids.end());
    tasks.clear();
    spare_tasks_ = std::move(tasks);
    tasks = std::move(merged);
    for (size_t i = 0; i < tasks.size(); ++i) tasks[i].id = static_cast<TaskId>(i);
    auto renumber = [&remap](std::vector<TaskId>& v) {
      size_t w = 0;
      for (TaskId id : v) {
        if (remap[id] != kNone) v[w++] = remap[id];
      }
      v.resize(w);
    };
    for (NodeInfo& node : snap_.nodes) renumber(node.tasks);
    for (JobInfo& job : snap_.jobs) renumber(job.tasks);
  }

  // Tasks re-derived or new, by their final id, join the lists of the
  // (marked) node and job they now name.
  void RelistFreshTasks() {
    for (TaskId id : fresh_ids_) {
      const TaskInfo& t = snap_.tasks[id];
      if (t.node != kNone) snap_.nodes[t.node].tasks.push_back(id);
      if (t.job != kNone) snap_.jobs[t.job].tasks.push_back(id);
    }
  }

  // A task belongs where it was listed or where it was re-derived to, if it
  // is there now; lists are in id order, as a full build makes them.
  void TidyDirtyLists() {
    const std::vector<TaskInfo>& tasks = snap_.tasks;
    for (NodeInfo& node : snap_.nodes) {
      if (node_dirty_[node.id])
        Tidy(node.tasks, [&](TaskId id) { return tasks[id].node == node.id; });
    }
    for (JobInfo& job : snap_.jobs) {
      if (job_dirty_[job.id]) Tidy(job.tasks, [&](TaskId id) { return tasks[id].job == job.id; });
    }
  }

  // Totals of the marked nodes and jobs, summed in task order as a full build
  // sums them; the per-session fields of every job are reset.
  void SumDirtyTotals() {
    for (NodeInfo& node : snap_.nodes) {
      if (!node_dirty_[node.id]) continue;
      Snapshot::ResetNodeTotals(node);
      for (TaskId id : node.tasks) Snapshot::AddToNodeTotals(node, snap_.tasks[id]);
    }
    for (JobInfo& job : snap_.jobs) {
      if (job_dirty_[job.id]) {
        job.status_count = {};
        job.allocated = Resource();
        job.total_request = Resource();
        for (TaskId id : job.tasks) Snapshot::AddToJobTotals(job, snap_.tasks[id]);
      }
      // What the previous session decided about the job is not the store's.
      job.phase = job.podgroup->phase;
      job.fit_errors.clear();
      job.job_fit_error.clear();
      job.unschedulable = false;
    }
  }

  const ClusterState& state_;
  Snapshot& snap_;
  SnapshotBuilder builder_;
  SnapshotChanges changes_;
  std::vector<TaskInfo>& spare_tasks_;
  std::vector<char> node_dirty_;
  std::vector<char> job_dirty_;
  std::vector<TaskId> fresh_ids_;
};

}  // namespace

void Snapshot::Patch(const ClusterState& state, const SnapshotScope& scope, SnapshotChanges changes,
                     std::vector<TaskInfo>* spare_tasks) {
  SnapshotPatcher(state, scope, *this, std::move(changes), spare_tasks).Run();
}

}  // namespace basalt
