// Metrics of a simulation: one sample per metrics interval (utilisation per
// resource and per card model, per-queue allocation, pending and running pods
// and jobs, cumulative evictions by cause, gang violations, completions) and
// the summary computed from them (docs/simulate.md defines every number).
//
// Everything is integer or a ratio rounded to 1e-4, and every map is ordered,
// so the JSON and CSV texts are byte-identical for one seed.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resource.h"
#include "sim/idle_reasons.h"

namespace basalt {

struct QueueInfoStatic {
  std::string name;
  std::string role;     // "inference", "training" or "" (from the workloads that use it)
  Resource deserved;    // spec.deserved, else the weight share of the cluster (see docs)
  Resource capability;  // spec.capability, else the whole cluster
  bool reclaimable = true;
};

struct MetricSample {
  int64_t t = 0;
  // Allocated / allocatable over all nodes, per resource name (cpu, memory,
  // nvidia.com/gpu, ...) and per card model ("gpu:<model>").
  std::map<std::string, double> utilization;
  // Per queue: allocated GPUs (whole, milli/1000) and CPU cores of bound pods.
  std::map<std::string, double> queue_gpus;
  std::map<std::string, double> queue_cpus;
  int64_t pending_pods = 0;
  int64_t running_pods = 0;
  int64_t pending_jobs = 0;
  int64_t running_jobs = 0;
  int64_t inference_desired = 0;
  int64_t evictions = 0;        // cumulative, all causes
  int64_t gang_violations = 0;  // cumulative
  int64_t jobs_completed = 0;   // cumulative
  // With a `colocation:` section only: the agents' figures (sim/colocation.h).
  std::map<std::string, double> colocation;
};

// One tide (a day of the first sine-shaped inference curve).
struct TideWindow {
  int64_t peak_t = 0, trough_t = 0;
  double inference_gpus_at_peak = 0, training_gpus_at_peak = 0;
  double inference_gpus_at_trough = 0, training_gpus_at_trough = 0;
  int64_t reclaim_evictions_rising = 0;  // reclaim evictions in the half period before the peak
};

class MetricsRecorder {
 public:
  void SetQueues(std::vector<QueueInfoStatic> queues) { queues_ = std::move(queues); }
  void SetCapacity(std::map<std::string, double> capacity) { capacity_ = std::move(capacity); }
  void AddSample(MetricSample s) { samples_.push_back(std::move(s)); }
  void AddWait(const std::string& queue, int64_t seconds) { waits_[queue].push_back(seconds); }
  void AddEviction(const std::string& cause, int64_t t);
  void AddGangViolation(const std::string& job) {
    ++gang_violations_;
    gang_violation_jobs_[job]++;
  }
  void AddJobCompleted() { ++jobs_completed_; }
  // Why GPUs were idle while jobs waited, at a sample (sim/idle_reasons.h).
  void AddIdleVerdict(int64_t t, int64_t interval, const IdleVerdict& verdict) {
    idle_.Add(t, interval, verdict);
    has_idle_ = true;
  }
  void AddJobSubmitted() { ++jobs_submitted_; }
  void AddJobRestart() { ++job_restarts_; }
  void AddPodsCreated(const std::string& kind, int64_t n) { pods_created_[kind] += n; }
  void AddCycle(bool skipped) { skipped ? ++cycles_skipped_ : ++cycles_run_; }
  // The `colocation` object of the summary (absent when never set).
  void SetColocationSummary(nlohmann::ordered_json summary) { colocation_ = std::move(summary); }
  void SetTide(int64_t period, int64_t peak_at, int64_t duration) {
    tide_period_ = period;
    tide_peak_at_ = peak_at;
    tide_duration_ = duration;
  }

  int64_t evictions_total() const { return evictions_total_; }
  int64_t gang_violations() const { return gang_violations_; }
  int64_t jobs_completed() const { return jobs_completed_; }
  const std::vector<MetricSample>& samples() const { return samples_; }
  const std::vector<QueueInfoStatic>& queues() const { return queues_; }

  // The tides seen in the samples (empty without a sine inference curve).
  std::vector<TideWindow> Tides() const;

  nlohmann::ordered_json MetricsJson() const;
  std::string MetricsCsv() const;
  nlohmann::ordered_json SummaryJson(const std::string& scenario, uint64_t seed,
                                     int64_t duration) const;

 private:
  std::vector<QueueInfoStatic> queues_;
  std::map<std::string, double> capacity_;
  std::vector<MetricSample> samples_;
  std::map<std::string, std::vector<int64_t>> waits_;
  std::map<std::string, int64_t> evictions_;
  std::vector<std::pair<int64_t, std::string>> eviction_times_;
  std::map<std::string, int64_t> gang_violation_jobs_;
  std::map<std::string, int64_t> pods_created_;
  int64_t evictions_total_ = 0;
  int64_t gang_violations_ = 0;
  int64_t jobs_completed_ = 0;
  int64_t jobs_submitted_ = 0;
  int64_t job_restarts_ = 0;
  int64_t cycles_run_ = 0;
  int64_t cycles_skipped_ = 0;
  int64_t tide_period_ = 0, tide_peak_at_ = 0, tide_duration_ = 0;
  nlohmann::ordered_json colocation_;
  IdleRecorder idle_;
  bool has_idle_ = false;  // the cluster has GPUs: the summary explains idle ones
};

// Rounds to 4 decimals so printed ratios are short and stable.
double Round4(double v);
// Nearest-rank percentile of sorted values (p in (0, 100]).
int64_t Percentile(const std::vector<int64_t>& sorted, double p);

}  // namespace basalt
