#include "sim/fgd/experiment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/fgd/cluster.h"
#include "sim/fgd/policy.h"

namespace basalt::fgd {
namespace {

// Policies draw from their own stream so that, for one seed, the inflated
// workload is the same whatever the policy.
constexpr uint64_t kPolicyStream = 0x9e3779b97f4a7c15ULL;

struct Stats {
  double mean = 0;
  double sd = 0;
  size_t count = 0;
};

Stats Summarise(const std::vector<double>& v) {
  Stats s;
  s.count = v.size();
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(sq / static_cast<double>(v.size() - 1));
  }
  return s;
}

double Round(double v, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(v * f) / f;
}

}  // namespace

std::vector<int> InflatedOrder(const std::vector<PodSpec>& pods, int64_t capacity_milli,
                               double tune, uint64_t seed) {
  Rng rng(seed);
  std::vector<int> order;
  order.reserve(pods.size() * 2);
  int64_t requested = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    order.push_back(static_cast<int>(i));
    requested += pods[i].TotalGpuMilli();
  }
  const double target = tune * static_cast<double>(capacity_milli);
  // A trace without GPU pods cannot reach the target; stop rather than loop.
  bool any_gpu =
      std::any_of(pods.begin(), pods.end(), [](const PodSpec& p) { return p.num_gpu > 0; });
  while (any_gpu && static_cast<double>(requested) < target) {
    const int pick = static_cast<int>(UniformBelow(rng, pods.size()));
    order.push_back(pick);
    requested += pods[static_cast<size_t>(pick)].TotalGpuMilli();
  }
  // Fisher-Yates with our own uniform draw (std::shuffle's use of the engine
  // is implementation-defined).
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(UniformBelow(rng, i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

Result<RunCurve> RunOne(const Trace& trace, const FragmentationMeter& meter,
                        const std::string& policy_name, uint64_t seed, double tune) {
  const auto start = std::chrono::steady_clock::now();
  Rng policy_rng(seed ^ kPolicyStream);
  BASALT_ASSIGN_OR_RETURN(auto policy, MakePolicy(policy_name, policy_rng, meter));
  Cluster cluster(trace.nodes);
  const int64_t capacity = cluster.gpu_capacity_milli();
  if (capacity <= 0) return Status::InvalidArgument("the node list has no GPUs");

  const int max_pct = static_cast<int>(std::floor(tune * 100.0 + 1e-9));
  std::vector<double> alloc_sum(static_cast<size_t>(max_pct) + 1, 0.0);
  std::vector<int64_t> alloc_count(static_cast<size_t>(max_pct) + 1, 0);
  RunCurve run;
  run.policy = policy_name;
  run.seed = seed;
  run.fragment_pct.assign(static_cast<size_t>(max_pct) + 1, 0.0);
  int next_fragment_pct = 0;
  const double to_pct = 100.0 / static_cast<double>(capacity);
  auto measure_fragments_up_to = [&](double arrived_pct) {
    if (next_fragment_pct > max_pct || arrived_pct < next_fragment_pct) return;
    const double f = meter.ClusterFragment(cluster) * to_pct;
    while (next_fragment_pct <= max_pct && arrived_pct >= next_fragment_pct) {
      run.fragment_pct[static_cast<size_t>(next_fragment_pct++)] = f;
    }
  };
  measure_fragments_up_to(0.0);

  std::vector<int> feasible;
  feasible.reserve(trace.nodes.size());
  int64_t arrived = 0;
  for (int index : InflatedOrder(trace.pods, capacity, tune, seed)) {
    const PodSpec& pod = trace.pods[static_cast<size_t>(index)];
    ++run.pods;
    feasible.clear();
    for (int n = 0; n < cluster.size(); ++n) {
      if (Fits(cluster.node(n), pod)) feasible.push_back(n);
    }
    if (feasible.empty()) {
      ++run.failed;
    } else {
      const int node = feasible[policy->SelectNode(cluster, feasible, pod)];
      const int card = pod.SharesGpu() ? policy->ChooseCard(cluster, node, pod) : -1;
      cluster.Place(node, pod, card);
      policy->Placed(cluster, node);
    }
    arrived += pod.TotalGpuMilli();
    const double arrived_pct = static_cast<double>(arrived) * to_pct;
    const long bucket = std::lround(arrived_pct);
    if (bucket >= 0 && bucket <= max_pct) {
      alloc_sum[static_cast<size_t>(bucket)] +=
          static_cast<double>(cluster.gpu_allocated_milli()) * to_pct;
      ++alloc_count[static_cast<size_t>(bucket)];
    }
    measure_fragments_up_to(arrived_pct);
  }
  // Loads never reached (tune above what the trace can arrive) keep the last
  // state, like loads that no pod's arrival rounds to.
  measure_fragments_up_to(static_cast<double>(max_pct));
  run.unallocated_pct.assign(static_cast<size_t>(max_pct) + 1, 100.0);
  double last_alloc = 0;
  for (int k = 0; k <= max_pct; ++k) {
    if (alloc_count[static_cast<size_t>(k)] > 0) {
      last_alloc = alloc_sum[static_cast<size_t>(k)] /
                   static_cast<double>(alloc_count[static_cast<size_t>(k)]);
    }
    run.unallocated_pct[static_cast<size_t>(k)] = 100.0 - last_alloc;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

Result<ExperimentResult> RunExperiment(const Trace& trace, const ExperimentConfig& config) {
  // Validate every name before spending minutes on the runs.
  FragmentationMeter meter(TargetWorkload(trace.pods), static_cast<int>(trace.models.size()));
  for (const auto& p : config.policies) {
    Rng probe(0);
    BASALT_RETURN_IF_ERROR(MakePolicy(p, probe, meter).status());
  }
  if (config.seeds.empty()) return Status::InvalidArgument("no seeds");
  const int max_pct = static_cast<int>(std::floor(config.tune * 100.0 + 1e-9));
  if (max_pct < 100)
    return Status::InvalidArgument("tune must reach 100% arrived load (tune >= 1)");

  const auto start = std::chrono::steady_clock::now();
  const size_t total = config.policies.size() * config.seeds.size();
  std::vector<Result<RunCurve>> results(total, Status::Internal("run not started"));
  std::atomic<size_t> next{0};
  std::mutex progress_mu;
  size_t done = 0;  // under progress_mu
  auto worker = [&] {
    for (size_t job = next++; job < total; job = next++) {
      const auto& policy = config.policies[job / config.seeds.size()];
      const uint64_t seed = config.seeds[job % config.seeds.size()];
      results[job] = RunOne(trace, meter, policy, seed, config.tune);
      if (config.on_run_done) {
        std::lock_guard<std::mutex> lock(progress_mu);
        config.on_run_done(++done, total);
      }
    }
  };
  const size_t threads =
      std::clamp<size_t>(static_cast<size_t>(std::max(config.jobs, 1)), 1, total);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  ExperimentResult out;
  for (auto& r : results) {
    if (!r.ok()) return r.status();
    out.runs.push_back(std::move(*r));
  }

  auto& s = out.summary;
  s["workload"] = config.workload;
  s["nodes"] = trace.nodes.size();
  s["gpus"] = trace.GpuCapacityMilli() / kMilliPerGpu;
  s["trace_pods"] = trace.pods.size();
  s["tune"] = config.tune;
  s["seeds"] = config.seeds;
  s["target_shapes"] = meter.shapes().size();
  s["metric"] = "unallocated GPU as % of cluster GPU capacity at arrived load = 100% of capacity";
  nlohmann::ordered_json policies = nlohmann::ordered_json::object();
  for (size_t p = 0; p < config.policies.size(); ++p) {
    const size_t first = p * config.seeds.size();
    auto column = [&](int k, bool fragment) {
      std::vector<double> v;
      for (size_t i = 0; i < config.seeds.size(); ++i) {
        const auto& run = out.runs[first + i];
        v.push_back(fragment ? run.fragment_pct[static_cast<size_t>(k)]
                             : run.unallocated_pct[static_cast<size_t>(k)]);
      }
      return v;
    };
    nlohmann::ordered_json entry;
    const Stats at100 = Summarise(column(100, false));
    const Stats frag100 = Summarise(column(100, true));
    entry["mean"] = Round(at100.mean, 3);
    entry["sd"] = Round(at100.sd, 3);
    entry["count"] = at100.count;
    entry["fragment_pct_mean"] = Round(frag100.mean, 3);
    entry["fragment_pct_sd"] = Round(frag100.sd, 3);
    std::vector<double> failed, seconds;
    for (size_t i = 0; i < config.seeds.size(); ++i) {
      failed.push_back(static_cast<double>(out.runs[first + i].failed));
      seconds.push_back(out.runs[first + i].seconds);
    }
    entry["failed_pods_mean"] = Round(Summarise(failed).mean, 1);
    entry["seconds_per_run"] = Round(Summarise(seconds).mean, 2);
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (int k = std::max(0, config.curve_from); k <= std::min(max_pct, config.curve_to); ++k) {
      const Stats u = Summarise(column(k, false));
      const Stats f = Summarise(column(k, true));
      curve.push_back({{"arrived_pct", k},
                       {"unallocated_mean", Round(u.mean, 3)},
                       {"unallocated_sd", Round(u.sd, 3)},
                       {"fragment_mean", Round(f.mean, 3)}});
    }
    entry["curve"] = std::move(curve);
    policies[config.policies[p]] = std::move(entry);
  }
  s["policies"] = std::move(policies);
  s["wall_seconds"] =
      Round(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2);
  return out;
}

Result<std::vector<PublishedRow>> LoadPublished(const std::string& summary_csv,
                                                const std::string& workload) {
  std::vector<PublishedRow> rows;
  std::ifstream in(summary_csv);
  if (!in) return rows;
  std::string line;
  std::getline(in, line);  // header: workload,policy,arrived_pct,n_seeds,mean,sd,...
  int64_t row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::istringstream cs(line);
    std::string cell;
    while (std::getline(cs, cell, ',')) cells.push_back(cell);
    if (cells.size() < 6 || cells[0] != workload || cells[2] != "100") continue;
    PublishedRow r;
    r.policy = cells[1];
    try {
      r.mean = std::stod(cells[4]);
      r.sd = std::stod(cells[5]);
    } catch (const std::exception&) {
      return Status::InvalidArgument(summary_csv + ":row " + std::to_string(row) +
                                     ": mean/sd are not numbers");
    }
    rows.push_back(r);
  }
  return rows;
}

void CompareWithPublished(nlohmann::ordered_json& summary,
                          const std::vector<PublishedRow>& published) {
  auto& policies = summary["policies"];
  std::vector<std::pair<double, std::string>> ours, theirs;
  for (const auto& row : published) {
    if (!policies.contains(row.policy)) continue;
    auto& entry = policies[row.policy];
    const double mean = entry["mean"].get<double>();
    const double tolerance = std::max(2.0 * row.sd, 0.5);
    entry["published"] = {{"mean", row.mean}, {"sd", row.sd}};
    entry["within_tolerance"] = std::fabs(mean - row.mean) <= tolerance;
    ours.emplace_back(mean, row.policy);
    theirs.emplace_back(row.mean, row.policy);
  }
  if (ours.size() < 2) return;
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  bool same = true;
  for (size_t i = 0; i < ours.size(); ++i) same = same && ours[i].second == theirs[i].second;
  summary["same_ranking_as_published"] = same;
}

}  // namespace basalt::fgd
