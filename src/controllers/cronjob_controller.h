// The CronJob controller (batch.volcano.sh/v1alpha1 CronJob; Volcano's
// pkg/controllers/cronjob): makes a vcjob from the CronJob's template at each
// time its schedule names, and keeps its status.
//
// One reconcile of a CronJob at time `now` (seconds since the epoch, from the
// caller's clock: the simulated clock of `schedule`/`simulate`, the wall clock
// of `serve`), given the jobs it owns:
//   1. finished jobs (Completed, Failed, Terminated) leave status.active; a
//      Completed one moves lastSuccessfulTime to its finish time when later;
//      the oldest Completed beyond successfulJobsHistoryLimit and the oldest
//      Failed beyond failedJobsHistoryLimit are deleted (creation time, then name);
//   2. active entries whose job no longer exists are dropped;
//   3. suspended: nothing more;
//   4. the schedule (in spec.timeZone, UTC when absent) gives the most recent
//      time due since lastScheduleTime (or the creation) — not before
//      now - startingDeadlineSeconds when that is set; none: nothing more;
//   5. the job of that time, `<cronjob>-<minutes since the epoch>`, already
//      active, or that time already lastScheduleTime: nothing more;
//   6. concurrencyPolicy Forbid with active jobs: nothing more; Replace:
//      the active jobs are deleted;
//   7. the job is made (the template's labels, annotations and spec; the
//      annotation volcano.sh/cronjob-scheduled-timestamp; the CronJob as
//      controller owner), added to active; lastScheduleTime = that time.
//      A job of that name not owned by the CronJob is left alone.
// Events name what happened (SuccessfulCreate, SuccessfulDelete,
// SawCompletedJob, ForbidConcurrent, ReplaceConcurrent, InvalidSchedule, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/cron_schedule.h"
#include "api/cronjob.h"
#include "state/cluster_state.h"

namespace basalt {

// What the controller knows of one job the CronJob owns.
struct CronJobChild {
  std::string name, uid, phase;
  int64_t creation_time = 0;
  int64_t finish_time = 0;  // when the phase was reached
  bool owned = true;        // false: a job of that name another owner made
};

struct CronJobEvent {
  std::string type;  // Normal | Warning
  std::string reason, message;
};

struct CronJobActions {
  std::vector<std::string> deletes;   // job names, in order
  std::optional<int64_t> create_for;  // make the job of this scheduled time
  std::vector<CronJobEvent> events;
  bool status_changed = false;
};

// Steps 1-7 on `cj` (its status is updated as if every action succeeds).
// `children` are the jobs of the CronJob's namespace that it owns, plus, when
// present, the job named as the one due (owned or not).
CronJobActions ReconcileCronJob(CronJob& cj, const std::vector<CronJobChild>& children,
                                int64_t now);

// "<cronjob>-<scheduled time in minutes since the epoch>".
std::string CronJobJobName(const CronJob& cj, int64_t scheduled);

// The vcjob made for `scheduled` at `now`.
VcJob JobFromCronJob(const CronJob& cj, int64_t scheduled, int64_t now);

// The schedule with its time zone; the error is the one Volcano's controller
// reports in its InvalidSchedule / InvalidTimeZone events.
struct ZonedSchedule {
  CronSchedule schedule;
  TimeZone zone;
};
Result<ZonedSchedule> CronJobSchedule(const CronJob& cj);

// The jobs of `cj`'s namespace it owns, and those named like its jobs
// (`<cronjob>-...`) that another owner made (owned = false).
std::vector<CronJobChild> CronJobChildren(const ClusterState& state, const CronJob& cj);

// Deletes a job with what the API server's garbage collector takes with it
// (its pods and PodGroup).
void DeleteCronJobChild(ClusterState& state, const std::string& job_key);

class CronJobController {
 public:
  // Every CronJob of the store (key order); jobs are created and deleted in
  // the store. Returns whether anything changed.
  bool Sync(ClusterState& state, int64_t now);
};

}  // namespace basalt
