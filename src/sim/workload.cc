#include "sim/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace basalt {
namespace {

std::string Seq(int64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%06lld", static_cast<long long>(seq));
  return buf;
}

PodSpec BaseSpec(const Resource& request, const std::string& pc, int32_t priority,
                 const std::string& card_label, const std::string& card_model) {
  PodSpec spec;
  spec.request = request;
  spec.device_request = request;
  spec.request.Set(ResourceNames::kPods, 1);  // the implicit `pods: 1` decoding adds
  spec.scheduler_name = "volcano";
  if (!pc.empty()) {
    spec.priority_class_name = pc;
    spec.has_priority = true;
    spec.priority = priority;
  }
  if (!card_model.empty()) spec.node_selector[card_label] = card_model;
  return spec;
}

}  // namespace

double Uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double StandardNormal(std::mt19937_64& rng) {
  const double u1 = 1.0 - Uniform01(rng);  // (0, 1]: log is finite
  const double u2 = Uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

int64_t NextArrivalGap(const TrainingWorkload& w, std::mt19937_64& rng) {
  if (w.arrival == "fixed") return w.interval;
  const double u = 1.0 - Uniform01(rng);
  return std::max<int64_t>(1, std::llround(-std::log(u) * static_cast<double>(w.interval)));
}

int64_t DrawDuration(const DurationDist& d, std::mt19937_64& rng) {
  double v = static_cast<double>(d.value);
  if (d.kind == "uniform") {
    v = static_cast<double>(d.min) + Uniform01(rng) * static_cast<double>(d.max - d.min);
  } else if (d.kind == "exponential") {
    v = -std::log(1.0 - Uniform01(rng)) * static_cast<double>(d.mean);
  } else if (d.kind == "lognormal") {
    v = static_cast<double>(d.median) * std::exp(d.sigma * StandardNormal(rng));
  }
  int64_t s = std::llround(std::min(v, 3.0e8));
  if (d.min > 0) s = std::max(s, d.min);
  if (d.max > 0) s = std::min(s, d.max);
  return std::max<int64_t>(1, s);
}

VcJob MakeTrainingJob(const TrainingWorkload& w, int64_t seq, int64_t t, int32_t priority,
                      const std::string& card_label, std::mt19937_64& rng) {
  VcJob job;
  job.meta.name = w.name + "-" + Seq(seq);
  job.meta.namespace_ = w.namespace_;
  job.meta.uid = "sim-" + job.meta.namespace_ + "-" + job.meta.name;
  job.meta.creation_timestamp = kSimEpoch + t;
  job.meta.source = "simulate:" + w.name;
  job.queue = w.queue;
  job.scheduler_name = "volcano";
  job.priority_class_name = w.priority_class;
  job.policies = w.policies;
  job.max_retry =
      1000000;  // a restarted job keeps trying: the simulator measures, it does not give up
  int32_t total = 0;
  for (const TrainingTask& tt : w.tasks) {
    JobTask task;
    task.name = tt.name;
    task.replicas = tt.replicas[rng() % tt.replicas.size()];
    task.template_spec = BaseSpec(tt.request, w.priority_class, priority, card_label, w.card_model);
    total += task.replicas;
    job.tasks.push_back(std::move(task));
  }
  job.min_available = total;  // gang: all replicas or none
  return job;
}

std::string ReplicaSetUid(const std::string& workload) { return "sim-rs-" + workload; }

OwnerObject MakeDeployment(const InferenceWorkload& w) {
  OwnerObject o;
  o.api_version = "apps/v1";
  o.kind = "Deployment";
  o.meta.name = w.name;
  o.meta.namespace_ = w.namespace_;
  o.meta.uid = "sim-deploy-" + w.name;
  o.meta.creation_timestamp = kSimEpoch;
  return o;
}

OwnerObject MakeReplicaSet(const InferenceWorkload& w) {
  OwnerObject o;
  o.api_version = "apps/v1";
  o.kind = "ReplicaSet";
  o.meta.name = w.name + "-rs";
  o.meta.namespace_ = w.namespace_;
  o.meta.uid = ReplicaSetUid(w.name);
  o.meta.creation_timestamp = kSimEpoch;
  o.meta.owner_references.push_back(
      {"apps/v1", "Deployment", w.name, "sim-deploy-" + w.name, true});
  return o;
}

Pod MakeInferencePod(const InferenceWorkload& w, int64_t seq, int64_t t, int32_t priority,
                     const std::string& card_label) {
  Pod pod;
  pod.meta.name = w.name + "-" + Seq(seq);
  pod.meta.namespace_ = w.namespace_;
  pod.meta.uid = "sim-pod-" + w.namespace_ + "-" + pod.meta.name;
  pod.meta.creation_timestamp = kSimEpoch + t;
  pod.meta.source = "simulate:" + w.name;
  pod.meta.annotations["scheduling.volcano.sh/queue-name"] = w.queue;
  pod.meta.owner_references.push_back(
      {"apps/v1", "ReplicaSet", w.name + "-rs", ReplicaSetUid(w.name), true});
  pod.spec = BaseSpec(w.request, w.priority_class, priority, card_label, w.card_model);
  return pod;
}

}  // namespace basalt
