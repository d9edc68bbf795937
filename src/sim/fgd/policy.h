// Node-scoring policies of the FGD paper's evaluation, plus our own.
//
// Each pod is placed in two steps, as in the kube-scheduler the paper's
// simulator drives:
//   1. SelectNode picks one of the feasible nodes (those where Fits holds).
//      The default keeps the highest Score and breaks ties towards the lowest
//      node index (the simulator picks the lexicographically smallest name; the
//      openb names are zero-padded, so the orders agree).
//   2. For a GPU-sharing pod, ChooseCard picks the card on that node.
//
// The paper's policies return the same integer scores (0..100) as their
// Kubernetes score plugins, truncation included: those truncations create the
// ties that step 1 resolves, so they shape the result.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "sim/fgd/cluster.h"
#include "sim/fgd/fragmentation.h"

namespace basalt::fgd {

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view Name() const = 0;

  // Higher is better. Called only for nodes where `pod` fits.
  virtual double Score(const Cluster& c, int node, const PodSpec& pod) = 0;

  // Index into `feasible` (non-empty, ascending node indices).
  virtual size_t SelectNode(const Cluster& c, const std::vector<int>& feasible, const PodSpec& pod);

  // Card for a GPU-sharing pod on `node` (where it fits). Default: best fit.
  virtual int ChooseCard(const Cluster& c, int node, const PodSpec& pod);

  // Called after `pod` was placed on `node` (policies with per-node caches).
  virtual void Placed(const Cluster& c, int node) {}
};

// The random stream of one run; policies that draw from it get it at creation.
using Rng = std::mt19937_64;
// Uniform integer in [0, n) without the implementation-defined behaviour of
// std::uniform_int_distribution, so a seed replays on every platform.
uint64_t UniformBelow(Rng& rng, uint64_t n);

// Policy names accepted by MakePolicy, in the paper's order, then ours.
const std::vector<std::string>& PolicyNames();

// `rng` must outlive the policy; `meter` too (FGD, FGD-Mem, FGD-Units).
Result<std::unique_ptr<Policy>> MakePolicy(std::string_view name, Rng& rng,
                                           const FragmentationMeter& meter);

// Individual policies, for tests.
std::unique_ptr<Policy> MakeRandomPolicy(Rng& rng);
std::unique_ptr<Policy> MakeDotProductPolicy();
std::unique_ptr<Policy> MakeGpuClusteringPolicy();
std::unique_ptr<Policy> MakeGpuPackingPolicy();
std::unique_ptr<Policy> MakeBestFitPolicy();
std::unique_ptr<Policy> MakeFgdPolicy(const FragmentationMeter& meter);
std::unique_ptr<Policy> MakeFgdMemoryPolicy(const FragmentationMeter& meter);
std::unique_ptr<Policy> MakeFgdUnitsPolicy(const FragmentationMeter& meter);

// Scores the paper's simulator gives (exposed for unit tests).
int64_t DotProductScore(const NodeState& n, const PodSpec& pod);
int64_t GpuClusteringScore(const NodeState& n, const PodSpec& pod);
int64_t GpuPackingScore(const NodeState& n, const PodSpec& pod);
int64_t BestFitScore(const NodeState& n, const PodSpec& pod);
// FGD: sigmoid of the fragment decrease in GPUs, times 100, truncated; for a
// sharing pod the best card's score. `card` (optional) receives that card.
int64_t FgdScore(const FragmentationMeter& meter, const NodeState& n, const PodSpec& pod,
                 int* card = nullptr);

// Normalisation constants of the paper's simulator: the largest node it
// assumes (128 cores, 8 GPUs).
inline constexpr double kMaxSpecCpuMilli = 128000;
inline constexpr double kMaxSpecGpuMilli = 8000;

}  // namespace basalt::fgd
