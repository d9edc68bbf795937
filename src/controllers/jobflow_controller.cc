#include "controllers/jobflow_controller.h"

#include <set>
#include <vector>

#include "controllers/job_controller.h"

namespace basalt {
namespace {

VcJob JobFromTemplate(const JobFlow& flow, const VcJob& tmpl, int64_t now) {
  VcJob job = tmpl;
  const std::string created_by = flow.meta.namespace_ + "." + tmpl.meta.name;
  job.meta = ObjectMeta{};
  job.meta.name = FlowJobName(flow, tmpl.meta.name);
  job.meta.namespace_ = flow.meta.namespace_;
  job.meta.labels[kCreatedByJobTemplate] = created_by;
  job.meta.annotations[kCreatedByJobTemplate] = created_by;
  job.meta.owner_references = {
      {"flow.volcano.sh/v1alpha1", "JobFlow", flow.meta.name, flow.meta.uid, true}};
  job.meta.creation_timestamp = now;
  job.meta.source = flow.meta.source;
  job_internal::ResetJobStatus(&job);
  return job;
}

void DeleteJobWithObjects(ClusterState& state, const std::string& key) {
  const VcJob* job = state.FindJob(key);
  if (!job) return;
  for (const std::string& pod_key : job_internal::JobPodKeys(state, *job))
    state.DeletePod(pod_key);  // owner GC
  state.DeletePodGroup(job_internal::JobPodGroupKey(state, *job));
  state.DeleteJob(key);
}

}  // namespace

std::string FlowJobKey(const JobFlow& flow, const std::string& template_name) {
  return flow.meta.namespace_ + "/" + FlowJobName(flow, template_name);
}

void RebuildJobFlowStatus(const ClusterState& state, JobFlow& flow) {
  flow.pending_jobs.clear();
  flow.running_jobs.clear();
  flow.completed_jobs.clear();
  flow.failed_jobs.clear();
  flow.terminated_jobs.clear();
  flow.unknown_jobs.clear();
  std::vector<FlowJobStatus> list;
  std::set<std::string> listed;  // a flow name given twice is one job
  for (const Flow& f : flow.flows) {
    if (!listed.insert(f.name).second) continue;
    auto it = state.jobs().find(FlowJobKey(flow, f.name));
    if (it == state.jobs().end()) continue;
    const VcJob& job = it->second;
    const std::string& phase = job.phase;
    if (phase == "Pending") {
      flow.pending_jobs.push_back(job.meta.name);
    } else if (phase == "Running") {
      flow.running_jobs.push_back(job.meta.name);
    } else if (phase == "Completed") {
      flow.completed_jobs.push_back(job.meta.name);
    } else if (phase == "Failed") {
      flow.failed_jobs.push_back(job.meta.name);
    } else if (phase == "Terminated") {
      flow.terminated_jobs.push_back(job.meta.name);
    } else if (phase != "Completing" && phase != "Terminating") {
      // Volcano counts Completing and Terminating as known but lists neither.
      flow.unknown_jobs.push_back(job.meta.name);
    }
    list.push_back({job.meta.name, phase, job.retry_count, job.meta.creation_timestamp});
  }
  // Entries of jobs that disappeared stay, as in Volcano's status list.
  for (const FlowJobStatus& old : flow.job_status_list) {
    bool present = false;
    for (const FlowJobStatus& s : list) present |= s.name == old.name;
    if (!present) list.push_back(old);
  }
  flow.job_status_list = std::move(list);
  const size_t running = flow.running_jobs.size(), completed = flow.completed_jobs.size();
  const size_t failed = flow.failed_jobs.size();
  if (flow.phase == "Pending") {
    if ((running > 0 || completed > 0) && failed == 0) {
      flow.phase = "Running";
    } else if (failed > 0) {
      flow.phase = "Failed";
    }
  } else if (flow.phase == "Running") {
    if (completed == flow.flows.size()) flow.phase = "Succeed";
  }
}

std::vector<const Flow*> FlowsToCreate(const ClusterState& state, const JobFlow& flow,
                                       const std::function<bool(const std::string&)>& created) {
  std::vector<const Flow*> out;
  for (const Flow& f : flow.flows) {
    const std::string job_key = FlowJobKey(flow, f.name);
    if (state.jobs().count(job_key) || created(job_key)) continue;
    bool ready = true;
    for (const std::string& target : f.targets) {
      const auto it = state.jobs().find(FlowJobKey(flow, target));
      ready &= it != state.jobs().end() && it->second.phase == "Completed";
    }
    if (!ready) continue;
    // Absent: refused at load offline (CheckJobFlowTemplates); live, not created yet.
    if (!state.job_templates().count(flow.meta.namespace_ + "/" + f.name)) continue;
    out.push_back(&f);
  }
  return out;
}

bool DeleteSucceededFlowJobs(ClusterState& state, const JobFlow& flow) {
  bool deleted = false;
  for (const Flow& f : flow.flows) {
    const std::string job_key = FlowJobKey(flow, f.name);
    if (state.FindJob(job_key)) {
      DeleteJobWithObjects(state, job_key);
      deleted = true;
    }
  }
  return deleted;
}

bool JobFlowController::Sync(ClusterState& state, int64_t now) {
  bool changed = false;
  for (auto& [key, flow] : state.mutable_job_flows()) {
    if (flow.phase.empty()) flow.phase = "Pending";
    if (flow.job_retain_policy == "delete" && flow.phase == "Succeed") {
      changed |= DeleteSucceededFlowJobs(state, flow);
      continue;
    }
    auto created = [this](const std::string& job_key) { return created_.count(job_key) > 0; };
    for (const Flow* f : FlowsToCreate(state, flow, created)) {
      const VcJob& tmpl = state.job_templates().at(flow.meta.namespace_ + "/" + f->name);
      state.UpsertJob(JobFromTemplate(flow, tmpl, now));
      created_.insert(FlowJobKey(flow, f->name));
      changed = true;
    }
    RebuildJobFlowStatus(state, flow);
  }
  return changed;
}

}  // namespace basalt
