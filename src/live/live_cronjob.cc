// The CronJob controller of `basalt serve` (batch.volcano.sh/v1alpha1), part
// of LiveControllers (live/live_controllers.h): the decisions of the offline
// controller (controllers/cronjob_controller.h) at the wall clock, their
// effects sent to the API server.
//
// Per CronJob, each pass (the leader only; the CronJob as the informers last
// saw it, status included):
//   - being deleted: nothing (its jobs go with it through their owner reference);
//   - the jobs to delete (history limits, Replace) leave the store with their
//     pods and PodGroups, and LiveControllers writes the deletes;
//   - a job due gets `POST .../jobs`: the template's metadata and spec as
//     stored, the scheduled-time annotation, the CronJob as controller owner;
//     while that create is on its way (not yet seen by the informers) the job
//     counts as existing, so it is not asked for twice;
//   - the status (active, lastScheduleTime, lastSuccessfulTime) is merge-patched
//     on cronjobs/NAME/status when the reconcile changed it.
#include <iterator>

#include "api/cron_schedule.h"
#include "api/log.h"
#include "controllers/cronjob_controller.h"
#include "live/live_controllers.h"
#include "live/render.h"

namespace basalt {
namespace {

std::string CronJobsPath(const std::string& ns) {
  return "/apis/batch.volcano.sh/v1alpha1/namespaces/" + ns + "/cronjobs";
}

std::string Rfc3339Utc(int64_t t) { return FormatRfc3339(t, TimeZone()); }

// The job a CronJob makes for `scheduled`, from its template as the server
// has it (fields basalt does not model are kept).
Json CronJobJobJson(const CronJob& cj, const Json& server, int64_t scheduled) {
  const Json* tmpl = nullptr;
  if (server.is_object() && server.contains("spec") && server["spec"].is_object() &&
      server["spec"].contains("jobTemplate") && server["spec"]["jobTemplate"].is_object()) {
    tmpl = &server["spec"]["jobTemplate"];
  }
  Json meta = {{"name", CronJobJobName(cj, scheduled)}, {"namespace", cj.meta.namespace_}};
  Json annotations = Json::object();
  if (tmpl != nullptr && tmpl->contains("metadata") && (*tmpl)["metadata"].is_object()) {
    const Json& tm = (*tmpl)["metadata"];
    if (tm.contains("labels") && tm["labels"].is_object()) meta["labels"] = tm["labels"];
    if (tm.contains("annotations") && tm["annotations"].is_object())
      annotations = tm["annotations"];
  }
  annotations[kCronJobScheduledTimestamp] =
      JobFromCronJob(cj, scheduled, scheduled).meta.annotations.at(kCronJobScheduledTimestamp);
  meta["annotations"] = std::move(annotations);
  meta["ownerReferences"] = Json::array({{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                                          {"kind", "CronJob"},
                                          {"name", cj.meta.name},
                                          {"uid", cj.meta.uid},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}});
  Json spec = tmpl != nullptr && tmpl->contains("spec") && (*tmpl)["spec"].is_object()
                  ? (*tmpl)["spec"]
                  : Json::object();
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)}};
}

Json CronJobStatusJson(const CronJob& cj) {
  Json active = Json::array();
  for (const CronJobActiveRef& r : cj.active) {
    Json ref = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                {"kind", "Job"},
                {"name", r.name},
                {"namespace", r.namespace_}};
    if (!r.uid.empty()) ref["uid"] = r.uid;
    active.push_back(std::move(ref));
  }
  Json status = {{"active", std::move(active)}};
  status["lastScheduleTime"] =
      cj.last_schedule_time ? Json(Rfc3339Utc(*cj.last_schedule_time)) : Json();
  status["lastSuccessfulTime"] =
      cj.last_successful_time ? Json(Rfc3339Utc(*cj.last_successful_time)) : Json();
  return status;
}

}  // namespace

void LiveControllers::SyncCronJobs(int64_t now, std::vector<Write>* writes) {
  const auto sent_now = std::chrono::steady_clock::now();
  for (auto it = cron_job_creates_.begin(); it != cron_job_creates_.end();) {
    const bool seen = state_->FindJob(it->first) != nullptr;
    it = seen || sent_now - it->second >= options_.in_flight_ttl ? cron_job_creates_.erase(it)
                                                                 : std::next(it);
  }
  for (auto& [key, stored] : state_->mutable_cron_jobs()) {
    auto server = cron_objects_.find(key);
    if (server == cron_objects_.end() || stored.meta.deleting || stored.meta.uid.empty()) continue;
    CronJob cj = stored;  // the store keeps the server's status until the informers see ours
    std::vector<CronJobChild> children = CronJobChildren(*state_, cj);
    for (const auto& [job_key, when] : cron_job_creates_) {
      const auto [ns, name] = SplitKey(job_key);
      if (ns == cj.meta.namespace_ && name.rfind(cj.meta.name + "-", 0) == 0)
        children.push_back({name, "", "Pending", now, 0, true});
    }
    CronJobActions a = ReconcileCronJob(cj, children, now);
    for (const CronJobEvent& e : a.events)
      Log("controllers").info("msg=\"{}\" cronjob={} reason={}", e.message, key, e.reason);
    for (const std::string& name : a.deletes)
      DeleteCronJobChild(*state_, cj.meta.namespace_ + "/" + name);
    if (a.create_for) {
      const std::string job_key = cj.meta.namespace_ + "/" + CronJobJobName(cj, *a.create_for);
      cron_job_creates_[job_key] = sent_now;
      writes->push_back(
          {Write::Verb::kCreate, "Job", job_key,
           "/apis/batch.volcano.sh/v1alpha1/namespaces/" + cj.meta.namespace_ + "/jobs",
           CronJobJobJson(cj, server->second, *a.create_for), ""});
    }
    if (!a.status_changed) continue;
    writes->push_back({Write::Verb::kMergePatch, "CronJobStatus", key,
                       CronJobsPath(cj.meta.namespace_) + "/" + cj.meta.name + "/status",
                       Json{{"status", CronJobStatusJson(cj)}}, ""});
  }
}

}  // namespace basalt
