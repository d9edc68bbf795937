// batch.volcano.sh/v1alpha1 CronJob: Volcano Jobs made on a cron schedule
// (the controller is controllers/cronjob_controller.h; docs/controllers.md).
//
//   kind: CronJob
//   spec:
//     schedule: "*/10 * * * *"        # api/cron_schedule.h
//     timeZone: Europe/Berlin          # optional; UTC when absent
//     concurrencyPolicy: Allow         # Allow | Forbid | Replace
//     startingDeadlineSeconds: 120     # optional
//     suspend: false
//     successfulJobsHistoryLimit: 3    # the CRD's defaults
//     failedJobsHistoryLimit: 1
//     jobTemplate: {metadata: {labels: ...}, spec: <a vcjob spec>}
//   status: {active: [{name, namespace, uid}], lastScheduleTime, lastSuccessfulTime}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

struct CronJobActiveRef {
  std::string name, namespace_, uid;
  bool operator==(const CronJobActiveRef&) const = default;
};

struct CronJob {
  ObjectMeta meta;
  std::string schedule;
  std::optional<std::string> time_zone;
  std::optional<int64_t> starting_deadline_seconds;
  std::string concurrency_policy = "Allow";
  bool suspend = false;
  std::optional<int32_t> successful_jobs_history_limit = 3;
  std::optional<int32_t> failed_jobs_history_limit = 1;
  // jobTemplate: its metadata's labels and annotations, and its spec decoded
  // as a vcjob (the name is the CronJob's until a job is made).
  VcJob job_template;
  // Status (seconds since the epoch).
  std::vector<CronJobActiveRef> active;
  std::optional<int64_t> last_schedule_time;
  std::optional<int64_t> last_successful_time;
};

// The annotation a made job carries: its scheduled time, RFC 3339 in the
// CronJob's time zone.
inline constexpr char kCronJobScheduledTimestamp[] = "volcano.sh/cronjob-scheduled-timestamp";

// Decodes a CronJob document (apiVersion and kind already checked). Structural
// checks only (types, concurrencyPolicy, limits >= 0, the template as a vcjob);
// the schedule and time zone are admission's (admission/cronjob_rules.h): a
// CronJob whose schedule cannot be read is decoded and never runs, as in
// Volcano's controller.
Status DecodeCronJob(const YAML::Node& doc, CronJob* out);

}  // namespace basalt
