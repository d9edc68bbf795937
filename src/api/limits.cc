#include "api/limits.h"

#include "api/decode.h"

namespace basalt {
namespace {

// "file:line: Job ns/name" of a vcjob or JobTemplate, as decode messages start.
std::string JobWhere(const VcJob& job, std::string_view kind) {
  return job.meta.source + ": " + std::string(kind) + " " + job.meta.Key();
}

// Each task's replicas, then their sum, against the per-job limit; `*job_pods`
// is set to the sum.
Status CheckJobPods(const VcJob& job, std::string_view kind, const InputLimits& limits,
                    int64_t* job_pods) {
  const std::string where = JobWhere(job, kind);
  int64_t total = 0;
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    const int64_t replicas = job.tasks[i].replicas;
    BASALT_RETURN_IF_ERROR(
        CheckPodsPerJob(where + ": spec.tasks[" + std::to_string(i) + "].replicas",
                        std::to_string(replicas), replicas, limits));
    if (replicas > 0) total += replicas;
  }
  BASALT_RETURN_IF_ERROR(CheckPodsPerJob(
      where + ": spec.tasks", std::to_string(total) + " replicas in all", total, limits));
  *job_pods = total;
  return Status::Ok();
}

}  // namespace

std::string AboveLimit(std::string_view what, int64_t limit, std::string_view unit,
                       std::string_view flag) {
  return std::string(what) + " is above the limit of " + std::to_string(limit) + " " +
         std::string(unit) + " (raise it with " + std::string(flag) + ")";
}

Status CheckPodsPerJob(const std::string& where, const std::string& what, int64_t pods,
                       const InputLimits& limits) {
  if (pods <= limits.max_job_pods) return Status::Ok();
  return Status::InvalidArgument(
      where + ": " + AboveLimit(what, limits.max_job_pods, "pods per job", "--max-job-pods"));
}

int64_t CountDecodedObjects(const ClusterObjects& o) {
  return static_cast<int64_t>(o.nodes.size() + o.pods.size() + o.priority_classes.size() +
                              o.queues.size() + o.podgroups.size() + o.jobs.size() +
                              o.owners.size() + o.commands.size() + o.job_templates.size() +
                              o.job_flows.size() + o.namespaces.size() + o.numatopologies.size() +
                              o.hypernodes.size() + o.cron_jobs.size() +
                              o.disruption_budgets.size() + o.resource_quotas.size());
}

Status CheckObjectCount(const ClusterObjects& objects, const InputLimits& limits,
                        const std::string& where) {
  const int64_t count = CountDecodedObjects(objects);
  if (count <= limits.max_objects) return Status::Ok();
  return Status::InvalidArgument(where + ": " +
                                 AboveLimit("object " + std::to_string(count), limits.max_objects,
                                            "objects", "--max-objects"));
}

Status CheckClusterLimits(const ClusterObjects& objects, const InputLimits& limits) {
  int64_t pods = static_cast<int64_t>(objects.pods.size());
  if (pods > limits.max_pods) {
    const Pod& over = objects.pods[static_cast<size_t>(limits.max_pods)];
    return Status::InvalidArgument(over.meta.source + ": Pod " + over.meta.Key() + ": " +
                                   AboveLimit("pod " + std::to_string(limits.max_pods + 1),
                                              limits.max_pods, "pods per cluster", "--max-pods"));
  }
  for (const VcJob& tmpl : objects.job_templates) {
    int64_t ignored = 0;
    BASALT_RETURN_IF_ERROR(CheckJobPods(tmpl, "JobTemplate", limits, &ignored));
  }
  for (const VcJob& job : objects.jobs) {
    int64_t job_pods = 0;
    BASALT_RETURN_IF_ERROR(CheckJobPods(job, "Job", limits, &job_pods));
    pods += job_pods;
    if (pods > limits.max_pods) {
      return Status::InvalidArgument(
          JobWhere(job, "Job") + ": spec.tasks: " +
          AboveLimit("a total of " + std::to_string(pods) +
                         " pods (Pods and vcjob replicas) with this job's replicas",
                     limits.max_pods, "pods per cluster", "--max-pods"));
    }
  }
  return Status::Ok();
}

Status CheckCycles(int64_t cycles, const InputLimits& limits) {
  if (cycles <= limits.max_cycles) return Status::Ok();
  return Status::InvalidArgument("--cycles: " + AboveLimit(std::to_string(cycles),
                                                           limits.max_cycles, "cycles",
                                                           "--max-cycles"));
}

}  // namespace basalt
