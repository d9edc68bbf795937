// The vcjob (batch.volcano.sh/v1alpha1 Job) controller, as far as scheduling
// needs it: a PodGroup per job, pods `<job>-<task>-<index>` once the PodGroup is
// admitted, and the reaction to evicted pods (VOLCANO_SEMANTICS §9.1).
//
// The full lifecycle (every event/action pair, commands, TTL) is issue #5;
// here: PodEvicted with AbortJob / RestartJob / RestartTask / TerminateJob /
// CompleteJob policies, maxRetry, and re-creating lost pods otherwise.
#pragma once

#include <string>
#include <vector>

#include "state/cluster_state.h"

namespace basalt {

class JobController {
 public:
  // Brings every vcjob's PodGroup and pods in line with its spec and status.
  // Existing PodGroups and pods with the generated names are adopted.
  void Sync(ClusterState& state);
  // A pod of a job was deleted (evicted): applies the job's PodEvicted policy.
  // Called by the front end after it removed the pod from the store.
  void OnPodDeleted(ClusterState& state, const Pod& pod);

  // The PodGroup name of a job (Volcano's legacy name: the job's own name).
  static std::string PodGroupName(const VcJob& job) { return job.meta.name; }

 private:
  void KillJob(ClusterState& state, VcJob& job, bool soft);
  void UpdatePhase(ClusterState& state, VcJob& job);
};

}  // namespace basalt
