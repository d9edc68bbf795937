// SnapshotCache: keeps one session's snapshot for the next session on the same
// store, so a cycle costs what changed, not what exists.
//
// A session opened with `SessionOptions::snapshot_cache` takes the cached
// snapshot (vectors are moved, not copied) and patches it:
//   - the pods and PodGroups named in the store's change journal since the
//     cache was filled (ClusterState::journal_*) are derived again;
//   - so are the tasks the previous session moved (status, node), since
//     sessions change the snapshot but not the store;
//   - queues are re-read (they are few), the per-session fields of every job
//     (phase, fit errors) are reset, equivalence classes are renumbered;
//   - node and job totals are summed again for the nodes and jobs those
//     changes touch, in the same order a full build sums them.
// The patched snapshot equals a full build field by field; sessions with
// `check_invariants` verify that after every patch. Anything the journal
// cannot describe (a node or PriorityClass change, whole-map access, a dropped
// journal, another store or other scheduler names) makes the session build in
// full. When the session ends, the snapshot returns to the cache.
//
// Not thread-safe; one session at a time per cache (a second concurrent
// session builds in full without it).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/types.h"
#include "state/journal_cursor.h"

namespace basalt {

class SnapshotCache {
 public:
  SnapshotCache() = default;
  SnapshotCache(const SnapshotCache&) = delete;
  SnapshotCache& operator=(const SnapshotCache&) = delete;

  // Sessions that built their snapshot in full, and that patched the cached one.
  int64_t full_builds() const { return full_builds_; }
  int64_t patched_builds() const { return patched_builds_; }
  // Forgets the snapshot: the next session builds in full.
  void Clear() { valid_ = false; }

 private:
  friend class Session;

  bool valid_ = false;
  bool lent_ = false;  // a session holds the vectors now
  // What the snapshot was built from.
  JournalCursor journal_;
  std::set<std::string> scheduler_names_;
  std::string default_queue_;

  std::vector<TaskInfo> tasks_;
  // The previous task vector, emptied: a patch that adds or removes tasks
  // merges into it instead of allocating a new one.
  std::vector<TaskInfo> spare_tasks_;
  std::vector<JobInfo> jobs_;
  std::vector<NodeInfo> nodes_;
  std::vector<QueueInfo> queues_;
  std::map<std::string, NodeId, std::less<>> node_index_;
  std::map<std::string, QueueId, std::less<>> queue_index_;
  Resource total_resource_;
  // Our pods that name a PodGroup the snapshot lacks (pod key -> "ns/group"):
  // when that group appears, they are derived again to join it.
  std::map<std::string, std::string> orphans_;
  // What the last session changed in the snapshot.
  std::vector<TaskId> touched_tasks_;
  std::vector<NodeId> touched_nodes_;

  int64_t full_builds_ = 0;
  int64_t patched_builds_ = 0;
};

}  // namespace basalt
