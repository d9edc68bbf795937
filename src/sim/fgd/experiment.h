// The FGD paper's experiment (docs/fgd.md): workload inflation, one-at-a-time
// placement with no departures, and the unallocated-GPU / fragment curves over
// arrived load, for several policies and seeds.
//
// One run (policy, seed):
//   1. Inflate: all trace pods, then copies drawn uniformly with replacement
//      until the GPU request reaches tune x cluster GPU capacity; shuffle.
//      The seed alone decides this, so every policy sees the same pods in the
//      same order for a given seed.
//   2. Place the pods one at a time on a feasible node chosen by the policy;
//      a pod that fits nowhere fails and is not retried.
//   3. After every pod, arrived GPU (failed pods included) and allocated GPU
//      are known. At arrived load k% of capacity (k = 0, 1, ..., 100 x tune),
//      the allocation is the mean over the pods whose arrived share rounds to
//      k% (the last value before, if none does); the fragment is measured when
//      the arrived share first reaches k%.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/status.h"
#include "sim/fgd/fragmentation.h"
#include "sim/fgd/trace.h"

namespace basalt::fgd {

// Indices into `pods`: the inflated, shuffled arrival order.
std::vector<int> InflatedOrder(const std::vector<PodSpec>& pods, int64_t capacity_milli,
                               double tune, uint64_t seed);

struct RunCurve {
  std::string policy;
  uint64_t seed = 0;
  // Index k = arrived load k% of GPU capacity.
  std::vector<double> unallocated_pct;  // 100 - allocated GPU as % of capacity
  std::vector<double> fragment_pct;     // cluster fragment as % of capacity
  int64_t pods = 0;
  int64_t failed = 0;
  double seconds = 0;
};

Result<RunCurve> RunOne(const Trace& trace, const FragmentationMeter& meter,
                        const std::string& policy, uint64_t seed, double tune);

struct ExperimentConfig {
  std::string workload;  // label for the output, e.g. openb_pod_list_default
  std::vector<std::string> policies;
  std::vector<uint64_t> seeds;
  double tune = 1.3;
  int jobs = 2;         // runs in parallel (runs are independent)
  int curve_from = 80;  // arrived % range of the curve in the summary
  int curve_to = 130;
  // Called after each run ends with the runs done and the total, from the
  // thread that ran it, one call at a time.
  std::function<void(size_t done, size_t total)> on_run_done;
};

struct ExperimentResult {
  nlohmann::ordered_json summary;
  std::vector<RunCurve> runs;  // policy-major, then seed, in config order
};

// Runs every (policy, seed); the summary holds, per policy, the mean, standard
// deviation (n - 1) and count of the unallocated-GPU share at 100% arrived
// load, the fragment there, and the curve from curve_from to curve_to.
Result<ExperimentResult> RunExperiment(const Trace& trace, const ExperimentConfig& config);

// The published numbers (the trace's derived/fgd_unallocated_gpu_summary.csv):
// per policy, mean and sd of the unallocated share at 100% for `workload`.
// Empty when the file or the workload is absent.
struct PublishedRow {
  std::string policy;
  double mean = 0;
  double sd = 0;
};
Result<std::vector<PublishedRow>> LoadPublished(const std::string& summary_csv,
                                                const std::string& workload);

// Adds "published" and "within_tolerance" (|mean - published| <= max(2 sd,
// 0.5)) to each policy of `summary` that has a published row, and
// "same_ranking_as_published" for the policies that have one.
void CompareWithPublished(nlohmann::ordered_json& summary,
                          const std::vector<PublishedRow>& published);

}  // namespace basalt::fgd
