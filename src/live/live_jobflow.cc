// The JobFlow controller of `basalt serve` (flow.volcano.sh/v1alpha1), part
// of LiveControllers (live/live_controllers.h): the decisions of the offline
// controller (controllers/jobflow_controller.h: which flow's job is due, the
// phase machine, jobRetainPolicy), its effects sent to the API server.
//
// Per JobFlow, each pass (the leader only; the flow as the informers last saw it):
//   - being deleted: nothing (its jobs go with it through their owner
//     reference);
//   - Succeed with jobRetainPolicy `delete`: its jobs are deleted with their
//     pods and PodGroups (the store drops them; LiveControllers writes the
//     deletes), nothing else;
//   - every flow whose job is due gets `POST .../jobs` of the JobTemplate's
//     spec as stored (render.h FlowJobJson); 409 AlreadyExists adopts the job;
//   - the status is rebuilt as Volcano's controller writes it (the job lists
//     by phase, jobStatusList with runningHistories, conditions, state.phase)
//     and merge-patched on jobflows/NAME/status when it differs from the
//     server's.
#include <ctime>

#include "api/log.h"
#include "controllers/jobflow_controller.h"
#include "live/live_controllers.h"
#include "live/render.h"

namespace basalt {
namespace {

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string StringField(const Json& object, const char* key) {
  const Json& v = Field(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

// metav1.Time: "2026-11-25T21:30:00Z".
std::string Rfc3339(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The job names a flow's status lists in jobStatusList: jobs it created.
std::set<std::string> ListedJobs(const Json& status) {
  std::set<std::string> out;
  const Json& list = Field(status, "jobStatusList");
  if (!list.is_array()) return out;
  for (const Json& entry : list) out.insert(StringField(entry, "name"));
  return out;
}

// A job's runningHistories: one entry per phase it went through, the current
// one open (Volcano's controller stamps them with its own clock).
Json RunningHistories(const Json& previous, const std::string& phase, const std::string& now) {
  Json histories = previous.is_array() ? previous : Json::array();
  if (histories.empty() || !histories.back().is_object()) {
    if (!phase.empty()) histories = Json::array({{{"startTimestamp", now}, {"state", phase}}});
    return histories;
  }
  if (StringField(histories.back(), "state") != phase) {
    histories.back()["endTimestamp"] = now;
    histories.push_back({{"startTimestamp", now}, {"state", phase}});
  }
  return histories;
}

struct FlowJobView {
  const VcJob* job;
  const Json* object;       // the server's job; null while the store has only ours
  std::string phase_since;  // when this process first saw the job in its phase
};

// The status Volcano's JobFlow controller would write for `flow` (phase and
// job lists already rebuilt), keeping the server's jobStatusList entries of
// jobs that are gone and its conditions of them.
Json DesiredFlowStatus(const JobFlow& flow, const Json& server_status,
                       const std::vector<FlowJobView>& jobs) {
  Json list = Field(server_status, "jobStatusList");
  if (!list.is_array()) list = Json::array();
  Json conditions = Field(server_status, "conditions");
  if (!conditions.is_object()) conditions = Json::object();
  for (const FlowJobView& v : jobs) {
    const std::string& name = v.job->meta.name;
    const Json& job_status = v.object ? Field(*v.object, "status") : Json();
    const std::string created =
        v.object ? StringField(Field(*v.object, "metadata"), "creationTimestamp") : "";
    Json* entry = nullptr;
    for (Json& e : list) {
      if (StringField(e, "name") == name) entry = &e;
    }
    Json fresh = {
        {"name", name},
        {"state", v.job->phase},
        {"restartCount", v.job->retry_count},
        {"runningHistories", RunningHistories(entry ? Field(*entry, "runningHistories") : Json(),
                                              v.job->phase, v.phase_since)}};
    if (!created.empty()) fresh["startTimestamp"] = created;
    if (entry) {
      *entry = std::move(fresh);
    } else {
      list.push_back(std::move(fresh));
    }
    Json condition = {{"phase", v.job->phase}};
    if (!created.empty()) condition["createTime"] = created;
    for (const char* key : {"runningDuration", "taskStatusCount"}) {
      const Json& value = Field(job_status, key);
      if (!value.is_null()) condition[key] = value;
    }
    conditions[name] = std::move(condition);
  }
  return {{"pendingJobs", flow.pending_jobs},       {"runningJobs", flow.running_jobs},
          {"completedJobs", flow.completed_jobs},   {"failedJobs", flow.failed_jobs},
          {"terminatedJobs", flow.terminated_jobs}, {"unKnowJobs", flow.unknown_jobs},
          {"jobStatusList", std::move(list)},       {"conditions", std::move(conditions)},
          {"state", {{"phase", flow.phase}}}};
}

// Whether the server's status already says everything `desired` says (an
// absent list is an empty one: Go leaves empty lists out).
bool FlowStatusMatches(const Json& server, const Json& desired) {
  for (const auto& [key, want] : desired.items()) {
    const Json& have = Field(server, key.c_str());
    if (have == want) continue;
    if (want.is_array() && want.empty() && have.is_null()) continue;
    if (want.is_object() && want.empty() && have.is_null()) continue;
    return false;
  }
  return true;
}

}  // namespace

// The store's phase of a job may be one this pass decided and has not written
// yet; a dependency counts once the server says Completed, as Volcano reads it.
bool LiveControllers::TargetsCompletedOnServer(const JobFlow& flow, const Flow& f) const {
  for (const std::string& target : f.targets) {
    auto job = job_objects_.find(FlowJobKey(flow, target));
    if (job == job_objects_.end()) return false;
    if (StringField(Field(Field(job->second, "status"), "state"), "phase") != "Completed")
      return false;
  }
  return true;
}

void LiveControllers::SyncJobFlows(int64_t now, std::vector<Write>* writes) {
  const auto sent_now = std::chrono::steady_clock::now();
  for (auto it = flow_job_creates_.begin(); it != flow_job_creates_.end();) {
    const bool seen = state_->FindJob(it->first) != nullptr;
    it = seen || sent_now - it->second >= options_.in_flight_ttl ? flow_job_creates_.erase(it)
                                                                 : std::next(it);
  }
  const std::string now_text = Rfc3339(now);
  // A phase is stamped once (the status stays the same from pass to pass
  // while a patch is on its way); jobs gone are forgotten.
  std::map<std::string, std::pair<std::string, std::string>> phase_times;
  for (auto& [key, flow] : state_->mutable_job_flows()) {
    auto server = flow_objects_.find(key);
    if (server == flow_objects_.end() || flow.meta.deleting || flow.meta.uid.empty()) continue;
    const Json& server_status = Field(server->second, "status");
    // The decoder reads the spec only: the phase and the jobs created so far
    // are the server's.
    const std::string phase = StringField(Field(server_status, "state"), "phase");
    flow.phase = phase.empty() ? "Pending" : phase;
    if (flow.job_retain_policy == "delete" && flow.phase == "Succeed") {
      DeleteSucceededFlowJobs(*state_, flow);
      continue;
    }
    const std::set<std::string> listed = ListedJobs(server_status);
    auto created = [&](const std::string& job_key) {
      return flow_job_creates_.count(job_key) > 0 || listed.count(SplitKey(job_key).second) > 0;
    };
    for (const Flow* f : FlowsToCreate(*state_, flow, created)) {
      auto tmpl = template_objects_.find(flow.meta.namespace_ + "/" + f->name);
      if (tmpl == template_objects_.end() || !TargetsCompletedOnServer(flow, *f)) continue;
      const std::string job_key = FlowJobKey(flow, f->name);
      flow_job_creates_[job_key] = sent_now;
      Log("controllers").info("msg=\"creating job of JobFlow\" jobflow={} job={}", key, job_key);
      writes->push_back(
          {Write::Verb::kCreate, "Job", job_key,
           "/apis/batch.volcano.sh/v1alpha1/namespaces/" + flow.meta.namespace_ + "/jobs",
           FlowJobJson(flow, f->name, tmpl->second), ""});
    }
    RebuildJobFlowStatus(*state_, flow);
    std::vector<FlowJobView> jobs;
    for (const Flow& f : flow.flows) {
      const std::string job_key = FlowJobKey(flow, f.name);
      const VcJob* job = state_->FindJob(job_key);
      if (job == nullptr) continue;
      auto object = job_objects_.find(job_key);
      auto seen = flow_job_phase_times_.find(job_key);
      std::pair<std::string, std::string> since =
          seen != flow_job_phase_times_.end() && seen->second.first == job->phase
              ? seen->second
              : std::make_pair(job->phase, now_text);
      phase_times[job_key] = since;
      jobs.push_back({job, object == job_objects_.end() ? nullptr : &object->second, since.second});
    }
    Json desired = DesiredFlowStatus(flow, server_status, jobs);
    if (FlowStatusMatches(server_status, desired)) continue;
    writes->push_back({Write::Verb::kMergePatch, "JobFlowStatus", key,
                       "/apis/flow.volcano.sh/v1alpha1/namespaces/" + flow.meta.namespace_ +
                           "/jobflows/" + flow.meta.name + "/status",
                       Json{{"status", std::move(desired)}}, ""});
  }
  flow_job_phase_times_ = std::move(phase_times);
}

}  // namespace basalt
