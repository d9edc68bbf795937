// SnapshotCache: keeps one session's snapshot for the next session on the same
// store, so a cycle costs what changed, not what exists.
//
// The cache owns the snapshot (framework/snapshot.h). A session opened with
// `SessionOptions::snapshot_cache` borrows it (`Lend`), changes it in place,
// and gives it back with what it changed (`GiveBack`). Lending patches it:
//   - the pods and PodGroups named in the store's change journal since the
//     snapshot was lent last (ClusterState::journal_*) are derived again;
//   - so are the tasks the previous session moved (status, node), since
//     sessions change the snapshot but not the store;
//   - queues are re-read (they are few), the per-session fields of every job
//     (phase, fit errors) are reset, equivalence classes are renumbered;
//   - node and job totals are summed again for the nodes and jobs those
//     changes touch, in the same order a full build sums them.
// The patched snapshot equals a full build; sessions with `check_invariants`
// verify that after every patch. Anything the journal cannot describe (a node
// or PriorityClass change, whole-map access, a dropped journal, another store
// or other scheduler names) makes the cache build in full.
//
// Not thread-safe; one session at a time per cache (a second concurrent
// session builds in full without it).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "framework/snapshot.h"
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

  // Whether a session holds the snapshot now.
  bool lent() const { return lent_; }
  // The snapshot of `state` for a session: the cached one patched when it is
  // usable, else a full build. `patched` tells which.
  Snapshot& Lend(const ClusterState& state, const SnapshotScope& scope, bool* patched);
  // The lent snapshot comes back, with the tasks and nodes the session changed.
  void GiveBack(std::vector<TaskId> touched_tasks, std::vector<NodeId> touched_nodes);

 private:
  // Whether the cached snapshot can be patched to `state` (else a full build is due).
  bool Usable(const ClusterState& state, const SnapshotScope& scope) const;
  // What the store's journal says changed since the snapshot was lent last,
  // and what the last session changed.
  SnapshotChanges TakeChanges(const ClusterState& state);

  bool valid_ = false;
  bool lent_ = false;
  // What the snapshot was built from.
  JournalCursor journal_;
  std::set<std::string> scheduler_names_;
  std::string default_queue_;

  Snapshot snapshot_;
  // The previous task vector, emptied: a patch that adds or removes tasks
  // merges into it instead of allocating a new one.
  std::vector<TaskInfo> spare_tasks_;
  // What the last session changed in the snapshot.
  std::vector<TaskId> touched_tasks_;
  std::vector<NodeId> touched_nodes_;

  int64_t full_builds_ = 0;
  int64_t patched_builds_ = 0;
};

}  // namespace basalt
