#include "sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace basalt {

using Json = nlohmann::ordered_json;

double Round4(double v) { return std::round(v * 10000.0) / 10000.0; }

int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void MetricsRecorder::AddEviction(const std::string& cause, int64_t t) {
  ++evictions_[cause];
  ++evictions_total_;
  eviction_times_.emplace_back(t, cause);
}

std::vector<TideWindow> MetricsRecorder::Tides() const {
  std::vector<TideWindow> out;
  if (tide_period_ <= 0 || samples_.empty()) return out;
  // The sample at or just after `t` (samples are in time order).
  auto at = [&](int64_t t) -> const MetricSample* {
    auto it = std::lower_bound(samples_.begin(), samples_.end(), t,
                               [](const MetricSample& s, int64_t v) { return s.t < v; });
    return it == samples_.end() ? nullptr : &*it;
  };
  auto sum_role = [&](const MetricSample& s, const std::string& role) {
    double v = 0;
    for (const auto& q : queues_) {
      if (q.role != role) continue;
      auto it = s.queue_gpus.find(q.name);
      if (it != s.queue_gpus.end()) v += it->second;
    }
    return Round4(v);
  };
  for (int64_t peak = tide_peak_at_ % tide_period_; peak < tide_duration_; peak += tide_period_) {
    if (peak <= 0) continue;  // no time to fill up before it
    const int64_t trough = peak + tide_period_ / 2;
    const MetricSample* p = at(peak);
    const MetricSample* tr = at(trough);
    if (!p || !tr || trough > tide_duration_) break;
    TideWindow w;
    w.peak_t = p->t;
    w.trough_t = tr->t;
    w.inference_gpus_at_peak = sum_role(*p, "inference");
    w.training_gpus_at_peak = sum_role(*p, "training");
    w.inference_gpus_at_trough = sum_role(*tr, "inference");
    w.training_gpus_at_trough = sum_role(*tr, "training");
    for (const auto& [t, cause] : eviction_times_) {
      if (cause == "reclaim" && t > peak - tide_period_ / 2 && t <= peak)
        ++w.reclaim_evictions_rising;
    }
    out.push_back(w);
  }
  return out;
}

Json MetricsRecorder::MetricsJson() const {
  Json out = Json::object();
  Json caps = Json::object();
  for (const auto& [k, v] : capacity_) caps[k] = v;
  out["capacity"] = caps;
  Json qs = Json::array();
  for (const auto& q : queues_) {
    qs.push_back({{"name", q.name},
                  {"role", q.role},
                  {"reclaimable", q.reclaimable},
                  {"deserved_gpus",
                   Round4(q.deserved.Get(ResourceNames::Intern("nvidia.com/gpu")) / 1000.0)},
                  {"capability_gpus",
                   Round4(q.capability.Get(ResourceNames::Intern("nvidia.com/gpu")) / 1000.0)}});
  }
  out["queues"] = qs;
  Json samples = Json::array();
  for (const MetricSample& s : samples_) {
    Json j = Json::object();
    j["t"] = s.t;
    Json u = Json::object();
    for (const auto& [k, v] : s.utilization) u[k] = Round4(v);
    j["utilization"] = u;
    Json g = Json::object();
    for (const auto& [k, v] : s.queue_gpus) g[k] = Round4(v);
    j["queue_gpus"] = g;
    Json c = Json::object();
    for (const auto& [k, v] : s.queue_cpus) c[k] = Round4(v);
    j["queue_cpus"] = c;
    j["pending_pods"] = s.pending_pods;
    j["running_pods"] = s.running_pods;
    j["pending_jobs"] = s.pending_jobs;
    j["running_jobs"] = s.running_jobs;
    j["inference_desired"] = s.inference_desired;
    j["evictions"] = s.evictions;
    j["gang_violations"] = s.gang_violations;
    j["jobs_completed"] = s.jobs_completed;
    if (!s.colocation.empty()) {
      Json c = Json::object();
      for (const auto& [k, v] : s.colocation) c[k] = Round4(v);
      j["colocation"] = std::move(c);
    }
    samples.push_back(std::move(j));
  }
  out["samples"] = std::move(samples);
  return out;
}

std::string MetricsRecorder::MetricsCsv() const {
  std::ostringstream os;
  if (samples_.empty()) return "t\n";
  const MetricSample& first = samples_.front();
  os << "t";
  for (const auto& [k, v] : first.utilization) os << ",util:" << k;
  for (const auto& q : queues_) os << ",gpus:" << q.name;
  for (const auto& q : queues_) os << ",cpus:" << q.name;
  os << ",pending_pods,running_pods,pending_jobs,running_jobs,inference_desired,evictions,gang_"
        "violations,"
        "jobs_completed";
  for (const auto& [k, v] : first.colocation) os << ",colocation:" << k;
  os << "\n";
  auto get = [](const std::map<std::string, double>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  for (const MetricSample& s : samples_) {
    os << s.t;
    for (const auto& [k, v] : first.utilization) os << "," << Round4(get(s.utilization, k));
    for (const auto& q : queues_) os << "," << Round4(get(s.queue_gpus, q.name));
    for (const auto& q : queues_) os << "," << Round4(get(s.queue_cpus, q.name));
    os << "," << s.pending_pods << "," << s.running_pods << "," << s.pending_jobs << ","
       << s.running_jobs << "," << s.inference_desired << "," << s.evictions << ","
       << s.gang_violations << "," << s.jobs_completed;
    for (const auto& [k, v] : first.colocation) os << "," << Round4(get(s.colocation, k));
    os << "\n";
  }
  return os.str();
}

Json MetricsRecorder::SummaryJson(const std::string& scenario, uint64_t seed,
                                  int64_t duration) const {
  Json out = Json::object();
  out["scenario"] = scenario;
  out["seed"] = seed;
  out["duration_seconds"] = duration;
  out["gang_violations"] = gang_violations_;
  Json gv = Json::object();
  for (const auto& [job, n] : gang_violation_jobs_) gv[job] = n;
  out["gang_violation_jobs"] = gv;
  Json ev = Json::object();
  for (const char* cause : {"reclaim", "preempt", "node_failure", "drain"}) ev[cause] = 0;
  for (const auto& [cause, n] : evictions_) ev[cause] = n;
  ev["total"] = evictions_total_;
  out["evictions"] = ev;
  // Time-averaged utilisation over the samples (each sample weighs the same:
  // samples are evenly spaced).
  std::map<std::string, double> util_sum, util_max;
  for (const MetricSample& s : samples_) {
    for (const auto& [k, v] : s.utilization) {
      util_sum[k] += v;
      util_max[k] = std::max(util_max[k], v);
    }
  }
  Json util = Json::object();
  Json per_model = Json::object();
  for (const auto& [k, v] : util_sum) {
    Json e = {{"mean", Round4(v / static_cast<double>(samples_.size()))},
              {"max", Round4(util_max[k])}};
    if (k.rfind("gpu:", 0) == 0) {
      per_model[k.substr(4)] = e;
    } else {
      util[k] = e;
    }
  }
  util["card_models"] = per_model;
  out["utilization"] = util;
  Json waits = Json::object();
  for (const auto& [q, v] : waits_) {
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    waits[q] = {{"count", sorted.size()},
                {"p50", Percentile(sorted, 50)},
                {"p90", Percentile(sorted, 90)},
                {"p99", Percentile(sorted, 99)},
                {"max", sorted.empty() ? 0 : sorted.back()}};
  }
  out["wait_seconds"] = waits;
  out["jobs_submitted"] = jobs_submitted_;
  out["jobs_completed"] = jobs_completed_;
  out["job_restarts"] = job_restarts_;
  Json created = Json::object();
  for (const auto& [k, n] : pods_created_) created[k] = n;
  out["pods_created"] = created;
  // Per queue: mean and max allocated GPUs against deserved and capability.
  Json queues = Json::object();
  for (const auto& q : queues_) {
    double sum = 0, mx = 0;
    for (const MetricSample& s : samples_) {
      auto it = s.queue_gpus.find(q.name);
      double v = it == s.queue_gpus.end() ? 0 : it->second;
      sum += v;
      mx = std::max(mx, v);
    }
    const auto gpu = ResourceNames::Intern("nvidia.com/gpu");
    queues[q.name] = {
        {"role", q.role},
        {"gpus_mean", Round4(samples_.empty() ? 0 : sum / static_cast<double>(samples_.size()))},
        {"gpus_max", Round4(mx)},
        {"deserved_gpus", Round4(q.deserved.Get(gpu) / 1000.0)},
        {"capability_gpus", Round4(q.capability.Get(gpu) / 1000.0)}};
  }
  out["queues"] = queues;
  Json tides = Json::array();
  for (const TideWindow& w : Tides()) {
    tides.push_back({{"peak_t", w.peak_t},
                     {"inference_gpus_at_peak", w.inference_gpus_at_peak},
                     {"training_gpus_at_peak", w.training_gpus_at_peak},
                     {"reclaim_evictions_rising", w.reclaim_evictions_rising},
                     {"trough_t", w.trough_t},
                     {"inference_gpus_at_trough", w.inference_gpus_at_trough},
                     {"training_gpus_at_trough", w.training_gpus_at_trough}});
  }
  out["tides"] = tides;
  out["cycles"] = {{"run", cycles_run_}, {"skipped_idle", cycles_skipped_}};
  if (!colocation_.is_null()) out["colocation"] = colocation_;
  if (has_idle_) out["idle_gpus_while_waiting"] = idle_.SummaryJson();
  return out;
}

}  // namespace basalt
