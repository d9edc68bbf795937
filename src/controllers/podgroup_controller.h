// The PodGroup controller for bare pods (docs/controllers.md): every pod of
// ours without a `scheduling.k8s.io/group-name` annotation gets a PodGroup of
// one (`podgroup-<controlling owner UID, else pod UID>`), and the annotation;
// the group of a ReplicaSet or StatefulSet scaled to zero replicas is deleted.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "state/cluster_state.h"
#include "state/journal_cursor.h"

namespace basalt {

// The name prefix of the PodGroup made for a pod that has none (Volcano's).
inline constexpr const char* kBarePodGroupPrefix = "podgroup-";

class PodGroupController {
 public:
  explicit PodGroupController(std::set<std::string> scheduler_names)
      : scheduler_names_(std::move(scheduler_names)) {}
  // Looks at the pods changed since the last Sync on the same store (the
  // store's change journal), or at every pod when the journal cannot tell.
  void Sync(ClusterState& state);

 private:
  void SyncPod(ClusterState& state, const std::string& key, const Pod& pod);
  void DropGroupsOfIdleWorkloads(ClusterState& state);

  std::set<std::string> scheduler_names_;
  JournalCursor journal_;  // where the last Sync left the store's journal
};

}  // namespace basalt
