#include "controllers/cronjob_controller.h"

#include <algorithm>
#include <utility>

#include "api/log.h"
#include "controllers/job_controller.h"

namespace basalt {
namespace {

bool IsFinished(const std::string& phase) {
  return phase == "Completed" || phase == "Failed" || phase == "Terminated";
}

// An active entry and a job are the same when the names match and, where
// both have one, the uids too.
bool SameJob(const CronJobActiveRef& ref, const CronJobChild& job) {
  return ref.name == job.name && (ref.uid.empty() || job.uid.empty() || ref.uid == job.uid);
}

bool RemoveActive(CronJob& cj, const CronJobChild& job) {
  const size_t before = cj.active.size();
  std::erase_if(cj.active, [&](const CronJobActiveRef& r) { return SameJob(r, job); });
  return cj.active.size() != before;
}

void Event(CronJobActions& a, const char* type, const char* reason, std::string message) {
  a.events.push_back({type, reason, std::move(message)});
}

// Deletes the oldest of `jobs` beyond `limit` (creation time, then name).
void TrimHistory(CronJob& cj, std::vector<const CronJobChild*> jobs,
                 const std::optional<int32_t>& limit, CronJobActions& a) {
  if (!limit || static_cast<int64_t>(jobs.size()) <= *limit) return;
  std::sort(jobs.begin(), jobs.end(), [](const CronJobChild* x, const CronJobChild* y) {
    return x->creation_time != y->creation_time ? x->creation_time < y->creation_time
                                                : x->name < y->name;
  });
  for (size_t i = 0; i < jobs.size() - *limit; ++i) {
    a.deletes.push_back(jobs[i]->name);
    RemoveActive(cj, *jobs[i]);
    Event(a, "Normal", "SuccessfulDelete", "Deleted job " + jobs[i]->name);
    a.status_changed = true;
  }
}

// Step 1.
void ProcessFinished(CronJob& cj, const std::vector<CronJobChild>& children, CronJobActions& a) {
  std::vector<const CronJobChild*> succeeded, failed;
  for (const CronJobChild& job : children) {
    if (!job.owned || !IsFinished(job.phase)) continue;
    if (RemoveActive(cj, job)) {
      Event(a, "Normal", "SawCompletedJob",
            "Saw completed job: " + job.name + " in active, remove");
      a.status_changed = true;
    }
    if (job.phase == "Completed") {
      if (!cj.last_successful_time || job.finish_time > *cj.last_successful_time) {
        cj.last_successful_time = job.finish_time;
        a.status_changed = true;
      }
      succeeded.push_back(&job);
    } else if (job.phase == "Failed") {
      failed.push_back(&job);
    }
  }
  TrimHistory(cj, succeeded, cj.successful_jobs_history_limit, a);
  TrimHistory(cj, failed, cj.failed_jobs_history_limit, a);
}

// Step 2.
void DropStaleActive(CronJob& cj, const std::vector<CronJobChild>& children, CronJobActions& a) {
  std::vector<CronJobActiveRef> kept;
  for (const CronJobActiveRef& ref : cj.active) {
    const bool exists = std::any_of(children.begin(), children.end(), [&](const CronJobChild& c) {
      return c.owned && SameJob(ref, c);
    });
    if (exists) {
      kept.push_back(ref);
    } else {
      Event(a, "Warning", "StaleReference", "Active job \"" + ref.name + "\" no longer exists");
      a.status_changed = true;
    }
  }
  cj.active = std::move(kept);
}

// Step 4: the most recent time due at `now`, as Volcano computes it (from the
// first two times due, their interval gives how many were missed; only the
// last is made).
Result<std::optional<int64_t>> MostRecentDue(const CronJob& cj, const ZonedSchedule& zs,
                                             int64_t now) {
  int64_t earliest = cj.last_schedule_time.value_or(cj.meta.creation_timestamp);
  if (cj.starting_deadline_seconds)
    earliest = std::max(earliest, now - *cj.starting_deadline_seconds);
  const std::optional<int64_t> t1 = NextCronTime(zs.schedule, zs.zone, earliest);
  if (!t1 || now < *t1) return std::optional<int64_t>();
  const std::optional<int64_t> t2 = NextCronTime(zs.schedule, zs.zone, *t1);
  if (!t2 || now < *t2) return t1;
  const int64_t interval = *t2 - *t1;
  if (interval < 1)
    return Status::InvalidArgument("time difference between two schedules is less than 1 second");
  const int64_t missed = (now - *t1) / interval + 1;
  std::optional<int64_t> most_recent;
  for (std::optional<int64_t> t = NextCronTime(zs.schedule, zs.zone, *t1 + (missed - 2) * interval);
       t && *t <= now; t = NextCronTime(zs.schedule, zs.zone, *t)) {
    most_recent = t;
  }
  return most_recent;
}

const CronJobChild* FindChild(const std::vector<CronJobChild>& children, const std::string& name) {
  for (const CronJobChild& c : children) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Steps 5-7 for the time due.
void StartDue(CronJob& cj, const std::vector<CronJobChild>& children, int64_t due,
              CronJobActions& a) {
  const std::string name = CronJobJobName(cj, due);
  const bool is_active = std::any_of(cj.active.begin(), cj.active.end(),
                                     [&](const CronJobActiveRef& r) { return r.name == name; });
  if (is_active || cj.last_schedule_time == due) return;
  if (cj.concurrency_policy == "Forbid" && !cj.active.empty()) {
    Event(a, "Warning", "ForbidConcurrent",
          "Skipping job creation because another job is already running");
    return;
  }
  if (cj.concurrency_policy == "Replace" && !cj.active.empty()) {
    Event(a, "Warning", "ReplaceConcurrent", "Replacing active job for CronJob");
    for (const CronJobActiveRef& r : cj.active) {
      a.deletes.push_back(r.name);
      Event(a, "Normal", "SuccessfulDelete", "Deleted job " + r.name);
    }
    cj.active.clear();
    a.status_changed = true;
  }
  if (const CronJobChild* existing = FindChild(children, name)) {
    if (!existing->owned) {
      Event(a, "Warning", "ForeignJob", "Job " + name + " exists but is not owned by this CronJob");
      return;
    }
    if (IsFinished(existing->phase)) return;
    cj.active.push_back({name, cj.meta.namespace_, existing->uid});  // adopted
  } else {
    a.create_for = due;
    cj.active.push_back({name, cj.meta.namespace_, ""});
    Event(a, "Normal", "SuccessfulCreate", "Created job " + name);
  }
  cj.last_schedule_time = due;
  a.status_changed = true;
}

bool OwnedBy(const VcJob& job, const CronJob& cj) {
  for (const OwnerReference& o : job.meta.owner_references) {
    if (o.controller && o.kind == "CronJob" && o.name == cj.meta.name &&
        (o.uid.empty() || cj.meta.uid.empty() || o.uid == cj.meta.uid)) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<ZonedSchedule> CronJobSchedule(const CronJob& cj) {
  ZonedSchedule zs;
  if (cj.time_zone) {
    BASALT_ASSIGN_OR_RETURN(zs.zone, TimeZone::Load(*cj.time_zone));
  }
  BASALT_ASSIGN_OR_RETURN(zs.schedule, ParseCronSchedule(cj.schedule));
  return zs;
}

CronJobActions ReconcileCronJob(CronJob& cj, const std::vector<CronJobChild>& children,
                                int64_t now) {
  CronJobActions a;
  ProcessFinished(cj, children, a);
  DropStaleActive(cj, children, a);
  if (cj.suspend) return a;
  auto zs = CronJobSchedule(cj);
  if (!zs.ok()) {
    Event(a, "Warning", "InvalidSchedule", "invalid schedule: " + zs.status().message());
    return a;
  }
  auto due = MostRecentDue(cj, *zs, now);
  if (!due.ok()) {
    Event(a, "Warning", "InvalidSchedule",
          "Error getting schedule time: " + due.status().message());
    return a;
  }
  if (*due) StartDue(cj, children, **due, a);
  return a;
}

std::string CronJobJobName(const CronJob& cj, int64_t scheduled) {
  const int64_t minutes = scheduled >= 0 ? scheduled / 60 : -((-scheduled + 59) / 60);
  return cj.meta.name + "-" + std::to_string(minutes);
}

VcJob JobFromCronJob(const CronJob& cj, int64_t scheduled, int64_t now) {
  VcJob job = cj.job_template;
  job.meta.name = CronJobJobName(cj, scheduled);
  job.meta.namespace_ = cj.meta.namespace_;
  job.meta.uid.clear();
  TimeZone zone;
  if (cj.time_zone) {
    if (auto z = TimeZone::Load(*cj.time_zone); z.ok()) zone = *z;
  }
  job.meta.annotations[kCronJobScheduledTimestamp] = FormatRfc3339(scheduled, zone);
  job.meta.owner_references = {
      {"batch.volcano.sh/v1alpha1", "CronJob", cj.meta.name, cj.meta.uid, true}};
  job.meta.creation_timestamp = now;
  job.meta.source = cj.meta.source;
  job_internal::ResetJobStatus(&job);
  return job;
}

std::vector<CronJobChild> CronJobChildren(const ClusterState& state, const CronJob& cj) {
  std::vector<CronJobChild> children;
  for (const auto& [job_key, job] : state.jobs()) {
    if (job.meta.namespace_ != cj.meta.namespace_) continue;
    const bool owned = OwnedBy(job, cj);
    if (!owned && job.meta.name.rfind(cj.meta.name + "-", 0) != 0) continue;
    children.push_back({job.meta.name, job.meta.uid, job.phase, job.meta.creation_timestamp,
                        job.last_transition_time, owned});
  }
  return children;
}

void DeleteCronJobChild(ClusterState& state, const std::string& key) {
  const VcJob* job = state.FindJob(key);
  if (!job) return;
  for (const std::string& pod_key : job_internal::JobPodKeys(state, *job)) state.DeletePod(pod_key);
  state.DeletePodGroup(job->meta.namespace_ + "/" + JobController::PodGroupName(*job));
  state.DeleteJob(key);
}

bool CronJobController::Sync(ClusterState& state, int64_t now) {
  bool changed = false;
  for (auto& [key, cj] : state.mutable_cron_jobs()) {
    CronJobActions a = ReconcileCronJob(cj, CronJobChildren(state, cj), now);
    for (const CronJobEvent& e : a.events) {
      Log("controllers").debug("cronjob={} reason={} msg=\"{}\"", key, e.reason, e.message);
    }
    for (const std::string& name : a.deletes) {
      DeleteCronJobChild(state, cj.meta.namespace_ + "/" + name);
      changed = true;
    }
    if (a.create_for) {
      state.UpsertJob(JobFromCronJob(cj, *a.create_for, now));
      changed = true;
    }
    changed |= a.status_changed;
  }
  return changed;
}

}  // namespace basalt
