// The vcjob (batch.volcano.sh/v1alpha1 Job) controller (docs/controllers.md).
//
// What it owns:
//   * a PodGroup per job (`<job>-<uid>`; `<job>` without a uid) carrying minMember,
//     minTaskMember, queue, priorityClassName, minResources and the job's
//     annotations;
//   * pods `<job>-<task>-<index>` with Volcano's labels/annotations, created only
//     once the scheduler admitted the PodGroup (phase neither empty nor Pending);
//   * the job's lifecycle: events (PodEvicted, PodFailed, PodPending with a
//     timeout, TaskCompleted, Unknown, CommandIssued, internal OutOfSync) are
//     turned into actions by the task's, then the job's `policies`, and every
//     action runs through the phase machine (docs/controllers.md; job_policies.cc);
//   * `ttlSecondsAfterFinished`: a finished job is deleted with its pods.
//
// Time is injected: every entry point takes `now`, the simulated clock in
// seconds (the front end advances it; `basalt schedule` moves 1 s per world
// step). Nothing here reads a wall clock.
//
// Split: job_controller.cc holds syncing (PodGroup, pods, counts, TTL) and the
// request entry points; job_policies.cc holds policy resolution and the phase
// machine.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/well_known.h"
#include "state/cluster_state.h"
#include "state/journal_cursor.h"

namespace basalt {

// One request to the controller, as Volcano's informers build them.
struct JobRequest {
  std::string job_key;  // "ns/name"
  std::string task;     // task of the pod the event is about; may be empty
  std::string pod_key;  // pod the event is about; may be empty
  // PodEvicted, PodFailed, PodPending, PodRunning (internal), TaskCompleted,
  // Unknown, OutOfSync (internal), CommandIssued (internal).
  std::string event;
  // An explicit action (Commands); empty = resolved from the policies.
  std::string action;
  int32_t exit_code = 0;
  // The job version the pod was created for; unset = the current version.
  std::optional<int32_t> job_version;
};

// The outcome of policy resolution: the action, and a delay when the matching
// policy has a `timeout`.
struct ResolvedAction {
  std::string action;
  std::optional<int64_t> delay_seconds;
};

// An event on the job, as Volcano's job controller records it (reason
// ExecuteAction, type Normal): an action other than SyncJob starts, or one is
// put off by its policy's timeout.
struct JobActionEvent {
  std::string job_key;  // "ns/name"
  std::string job_uid;
  std::string message;  // "Start to execute action TerminateJob ", "Execute action X after 5m0s"
};

class JobController {
 public:
  // Brings every vcjob in line with its spec and status: runs the SyncJob
  // action of its phase (PodGroup, pods, phase checks), raises `Unknown` when
  // its PodGroup's phase turned Unknown, fires due delayed actions and deletes
  // jobs whose ttlSecondsAfterFinished expired. Pods and PodGroups with the
  // generated names that already exist are adopted.
  void Sync(ClusterState& state, int64_t now);

  // A job pod was deleted (evicted or killed): raises PodEvicted. Called after
  // the pod left the store.
  void OnPodDeleted(ClusterState& state, const Pod& pod, int64_t now);
  // A job pod changed phase in the world (`old_phase` -> `pod.phase`): Failed
  // raises PodFailed (with the exit code), Succeeded raises TaskCompleted when
  // every replica of its task succeeded, Running cancels the pod's delayed
  // PodPending actions.
  void OnPodPhaseChanged(ClusterState& state, const Pod& pod, const std::string& old_phase,
                         int64_t now);
  // A bus Command targeting a Job: its action runs with event CommandIssued.
  void OnCommand(ClusterState& state, const Command& command, int64_t now);

  // Resolves and executes one request (delayed when the policy has a timeout).
  void Handle(ClusterState& state, const JobRequest& request, int64_t now);

  // The action events of the requests handled since the last call, oldest
  // first. Kept only once `RecordActionEvents` turned them on (basalt serve
  // writes them; the offline front ends have nobody to read them).
  void RecordActionEvents(bool on) { record_action_events_ = on; }
  std::vector<JobActionEvent> TakeActionEvents() { return std::exchange(action_events_, {}); }

  // Policy resolution (docs/controllers.md): explicit action; internal events and stale
  // versions => SyncJob; task policies, then job policies (first match of the
  // event or `*`; PodPending only with a timeout; `exitCode` matches PodFailed
  // with that code); otherwise SyncJob.
  static ResolvedAction Resolve(const VcJob& job, const JobRequest& request);

  // Executes `action` on `job` in its current phase (the phase machine).
  // `request` names the target of RestartTask / RestartPod.
  static void Execute(ClusterState& state, VcJob& job, const std::string& action,
                      const JobRequest& request, int64_t now);

  // Test helper for the gang-on-eviction guarantee: jobs whose PodEvicted
  // policy is AbortJob or RestartJob for every task but that have some pods
  // running (or bound) and fewer running + bound + finished pods than
  // minAvailable. Must be empty at the end of every world step.
  static std::vector<std::string> HalfRunningGangJobs(const ClusterState& state);

  // The name of the PodGroup the controller creates for a job: Volcano's
  // `<job>-<uid>`; a job without a uid (a manifest for `basalt schedule` or
  // `simulate`) gets the job's own name.
  static std::string PodGroupName(const VcJob& job) {
    return job.meta.uid.empty() ? job.meta.name : job.meta.name + "-" + job.meta.uid;
  }

 private:
  struct Delayed {
    int64_t due = 0;
    int32_t version = 0;  // the job version when scheduled; a restart voids it
    JobRequest request;
    std::string action;
  };
  void FireDelayed(ClusterState& state, int64_t now);
  void SyncOne(ClusterState& state, const std::string& key, VcJob& job, int64_t now);
  void CancelDelayed(const std::string& job_key, const std::string& pod_key);
  // Raises PodPending once per pending pod of jobs that have a timeout policy.
  void RaisePodPending(ClusterState& state, const VcJob& job, int64_t now);

  void RecordActionEvent(const VcJob& job, std::string message);

  std::vector<Delayed> delayed_;
  bool record_action_events_ = false;
  std::vector<JobActionEvent> action_events_;
  // The last PodGroup phase seen per job, to raise `Unknown` on the change.
  std::map<std::string, PodGroupPhase> pg_phase_seen_;
  // Pods whose PodPending was raised: pod key -> "<job version>".
  std::map<std::string, std::string> pending_raised_;

  // Every job is synced on every Sync. A sync that changed nothing (no store
  // change, same phase and version) would change nothing again until the job,
  // one of its pods or its PodGroup changes, which the store's journal shows:
  // such quiet jobs are skipped until then. (A week of simulation at 1,000
  // nodes has thousands of jobs, most of them waiting or finished.)
  struct Quiet {
    std::string phase;
    int32_t version = 0;
  };
  void ForgetJobsChangedSinceLastSync(const ClusterState& state);
  std::map<std::string, Quiet> quiet_;  // by job key
  JournalCursor journal_;
  uint64_t job_map_version_ = 0;  // after this controller's own mutable_jobs()
};

// Shared by job_controller.cc and job_policies.cc.
namespace job_internal {

// std::string, not const char*: the annotation maps look them up by
// std::string, and a literal would build a temporary key on every lookup.
inline const std::string kTaskSpec = "volcano.sh/task-spec";
inline const std::string kTaskIndex = "volcano.sh/task-index";
inline const std::string kJobName = "volcano.sh/job-name";
inline const std::string kJobNamespace = "volcano.sh/job-namespace";
inline const std::string kQueueName = "volcano.sh/queue-name";
inline const std::string kJobVersion = "volcano.sh/job-version";
inline const std::string kTemplateUid = "volcano.sh/template-uid";
inline const std::string kRetryCount = "volcano.sh/job-retry-count";

// Completed, Terminated, Failed (and Aborted): nothing is re-created.
bool IsFinal(const std::string& phase);
int32_t TaskMinAvailable(const JobTask& t);
int32_t JobMinAvailable(const VcJob& job);
int32_t TotalReplicas(const VcJob& job);
// A new job made from a template (a JobFlow's JobTemplate, a CronJob's
// jobTemplate) starts from a fresh status: whatever status the template held
// is not the new job's.
void ResetJobStatus(VcJob* job);
// Keys of the job's pods (by the job-name annotation), in key order.
std::vector<std::string> JobPodKeys(const ClusterState& state, const VcJob& job);
// The key of the job's PodGroup: `ns/<PodGroupName>`, or, when only a group
// named after the job exists (made before Volcano v1.5), that one.
std::string JobPodGroupKey(const ClusterState& state, const VcJob& job);
std::string PodTask(const Pod& pod);

struct PodCounts {
  int32_t pending = 0, running = 0, succeeded = 0, failed = 0, terminating = 0;
  std::map<std::string, int32_t> succeeded_by_task;
};
PodCounts CountPods(const ClusterState& state, const VcJob& job);

// Deletes the job's pods (retaining Succeeded/Failed ones when `soft`, and
// always at the last retry), bumps status.version and deletes the PodGroup.
void KillJob(ClusterState& state, VcJob& job, bool soft);
// Deletes the pods of one task (RestartTask) or one pod (RestartPod).
void KillTarget(ClusterState& state, VcJob& job, const std::string& action,
                const JobRequest& request);
// Creates the PodGroup and, once it is admitted, the missing pods; returns the
// keys of pods it created.
std::vector<std::string> SyncJobObjects(ClusterState& state, VcJob& job);
void SetPhase(VcJob& job, const std::string& phase, int64_t now);
// A Go duration (api/go_duration.h: "30s", "1h30m", "1.5h") in whole seconds,
// rounded up; nullopt when malformed or negative.
std::optional<int64_t> ParseDurationSeconds(const std::string& text);

}  // namespace job_internal

}  // namespace basalt
