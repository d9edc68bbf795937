// SnapshotBuilder: derives tasks (from pods) and jobs (from PodGroups) for a
// snapshot. Full builds and patches both derive through it, so a patched
// snapshot and a full build agree by construction. Internal to the snapshot
// (framework/snapshot.h).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "framework/snapshot.h"

namespace basalt {

// Tasks and jobs are in key order (the store's), so a key is found by bisection.
template <typename Info>
int32_t FindByKey(const std::vector<Info>& v, const std::string& key) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const Info& i, const std::string& k) { return i.key < k; });
  return it != v.end() && it->key == key ? static_cast<int32_t>(it - v.begin()) : kNone;
}

// A queue's fields as the snapshot reads them (all but id and name).
void ReadQueue(const Queue& q, QueueInfo* info);

// Per-card vGPU quantities (memory, memory percentage, cores of each card).
// The deviceshare plugin accounts them card by card; node fit and queue shares
// skip them, as Volcano's scheduler does (its "ignored device resources").
// Only vgpu-number, which the device plugin advertises, is node-level.
void DropPerCardResources(Resource* r);

// Pods of one group are neighbours in key order and share a priority class,
// so lookups first check the previous pod's answer.
class SnapshotBuilder {
 public:
  // Reads and writes `snapshot` (its queue and node indexes, jobs and orphans).
  SnapshotBuilder(const ClusterState& state, const SnapshotScope& scope, Snapshot& snapshot);

  // False when the PodGroup takes no part (its queue does not exist, as in Volcano).
  bool DeriveJob(const std::string& key, const PodGroup& pg, JobInfo* job);
  // False when the pod takes no part. Sets the task's node and job (not their
  // totals) and keeps the snapshot's orphans current; the equivalence class is
  // left to `NumberEquivalenceClasses`.
  bool DeriveTask(const std::string& key, const Pod& pod, TaskInfo* t);
  // Numbers the pending tasks' equivalence classes in task order (first
  // appearance of a signature gets the next number) and clears the others'.
  void NumberEquivalenceClasses();

  // Full builds look node names up in a hash index; patches use the snapshot's node_index.
  void set_node_by_name(const std::unordered_map<std::string_view, NodeId>* index) {
    node_by_name_ = index;
  }
  // Patches erase the orphan entry of a pod that found its group.
  void set_track_orphans(bool on) { track_orphans_ = on; }

 private:
  std::optional<int32_t> ClassValue(const std::string& name);
  JobId GroupJob(const Pod& pod, bool ours, bool* orphan);
  static TaskStatus StatusOf(const Pod& pod);
  int32_t PriorityOf(const Pod& pod);
  bool PreemptNever(const Pod& pod) const;
  NodeId NodeOf(const Pod& pod) const;

  const ClusterState& state_;
  const SnapshotScope& scope_;
  Snapshot& snap_;
  int32_t default_priority_ = 0;
  const std::unordered_map<std::string_view, NodeId>* node_by_name_ = nullptr;
  bool track_orphans_ = false;
  std::string group_key_;
  std::string last_group_key_;
  JobId last_group_job_ = kNone;
  const std::string* last_class_name_ = nullptr;
  std::optional<int32_t> last_class_value_;
};

}  // namespace basalt
