#include "framework/snapshot_cache.h"

#include <algorithm>

namespace basalt {

bool SnapshotCache::Usable(const ClusterState& state, const SnapshotScope& scope) const {
  bool usable = valid_ && journal_.Intact(state) && scheduler_names_ == scope.scheduler_names &&
                default_queue_ == scope.default_queue &&
                snapshot_.queues.size() == state.queues().size() &&
                // Past a quarter of the pods changed, a full build is cheaper.
                journal_.Pending(state) <= std::max<size_t>(1024, state.pods().size() / 4);
  if (usable) {
    size_t i = 0;
    for (const auto& [name, q] : state.queues())
      usable = usable && snapshot_.queues[i++].name == name;
  }
  return usable;
}

SnapshotChanges SnapshotCache::TakeChanges(const ClusterState& state) {
  SnapshotChanges changes;
  journal_.ForEachSince(state, [&](const ClusterState::Change& change) {
    if (change.kind == ClusterState::Change::Kind::kPod) changes.pod_keys.push_back(change.key);
    if (change.kind == ClusterState::Change::Kind::kPodGroup)
      changes.group_keys.push_back(change.key);
  });
  changes.touched_tasks = std::move(touched_tasks_);
  changes.touched_nodes = std::move(touched_nodes_);
  touched_tasks_.clear();
  touched_nodes_.clear();
  return changes;
}

Snapshot& SnapshotCache::Lend(const ClusterState& state, const SnapshotScope& scope,
                              bool* patched) {
  lent_ = true;
  *patched = Usable(state, scope);
  valid_ = false;
  if (*patched) {
    snapshot_.Patch(state, scope, TakeChanges(state), &spare_tasks_);
    ++patched_builds_;
  } else {
    // Free the stale snapshot before building a new one.
    snapshot_ = Snapshot();
    spare_tasks_ = {};
    touched_tasks_.clear();
    touched_nodes_.clear();
    snapshot_ = Snapshot::Build(state, scope);
    ++full_builds_;
  }
  journal_.MoveToEnd(state);
  scheduler_names_ = scope.scheduler_names;
  default_queue_ = scope.default_queue;
  return snapshot_;
}

void SnapshotCache::GiveBack(std::vector<TaskId> touched_tasks, std::vector<NodeId> touched_nodes) {
  touched_tasks_ = std::move(touched_tasks);
  touched_nodes_ = std::move(touched_nodes);
  valid_ = true;
  lent_ = false;
}

}  // namespace basalt
