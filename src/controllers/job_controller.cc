#include "controllers/job_controller.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "api/go_duration.h"
#include "api/subgroup.h"

namespace basalt {
namespace job_internal {
namespace {

std::string PodName(const VcJob& job, const JobTask& task, int index) {
  return job.meta.name + "-" + task.name + "-" + std::to_string(index);
}

Resource WithoutPods(Resource r) {
  r.Erase(ResourceNames::kPods);
  return r;
}

// minResources: the requests of the first minAvailable pods, tasks taken in
// PriorityClass order (each task's own minAvailable first when they add up).
Resource MinResources(const ClusterState& state, const VcJob& job) {
  std::vector<const JobTask*> order;
  for (const auto& t : job.tasks) order.push_back(&t);
  auto prio = [&](const JobTask* t) {
    const std::string& cls = t->template_spec.priority_class_name.empty()
                                 ? job.priority_class_name
                                 : t->template_spec.priority_class_name;
    auto it = state.priority_classes().find(cls);
    return it == state.priority_classes().end() ? 0 : it->second.value;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const JobTask* a, const JobTask* b) { return prio(a) > prio(b); });
  int32_t left = JobMinAvailable(job);
  Resource total;
  std::map<const JobTask*, int32_t> taken;
  int32_t task_min_sum = 0;
  for (const auto* t : order) task_min_sum += TaskMinAvailable(*t);
  if (left >= task_min_sum) {
    for (const auto* t : order) {
      int32_t n = std::max(0, std::min(TaskMinAvailable(*t), t->replicas));
      for (int i = 0; i < n; ++i) total += WithoutPods(t->template_spec.request);
      taken[t] = n;
      left -= n;
    }
  }
  for (const auto* t : order) {
    while (left > 0 && taken[t] < t->replicas) {
      total += WithoutPods(t->template_spec.request);
      ++taken[t];
      --left;
    }
  }
  return total;
}

Pod MakePod(const VcJob& job, const JobTask& task, int index, const std::string& queue) {
  Pod pod;
  pod.meta = task.template_meta;  // template labels/annotations (basalt.io/* test aids included)
  pod.meta.name = PodName(job, task, index);
  pod.meta.namespace_ = job.meta.namespace_;
  pod.meta.uid.clear();
  pod.meta.creation_timestamp = job.meta.creation_timestamp;
  pod.meta.source = job.meta.source;
  pod.meta.owner_references = {
      {"batch.volcano.sh/v1alpha1", "Job", job.meta.name, job.meta.uid, true}};
  auto& ann = pod.meta.annotations;
  ann[kGroupNameAnnotation] = JobController::PodGroupName(job);
  ann[kTaskSpec] = task.name;
  ann[kTaskIndex] = std::to_string(index);
  ann[kJobName] = job.meta.name;
  ann[kQueueName] = queue;
  ann[kJobVersion] = std::to_string(job.version);
  ann[kTemplateUid] = job.meta.name + "-" + task.name;
  ann[kRetryCount] = std::to_string(job.retry_count);
  for (const char* k :
       {"volcano.sh/preemptable", "volcano.sh/revocable-zone", "volcano.sh/cooldown-time",
        "volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"}) {
    auto it = job.meta.annotations.find(k);
    if (it != job.meta.annotations.end()) ann.emplace(k, it->second);
  }
  auto& labels = pod.meta.labels;
  labels[kJobName] = job.meta.name;
  labels[kJobNamespace] = job.meta.namespace_;
  labels[kQueueName] = queue;
  labels[kTaskSpec] = task.name;
  labels[kTaskIndex] = std::to_string(index);
  // The pod's partition, which the PodGroup's subGroupPolicy splits SubGroups by.
  if (task.partition_policy && task.partition_policy->partition_size > 0)
    labels[kPartitionIdLabel] = std::to_string(index / task.partition_policy->partition_size);
  pod.spec = task.template_spec;
  if (pod.spec.scheduler_name == "default-scheduler") {
    pod.spec.scheduler_name = job.scheduler_name.empty() ? "volcano" : job.scheduler_name;
  }
  if (pod.spec.priority_class_name.empty()) pod.spec.priority_class_name = job.priority_class_name;
  pod.phase = "Pending";
  return pod;
}

std::optional<int32_t> PodVersion(const Pod& pod) {
  auto it = pod.meta.annotations.find(kJobVersion);
  if (it == pod.meta.annotations.end() || it->second.empty() || it->second.size() > 9)
    return std::nullopt;
  int32_t v = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Volcano's mutating webhook: unnamed tasks are called default<i>, an unset
// task minAvailable is the task's replicas, maxRetry 0 means 3, and the
// plugins a distributed-framework plugin depends on are added.
void ApplyDefaults(VcJob& job) {
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    if (job.tasks[i].name.empty()) job.tasks[i].name = "default" + std::to_string(i);
    if (!job.tasks[i].min_available) job.tasks[i].min_available = job.tasks[i].replicas;
  }
  if (job.max_retry == 0) job.max_retry = 3;
  // The distributed-framework plugins need svc's Service (and mpi ssh's keys).
  for (const char* framework : {"mpi", "pytorch", "ray", "tensorflow"}) {
    if (job.plugins.count(framework)) job.plugins.try_emplace("svc");
  }
  if (job.plugins.count("mpi")) job.plugins.try_emplace("ssh");
}

}  // namespace

void ResetJobStatus(VcJob* job) {
  job->phase = "Pending";
  job->retry_count = 0;
  job->version = 0;
  job->last_transition_time = 0;
}

bool IsFinal(const std::string& phase) {
  return phase == "Aborted" || phase == "Completed" || phase == "Terminated" || phase == "Failed";
}

int32_t TaskMinAvailable(const JobTask& t) { return t.min_available.value_or(t.replicas); }

int32_t JobMinAvailable(const VcJob& job) {
  if (job.min_available > 0) return job.min_available;
  int32_t sum = 0;  // Volcano's webhook defaults minAvailable to the sum of the tasks'
  for (const auto& t : job.tasks) sum += TaskMinAvailable(t);
  return sum;
}

int32_t TotalReplicas(const VcJob& job) {
  int32_t n = 0;
  for (const auto& t : job.tasks) n += std::max(0, t.replicas);
  return n;
}

// The job's pods are named `<job>-...`, so one range of the ordered pod map
// holds them all: no scan over every pod of the cluster. Calls fn(key, pod)
// for each pod of the range that carries the job's name.
template <typename Fn>
void ForEachJobPod(const ClusterState& state, const VcJob& job, Fn fn) {
  const std::string prefix = job.meta.namespace_ + "/" + job.meta.name + "-";
  for (auto it = state.pods().lower_bound(prefix); it != state.pods().end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    auto jn = it->second.meta.annotations.find(kJobName);
    if (jn != it->second.meta.annotations.end() && jn->second == job.meta.name)
      fn(it->first, it->second);
  }
}

std::string JobPodGroupKey(const ClusterState& state, const VcJob& job) {
  const std::string key = job.meta.namespace_ + "/" + JobController::PodGroupName(job);
  if (job.meta.uid.empty() || state.FindPodGroup(key)) return key;
  // A group of the name Volcano used before v1.5 (the job's own) is the job's
  // while it exists (upgrade compatibility, as Volcano's getPodGroupByJob).
  const std::string legacy = job.meta.namespace_ + "/" + job.meta.name;
  return state.FindPodGroup(legacy) ? legacy : key;
}

std::vector<std::string> JobPodKeys(const ClusterState& state, const VcJob& job) {
  std::vector<std::string> keys;
  ForEachJobPod(state, job, [&keys](const std::string& key, const Pod&) { keys.push_back(key); });
  return keys;
}

std::string PodTask(const Pod& pod) {
  auto it = pod.meta.annotations.find(kTaskSpec);
  return it == pod.meta.annotations.end() ? "" : it->second;
}

PodCounts CountPods(const ClusterState& state, const VcJob& job) {
  PodCounts c;
  ForEachJobPod(state, job, [&c](const std::string&, const Pod& pod) {
    if (pod.meta.deleting) {
      ++c.terminating;
    } else if (pod.phase == "Pending") {
      ++c.pending;
    } else if (pod.phase == "Running") {
      ++c.running;
    } else if (pod.phase == "Succeeded") {
      ++c.succeeded;
      ++c.succeeded_by_task[PodTask(pod)];
    } else if (pod.phase == "Failed") {
      ++c.failed;
    }
  });
  return c;
}

void KillJob(ClusterState& state, VcJob& job, bool soft) {
  // At the last retry every kill is soft: finished pods are kept as evidence.
  if (job.retry_count >= job.max_retry - 1) soft = true;
  bool changed = false;
  for (const auto& key : JobPodKeys(state, job)) {
    const Pod& pod = state.pods().at(key);
    if (soft && (pod.phase == "Succeeded" || pod.phase == "Failed")) continue;
    changed |= state.DeletePod(key);
  }
  changed |= state.DeletePodGroup(JobPodGroupKey(state, job));
  // Volcano bumps the version on every kill so events of the killed pods are
  // recognised as stale; a kill that found nothing left changes nothing.
  if (changed) ++job.version;
}

void KillTarget(ClusterState& state, VcJob& job, const std::string& action,
                const JobRequest& request) {
  const bool soft = job.retry_count >= job.max_retry - 1;
  for (const auto& key : JobPodKeys(state, job)) {
    const Pod& pod = state.pods().at(key);
    bool target = action == "RestartPod" ? key == request.pod_key : PodTask(pod) == request.task;
    if (!target || (soft && (pod.phase == "Succeeded" || pod.phase == "Failed"))) continue;
    state.DeletePod(key);
  }
}

std::vector<std::string> SyncJobObjects(ClusterState& state, VcJob& job) {
  std::vector<std::string> created;
  std::string pg_key = JobPodGroupKey(state, job);
  const PodGroup* pg = state.FindPodGroup(pg_key);
  if (!pg) {
    pg_key = job.meta.namespace_ + "/" + JobController::PodGroupName(job);
    PodGroup fresh;
    fresh.meta.name = JobController::PodGroupName(job);
    fresh.meta.namespace_ = job.meta.namespace_;
    fresh.meta.annotations =
        job.meta.annotations;  // volcano.sh/* (and all others) travel to the group
    fresh.meta.creation_timestamp = job.meta.creation_timestamp;
    fresh.meta.source = job.meta.source;
    fresh.meta.owner_references.push_back(
        {"batch.volcano.sh/v1alpha1", "Job", job.meta.name, job.meta.uid, true});
    fresh.min_member = JobMinAvailable(job);
    for (const auto& t : job.tasks) fresh.min_task_member[t.name] = TaskMinAvailable(t);
    fresh.queue = job.queue.empty() ? "default" : job.queue;
    fresh.priority_class_name = job.priority_class_name;
    fresh.min_resources = MinResources(state, job);
    fresh.network_topology = job.network_topology;  // as Volcano's controller copies it
    // Each partitioned task becomes one SubGroup policy, as Volcano's controller writes it.
    for (const auto& t : job.tasks) {
      if (t.partition_policy)
        fresh.sub_group_policy.push_back(PolicyOfPartitions(t.name, *t.partition_policy));
    }
    fresh.phase = PodGroupPhase::kPending;
    state.UpsertPodGroup(std::move(fresh));
    pg = state.FindPodGroup(pg_key);
  }
  // Pods exist only once the scheduler admitted the PodGroup (enqueue gates vcjobs).
  if (pg->phase == PodGroupPhase::kPending) return created;
  const std::string queue = pg->queue;
  // The pods named after the job, found in one pass over their range of the
  // ordered pod map (this runs for every job in every world step).
  const std::string prefix = job.meta.namespace_ + "/" + job.meta.name + "-";
  std::vector<std::pair<const std::string*, const Pod*>> named;
  for (auto it = state.pods().lower_bound(prefix); it != state.pods().end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    named.emplace_back(&it->first, &it->second);
  }
  auto find_named = [&named](const std::string& key) -> const Pod* {
    auto it =
        std::lower_bound(named.begin(), named.end(), key,
                         [](const auto& entry, const std::string& k) { return *entry.first < k; });
    return it != named.end() && *it->first == key ? it->second : nullptr;
  };
  std::string key;
  for (const auto& task : job.tasks) {
    for (int i = 0; i < task.replicas; ++i) {
      key.assign(prefix).append(task.name).append("-").append(std::to_string(i));
      if (const Pod* existing = find_named(key)) {
        // Adopt (only a pod missing one of the annotations is edited).
        const auto& ann = existing->meta.annotations;
        if (!ann.count(kGroupNameAnnotation) || !ann.count(kJobName) || !ann.count(kTaskSpec)) {
          auto& edit = state.EditPod(key)->meta.annotations;
          if (!edit.count(kGroupNameAnnotation))
            edit.emplace(kGroupNameAnnotation, JobController::PodGroupName(job));
          edit.try_emplace(kJobName, job.meta.name);
          edit.try_emplace(kTaskSpec, task.name);
        }
        continue;
      }
      state.UpsertPod(MakePod(job, task, i, queue));
      created.push_back(key);
    }
  }
  // Scale-down: pods beyond a task's replicas go. (The pods created above have
  // indices below their task's replicas, so the list from before holds every
  // candidate.)
  std::vector<std::string> surplus;
  for (const auto& [pod_key, pod] : named) {
    const auto& ann = pod->meta.annotations;
    auto jn = ann.find(kJobName);
    if (jn == ann.end() || jn->second != job.meta.name) continue;
    auto idx = ann.find(kTaskIndex);
    if (idx == ann.end()) continue;
    auto spec = ann.find(kTaskSpec);
    const std::string_view pod_task =
        spec == ann.end() ? std::string_view() : std::string_view(spec->second);
    for (const auto& task : job.tasks) {
      if (task.name == pod_task && idx->second != "" && idx->second.size() < 10 &&
          std::all_of(idx->second.begin(), idx->second.end(),
                      [](char c) { return c >= '0' && c <= '9'; }) &&
          std::stoll(idx->second) >= task.replicas) {
        surplus.push_back(*pod_key);
        break;
      }
    }
  }
  for (const std::string& k : surplus) state.DeletePod(k);
  return created;
}

}  // namespace job_internal

using namespace job_internal;  // NOLINT: this file implements them

void JobController::ForgetJobsChangedSinceLastSync(const ClusterState& state) {
  if (!journal_.Intact(state) || job_map_version_ != state.job_map_version()) {
    quiet_.clear();
  } else if (!quiet_.empty()) {
    journal_.ForEachSince(state, [this](const ClusterState::Change& change) {
      // A job's PodGroup has the job's key (legacy name) or "<job key>-<uid>".
      quiet_.erase(change.key);
      if (change.kind != ClusterState::Change::Kind::kPod &&
          change.kind != ClusterState::Change::Kind::kPodGroup)
        return;
      // Pod "ns/<job>-<task>-<index>", PodGroup "ns/<job>-<uid>": every
      // "ns/<name up to a dash>" may be its job.
      const std::string& k = change.key;
      for (size_t dash = k.find('-', k.find('/') + 1); dash != std::string::npos;
           dash = k.find('-', dash + 1)) {
        quiet_.erase(k.substr(0, dash));
      }
    });
  }
  // From here on (this Sync's own changes included), the next Sync looks again.
  journal_.MoveToEnd(state);
}

void JobController::Sync(ClusterState& state, int64_t now) {
  ForgetJobsChangedSinceLastSync(state);
  FireDelayed(state, now);
  std::vector<std::string> expired;
  auto& jobs = state.mutable_jobs();
  job_map_version_ = state.job_map_version();  // this controller's own access
  for (auto& [key, job] : jobs) {
    ApplyDefaults(job);
    if (job.last_transition_time == 0) job.last_transition_time = now;
    auto quiet = quiet_.find(key);
    const bool skip = quiet != quiet_.end() && quiet->second.phase == job.phase &&
                      quiet->second.version == job.version;
    if (!skip) SyncOne(state, key, job, now);
    // ttlSecondsAfterFinished counts from the last transition (Volcano's
    // garbage collector: Completed, Failed and Terminated jobs only).
    if (job.ttl_seconds_after_finished &&
        (job.phase == "Completed" || job.phase == "Failed" || job.phase == "Terminated") &&
        now >= job.last_transition_time + *job.ttl_seconds_after_finished) {
      expired.push_back(key);
    }
  }
  for (const auto& key : expired) {
    const VcJob* job = state.FindJob(key);
    for (const auto& pod_key : JobPodKeys(state, *job)) state.DeletePod(pod_key);  // owner GC
    state.DeletePodGroup(JobPodGroupKey(state, *job));
    CancelDelayed(key, "");
    pg_phase_seen_.erase(key);
    quiet_.erase(key);
    state.DeleteJob(key);
  }
}

// One job's sync; remembers the job as quiet when the sync changed nothing
// (no store change, same phase and version).
void JobController::SyncOne(ClusterState& state, const std::string& key, VcJob& job, int64_t now) {
  const uint64_t journal_before = state.journal_end();
  const std::string phase_before = job.phase;
  const int32_t version_before = job.version;
  // `Unknown`: the PodGroup phase just changed to Unknown (gang broken).
  const std::string pg_key = JobPodGroupKey(state, job);
  const PodGroup* pg = state.FindPodGroup(pg_key);
  const PodGroupPhase pg_phase = pg ? pg->phase : PodGroupPhase::kPending;
  PodGroupPhase& seen = pg_phase_seen_[key];
  if (pg_phase == PodGroupPhase::kUnknown && seen != PodGroupPhase::kUnknown) {
    seen = pg_phase;
    JobRequest req;
    req.job_key = key;
    req.event = "Unknown";
    Handle(state, req, now);
  }
  // SyncJob until the phase settles (Restarting -> Pending -> PodGroup
  // re-created in the same step; Completed -> soft kill). Volcano gets there
  // through the status-update events; bounded because every phase change
  // moves forward in the machine.
  JobRequest sync;
  sync.job_key = key;
  sync.event = "OutOfSync";
  for (int i = 0; i < 4; ++i) {
    std::string before = job.phase;
    Execute(state, job, "SyncJob", sync, now);
    if (job.phase == before) break;
  }
  pg = state.FindPodGroup(JobPodGroupKey(state, job));
  pg_phase_seen_[key] = pg ? pg->phase : PodGroupPhase::kPending;
  RaisePodPending(state, job, now);
  if (job.phase == phase_before && job.version == version_before &&
      state.journal_end() == journal_before) {
    quiet_[key] = {job.phase, job.version};
  } else {
    quiet_.erase(key);
  }
}

void JobController::OnPodDeleted(ClusterState& state, const Pod& pod, int64_t now) {
  auto jn = pod.meta.annotations.find(kJobName);
  if (jn == pod.meta.annotations.end()) return;
  JobRequest req;
  req.job_key = pod.meta.namespace_ + "/" + jn->second;
  req.task = PodTask(pod);
  req.pod_key = pod.meta.Key();
  req.event = "PodEvicted";
  req.job_version = PodVersion(pod);
  CancelDelayed(req.job_key, req.pod_key);
  Handle(state, req, now);
}

void JobController::OnPodPhaseChanged(ClusterState& state, const Pod& pod,
                                      const std::string& old_phase, int64_t now) {
  if (pod.phase == old_phase) return;
  auto jn = pod.meta.annotations.find(kJobName);
  if (jn == pod.meta.annotations.end()) return;
  JobRequest req;
  req.job_key = pod.meta.namespace_ + "/" + jn->second;
  req.task = PodTask(pod);
  req.pod_key = pod.meta.Key();
  req.job_version = PodVersion(pod);
  if (pod.phase == "Running") {
    CancelDelayed(req.job_key, req.pod_key);  // PodRunning: a pending timeout no longer applies
    return;
  }
  if (pod.phase == "Failed") {
    req.event = "PodFailed";
    req.exit_code = pod.exit_code;
  } else if (pod.phase == "Succeeded") {
    const VcJob* job = state.FindJob(req.job_key);
    if (!job) return;
    int32_t replicas = -1, succeeded = 0;
    for (const auto& t : job->tasks) {
      if (t.name == req.task) replicas = t.replicas;
    }
    for (const auto& key : JobPodKeys(state, *job)) {
      const Pod& p = state.pods().at(key);
      if (PodTask(p) == req.task && p.phase == "Succeeded") ++succeeded;
    }
    req.event = succeeded == replicas ? "TaskCompleted" : "OutOfSync";
  } else {
    req.event = "OutOfSync";
  }
  Handle(state, req, now);
}

void JobController::OnCommand(ClusterState& state, const Command& command, int64_t now) {
  JobRequest req;
  req.job_key = command.meta.namespace_ + "/" + command.target.name;
  req.event = "CommandIssued";
  req.action = command.action;
  Handle(state, req, now);
}

void JobController::Handle(ClusterState& state, const JobRequest& request, int64_t now) {
  VcJob* job = state.EditJob(request.job_key);
  if (!job) return;
  ApplyDefaults(*job);
  ResolvedAction resolved = Resolve(*job, request);
  if (resolved.delay_seconds) {
    RecordActionEvent(*job, "Execute action " + resolved.action + " after " +
                                GoDurationText(*resolved.delay_seconds));
    delayed_.push_back({now + *resolved.delay_seconds, job->version, request, resolved.action});
    return;
  }
  // Volcano's message, trailing space included.
  if (resolved.action != "SyncJob")
    RecordActionEvent(*job, "Start to execute action " + resolved.action + " ");
  // Executing a real action voids the job's pending delayed actions.
  if (resolved.action != "SyncJob") CancelDelayed(request.job_key, "");
  Execute(state, *job, resolved.action, request, now);
}

void JobController::RecordActionEvent(const VcJob& job, std::string message) {
  if (record_action_events_)
    action_events_.push_back({job.meta.Key(), job.meta.uid, std::move(message)});
}

void JobController::FireDelayed(ClusterState& state, int64_t now) {
  std::vector<Delayed> due;
  std::vector<Delayed> keep;
  for (auto& d : delayed_) (d.due <= now ? due : keep).push_back(std::move(d));
  delayed_ = std::move(keep);
  for (const Delayed& d : due) {
    VcJob* job = state.EditJob(d.request.job_key);
    if (!job || job->version != d.version) continue;  // restarted or gone since
    if (d.request.event == "PodPending") {
      const Pod* pod = state.FindPod(d.request.pod_key);
      if (!pod || pod->phase != "Pending") continue;
    }
    if (d.action != "SyncJob") CancelDelayed(d.request.job_key, "");
    Execute(state, *job, d.action, d.request, now);
  }
}

void JobController::CancelDelayed(const std::string& job_key, const std::string& pod_key) {
  std::erase_if(delayed_, [&](const Delayed& d) {
    return d.request.job_key == job_key && (pod_key.empty() || d.request.pod_key == pod_key);
  });
}

void JobController::RaisePodPending(ClusterState& state, const VcJob& job, int64_t now) {
  auto has_timeout = [](const std::vector<LifecyclePolicy>& ps) {
    for (const auto& p : ps) {
      if (p.timeout) return true;
    }
    return false;
  };
  bool any = has_timeout(job.policies);
  for (const auto& t : job.tasks) any |= has_timeout(t.policies);
  if (!any) return;
  const std::string job_key = job.meta.Key();
  for (const auto& key : JobPodKeys(state, job)) {
    const Pod& pod = state.pods().at(key);
    const std::string version = std::to_string(PodVersion(pod).value_or(job.version));
    if (pod.phase != "Pending") {
      pending_raised_.erase(key);
      continue;
    }
    auto [it, fresh] = pending_raised_.try_emplace(key, version);
    if (!fresh && it->second == version) continue;
    it->second = version;
    JobRequest req;
    req.job_key = job_key;
    req.task = PodTask(pod);
    req.pod_key = key;
    req.event = "PodPending";
    req.job_version = PodVersion(pod);
    // Only a delayed action can come of it (PodPending needs a timeout policy).
    ResolvedAction resolved = Resolve(job, req);
    if (resolved.delay_seconds)
      delayed_.push_back({now + *resolved.delay_seconds, job.version, req, resolved.action});
  }
}

std::vector<std::string> JobController::HalfRunningGangJobs(const ClusterState& state) {
  std::vector<std::string> out;
  for (const auto& [key, job] : state.jobs()) {
    if (job.tasks.empty()) continue;
    bool gang_policy = true;
    for (const auto& t : job.tasks) {
      JobRequest req;
      req.job_key = key;
      req.task = t.name;
      req.event = "PodEvicted";
      std::string a = Resolve(job, req).action;
      gang_policy &= a == "AbortJob" || a == "RestartJob";
    }
    if (!gang_policy) continue;
    int32_t active = 0, done = 0;
    for (const auto& pod_key : JobPodKeys(state, job)) {
      const Pod& pod = state.pods().at(pod_key);
      if (pod.meta.deleting) continue;
      if (pod.phase == "Running" || (pod.phase == "Pending" && !pod.spec.node_name.empty()))
        ++active;
      if (pod.phase == "Succeeded" || pod.phase == "Failed") ++done;
    }
    if (active > 0 && active + done < JobMinAvailable(job)) out.push_back(key);
  }
  return out;
}

}  // namespace basalt
