// Policy resolution and the vcjob phase machine (docs/controllers.md,
// Volcano's pkg/controllers/job/state). One function per concern:
//   Resolve  — request -> action (and delay);
//   Execute  — (phase, action) -> kills, counters, next phase.
#include "api/go_duration.h"
#include "controllers/job_controller.h"

namespace basalt {
namespace job_internal {

void SetPhase(VcJob& job, const std::string& phase, int64_t now) {
  if (job.phase == phase) return;
  job.phase = phase;
  job.last_transition_time = now;  // ttlSecondsAfterFinished counts from here
}

std::optional<int64_t> ParseDurationSeconds(const std::string& text) {
  Result<int64_t> nanos = ParseGoDuration(text, "timeout");
  // Negative timeouts were never accepted: like an invalid one, no delay.
  if (!nanos.ok() || *nanos < 0) return std::nullopt;
  // A partial second still waits a world step.
  return *nanos / kNanosPerSecond + (*nanos % kNanosPerSecond != 0 ? 1 : 0);
}

}  // namespace job_internal

using namespace job_internal;  // NOLINT: this file implements them

namespace {

bool IsInternalEvent(const std::string& event) {
  return event == "OutOfSync" || event == "PodRunning";
}

// First policy of `policies` matching the request, or nullptr.
const LifecyclePolicy* Match(const std::vector<LifecyclePolicy>& policies, const JobRequest& req) {
  for (const auto& p : policies) {
    for (const auto& e : p.events) {
      if (e != req.event && e != "*") continue;
      // PodPending is raised for every pod added; only a policy that waits
      // (timeout) reacts to it, else every job would act on its own creation.
      if (req.event == "PodPending" && !p.timeout) continue;
      return &p;
    }
    // exitCode 0 is refused by admission, so this only matches failed pods.
    if (p.exit_code && req.event == "PodFailed" && *p.exit_code == req.exit_code) return &p;
  }
  return nullptr;
}

bool IsPending(const PodCounts& c) { return c.pending > 0 || c.running > 0 || c.terminating > 0; }

// Pending and Running share the action table; they differ in SyncJob's check.
void ExecuteActive(ClusterState& state, VcJob& job, const std::string& action,
                   const JobRequest& req, int64_t now) {
  if (action == "RestartJob") {
    KillJob(state, job, /*soft=*/false);
    ++job.retry_count;
    SetPhase(job, "Restarting", now);
  } else if (action == "RestartTask" || action == "RestartPod") {
    KillTarget(state, job, action, req);
    ++job.retry_count;
    SetPhase(job, "Restarting", now);
  } else if (action == "AbortJob") {
    KillJob(state, job, /*soft=*/true);
    SetPhase(job, "Aborting", now);
  } else if (action == "TerminateJob") {
    KillJob(state, job, /*soft=*/true);
    SetPhase(job, "Terminating", now);
  } else if (action == "CompleteJob") {
    KillJob(state, job, /*soft=*/true);
    SetPhase(job, "Completing", now);
  } else {  // SyncJob, ResumeJob and anything else
    SyncJobObjects(state, job);
    PodCounts c = CountPods(state, job);
    const int32_t min_available = JobMinAvailable(job);
    if (job.phase == "Pending") {
      if (min_available <= c.running + c.succeeded + c.failed) SetPhase(job, "Running", now);
      return;
    }
    const int32_t replicas = TotalReplicas(job);
    if (replicas == 0) return;  // scaled to zero: keep the phase
    if (job.min_success && c.succeeded >= *job.min_success) {
      SetPhase(job, "Completed", now);
      return;
    }
    if (c.succeeded + c.failed == replicas) {
      int32_t task_min_sum = 0;
      for (const auto& t : job.tasks) task_min_sum += TaskMinAvailable(t);
      if (min_available >= task_min_sum) {
        for (const auto& t : job.tasks) {
          auto it = c.succeeded_by_task.find(t.name);
          if (it != c.succeeded_by_task.end() && it->second < TaskMinAvailable(t)) {
            SetPhase(job, "Failed", now);
            return;
          }
        }
      }
      if (job.min_success && c.succeeded < *job.min_success) {
        SetPhase(job, "Failed", now);
      } else if (c.succeeded >= min_available) {
        SetPhase(job, "Completed", now);
      } else {
        SetPhase(job, "Failed", now);
      }
      return;
    }
    if (c.pending > replicas - min_available) SetPhase(job, "Pending", now);
  }
}

}  // namespace

ResolvedAction JobController::Resolve(const VcJob& job, const JobRequest& req) {
  if (!req.action.empty()) return {req.action, std::nullopt};
  if (IsInternalEvent(req.event)) return {"SyncJob", std::nullopt};
  if (req.job_version && *req.job_version != job.version)
    return {"SyncJob", std::nullopt};  // stale pod
  const LifecyclePolicy* policy = nullptr;
  if (!req.task.empty()) {
    for (const auto& t : job.tasks) {
      if (t.name == req.task) {
        policy = Match(t.policies, req);
        break;
      }
    }
  }
  if (!policy) policy = Match(job.policies, req);
  if (!policy) return {"SyncJob", std::nullopt};
  ResolvedAction out{policy->action, std::nullopt};
  if (policy->timeout) {
    if (auto d = ParseDurationSeconds(*policy->timeout)) out.delay_seconds = *d;
  }
  if (req.event == "PodPending" && !out.delay_seconds) return {"SyncJob", std::nullopt};
  return out;
}

void JobController::Execute(ClusterState& state, VcJob& job, const std::string& action,
                            const JobRequest& req, int64_t now) {
  const std::string phase = job.phase;  // a copy: the branches change job.phase
  if (phase == "Pending" || phase == "Running") {
    ExecuteActive(state, job, action, req, now);
  } else if (phase == "Restarting") {
    // Any real action kills again; then the restart completes once the old
    // pods are gone, or fails when the retries are used up.
    if (action == "RestartTask" || action == "RestartPod") {
      KillTarget(state, job, action, req);
    } else if (action != "SyncJob") {
      KillJob(state, job, /*soft=*/false);
    }
    PodCounts c = CountPods(state, job);
    if (job.retry_count >= job.max_retry) {
      KillJob(state, job, /*soft=*/true);
      SetPhase(job, "Failed", now);
    } else if (TotalReplicas(job) - c.terminating >= JobMinAvailable(job)) {
      SetPhase(job, "Pending", now);
    }
  } else if (phase == "Aborting" || phase == "Aborted") {
    KillJob(state, job, /*soft=*/true);
    if (action == "ResumeJob") {
      ++job.retry_count;
      SetPhase(job, "Restarting", now);
    } else if (phase == "Aborting" && !IsPending(CountPods(state, job))) {
      SetPhase(job, "Aborted", now);
    }
  } else if (phase == "Completing" || phase == "Terminating") {
    KillJob(state, job, /*soft=*/true);
    if (!IsPending(CountPods(state, job)))
      SetPhase(job, phase == "Completing" ? "Completed" : "Terminated", now);
  } else {
    // Completed, Terminated, Failed, or a phase we do not know: final, and
    // nothing is left running.
    KillJob(state, job, /*soft=*/true);
  }
}

}  // namespace basalt
