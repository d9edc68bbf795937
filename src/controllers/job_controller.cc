#include "controllers/job_controller.h"

#include <algorithm>
#include <map>

namespace basalt {
namespace {

constexpr const char* kGroupName = "scheduling.k8s.io/group-name";
constexpr const char* kTaskSpec = "volcano.sh/task-spec";
constexpr const char* kTaskIndex = "volcano.sh/task-index";
constexpr const char* kJobName = "volcano.sh/job-name";
constexpr const char* kJobNamespace = "volcano.sh/job-namespace";
constexpr const char* kQueueName = "volcano.sh/queue-name";
constexpr const char* kJobVersion = "volcano.sh/job-version";
constexpr const char* kTemplateUid = "volcano.sh/template-uid";
constexpr const char* kRetryCount = "volcano.sh/job-retry-count";

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
    const std::string& cls =
        t->template_spec.priority_class_name.empty() ? job.priority_class_name : t->template_spec.priority_class_name;
    auto it = state.priority_classes().find(cls);
    return it == state.priority_classes().end() ? 0 : it->second.value;
  };
  std::stable_sort(order.begin(), order.end(), [&](const JobTask* a, const JobTask* b) { return prio(a) > prio(b); });
  int32_t left = JobMinAvailable(job);
  Resource total;
  std::map<const JobTask*, int32_t> taken;
  int32_t task_min_sum = 0;
  for (const auto* t : order) task_min_sum += TaskMinAvailable(*t);
  if (left >= task_min_sum) {
    for (const auto* t : order) {
      int32_t n = std::min(TaskMinAvailable(*t), t->replicas);
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

const LifecyclePolicy* FindPolicy(const std::vector<LifecyclePolicy>& policies, const std::string& event) {
  for (const auto& p : policies) {
    if (p.exit_code.has_value()) continue;
    for (const auto& e : p.events) {
      if (e == event || e == "*") return &p;
    }
  }
  return nullptr;
}

std::vector<std::string> JobPodKeys(const ClusterState& state, const VcJob& job) {
  std::vector<std::string> keys;
  for (const auto& [key, pod] : state.pods()) {
    if (pod.meta.namespace_ != job.meta.namespace_) continue;
    auto it = pod.meta.annotations.find(kJobName);
    if (it != pod.meta.annotations.end() && it->second == job.meta.name) keys.push_back(key);
  }
  return keys;
}

}  // namespace

// Volcano's mutating webhook: unnamed tasks are called default<i>, an unset
// task minAvailable is the task's replicas, maxRetry 0 means 3.
static void ApplyDefaults(VcJob& job) {
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    if (job.tasks[i].name.empty()) job.tasks[i].name = "default" + std::to_string(i);
  }
  if (job.max_retry == 0) job.max_retry = 3;
}

void JobController::Sync(ClusterState& state) {
  for (auto& [key, job] : state.mutable_jobs()) {
    ApplyDefaults(job);
    if (IsFinal(job.phase)) continue;
    if (job.phase == "Restarting") {
      job.phase = job.retry_count >= job.max_retry ? "Failed" : "Pending";
      if (job.phase == "Failed") {
        KillJob(state, job, true);
        continue;
      }
    }
    const std::string pg_key = job.meta.namespace_ + "/" + PodGroupName(job);
    PodGroup* pg = state.FindPodGroup(pg_key);
    if (!pg) {
      PodGroup fresh;
      fresh.meta.name = PodGroupName(job);
      fresh.meta.namespace_ = job.meta.namespace_;
      fresh.meta.annotations = job.meta.annotations;
      fresh.meta.creation_timestamp = job.meta.creation_timestamp;
      fresh.meta.source = job.meta.source;
      fresh.meta.owner_references.push_back({"batch.volcano.sh/v1alpha1", "Job", job.meta.name, job.meta.uid, true});
      fresh.min_member = JobMinAvailable(job);
      for (const auto& t : job.tasks) fresh.min_task_member[t.name] = TaskMinAvailable(t);
      fresh.queue = job.queue.empty() ? "default" : job.queue;
      fresh.priority_class_name = job.priority_class_name;
      fresh.min_resources = MinResources(state, job);
      fresh.phase = "Pending";
      state.UpsertPodGroup(std::move(fresh));
      pg = state.FindPodGroup(pg_key);
    }
    // Pods exist only once the scheduler admitted the PodGroup (enqueue gates vcjobs).
    if (pg->phase.empty() || pg->phase == "Pending") {
      UpdatePhase(state, job);
      continue;
    }
    for (const auto& task : job.tasks) {
      for (int i = 0; i < task.replicas; ++i) {
        std::string name = PodName(job, task, i);
        Pod* existing = state.FindPod(job.meta.namespace_ + "/" + name);
        if (existing) {
          existing->meta.annotations.emplace(kGroupName, PodGroupName(job));  // adopt
          existing->meta.annotations.emplace(kJobName, job.meta.name);
          existing->meta.annotations.emplace(kTaskSpec, task.name);
          continue;
        }
        Pod pod;
        pod.meta = task.template_meta;
        pod.meta.name = name;
        pod.meta.namespace_ = job.meta.namespace_;
        pod.meta.uid.clear();
        pod.meta.creation_timestamp = job.meta.creation_timestamp;
        pod.meta.source = job.meta.source;
        pod.meta.owner_references = {{"batch.volcano.sh/v1alpha1", "Job", job.meta.name, job.meta.uid, true}};
        auto& ann = pod.meta.annotations;
        ann[kGroupName] = PodGroupName(job);
        ann[kTaskSpec] = task.name;
        ann[kTaskIndex] = std::to_string(i);
        ann[kJobName] = job.meta.name;
        ann[kQueueName] = pg->queue;
        ann[kJobVersion] = std::to_string(job.version);
        ann[kTemplateUid] = job.meta.name + "-" + task.name;
        ann[kRetryCount] = std::to_string(job.retry_count);
        for (const char* k : {"volcano.sh/preemptable", "volcano.sh/revocable-zone", "volcano.sh/cooldown-time",
                              "volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"}) {
          auto it = job.meta.annotations.find(k);
          if (it != job.meta.annotations.end()) ann.emplace(k, it->second);
        }
        auto& labels = pod.meta.labels;
        labels[kJobName] = job.meta.name;
        labels[kJobNamespace] = job.meta.namespace_;
        labels[kQueueName] = pg->queue;
        labels[kTaskSpec] = task.name;
        labels[kTaskIndex] = std::to_string(i);
        pod.spec = task.template_spec;
        if (pod.spec.scheduler_name == "default-scheduler") {
          pod.spec.scheduler_name = job.scheduler_name.empty() ? "volcano" : job.scheduler_name;
        }
        if (pod.spec.priority_class_name.empty()) pod.spec.priority_class_name = job.priority_class_name;
        pod.phase = "Pending";
        state.UpsertPod(std::move(pod));
      }
    }
    UpdatePhase(state, job);
  }
}

void JobController::UpdatePhase(ClusterState& state, VcJob& job) {
  int32_t running = 0, succeeded = 0, failed = 0, total = 0;
  for (const auto& key : JobPodKeys(state, job)) {
    const Pod& pod = state.pods().at(key);
    ++total;
    if (pod.phase == "Running") ++running;
    if (pod.phase == "Succeeded") ++succeeded;
    if (pod.phase == "Failed") ++failed;
  }
  int32_t replicas = 0;
  for (const auto& t : job.tasks) replicas += t.replicas;
  const int32_t min_available = JobMinAvailable(job);
  if (job.phase == "Pending" && running + succeeded + failed >= min_available && total > 0) job.phase = "Running";
  if (job.phase == "Running" && replicas > 0 && succeeded + failed == replicas) {
    bool success = succeeded >= min_available && (!job.min_success || succeeded >= *job.min_success);
    job.phase = success ? "Completed" : "Failed";
  } else if (job.phase == "Running" && job.min_success && succeeded >= *job.min_success) {
    job.phase = "Completed";
    KillJob(state, job, true);
  }
}

void JobController::KillJob(ClusterState& state, VcJob& job, bool soft) {
  for (const auto& key : JobPodKeys(state, job)) {
    const Pod& pod = state.pods().at(key);
    if (soft && (pod.phase == "Succeeded" || pod.phase == "Failed")) continue;
    state.DeletePod(key);
  }
  state.DeletePodGroup(job.meta.namespace_ + "/" + PodGroupName(job));
}

void JobController::OnPodDeleted(ClusterState& state, const Pod& pod) {
  auto jn = pod.meta.annotations.find(kJobName);
  if (jn == pod.meta.annotations.end()) return;
  VcJob* job = state.FindJob(pod.meta.namespace_ + "/" + jn->second);
  if (!job || IsFinal(job->phase)) return;
  auto ver = pod.meta.annotations.find(kJobVersion);
  if (ver != pod.meta.annotations.end() && ver->second != std::to_string(job->version)) return;  // stale pod
  const LifecyclePolicy* policy = nullptr;
  std::string task_name;
  if (auto ts = pod.meta.annotations.find(kTaskSpec); ts != pod.meta.annotations.end()) task_name = ts->second;
  for (const auto& t : job->tasks) {
    if (t.name == task_name) policy = FindPolicy(t.policies, "PodEvicted");
  }
  if (!policy) policy = FindPolicy(job->policies, "PodEvicted");
  if (!policy) return;  // SyncJob: the next Sync re-creates the lost pod
  const bool last_retry = job->retry_count >= job->max_retry - 1;
  const std::string& action = policy->action;
  if (action == "AbortJob") {
    KillJob(state, *job, true);
    job->phase = "Aborted";
  } else if (action == "RestartJob") {
    KillJob(state, *job, last_retry);
    ++job->version;
    ++job->retry_count;
    job->phase = "Restarting";
  } else if (action == "RestartTask" || action == "RestartPod") {
    for (const auto& key : JobPodKeys(state, *job)) {
      const Pod& p = state.pods().at(key);
      auto ts = p.meta.annotations.find(kTaskSpec);
      bool target = action == "RestartPod" ? key == pod.meta.Key()
                                           : (ts != p.meta.annotations.end() && ts->second == task_name);
      if (target && !(last_retry && (p.phase == "Succeeded" || p.phase == "Failed"))) state.DeletePod(key);
    }
    ++job->retry_count;
    job->phase = "Restarting";
  } else if (action == "TerminateJob") {
    KillJob(state, *job, true);
    job->phase = "Terminated";
  } else if (action == "CompleteJob") {
    KillJob(state, *job, true);
    job->phase = "Completed";
  }
}

}  // namespace basalt
