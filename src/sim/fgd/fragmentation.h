// The GPU fragmentation measure of the FGD paper (Weng et al., ATC'23), with
// the target workload it is measured against.
//
// A node's fragment, seen by one pod shape m, is the idle GPU milli that m
// could not use there:
//   - m asks no GPU, or the node's model is not allowed for m, or m does not
//     fit (too few cards with gpu_milli free, or too little CPU): ALL idle milli;
//   - m fits: only the free milli of cards with less than m.gpu_milli free.
// The node's fragment is the expectation over the target workload,
// F(n) = sum_m p_m * fragment(n, m); the cluster's is the sum over nodes.
// Memory is not part of the measure (the paper's shapes are CPU x GPU).
//
// Unit-counting meters (our FGD-Units policy) refine "m fits": a node that can
// host k units of m before its CPU, memory or cards run out can use only the
// cards those k units take; the other idle milli counts as fragment too. The
// paper's measure asks only whether ONE unit fits, so it misses the cards that
// a CPU shortage will strand after the first few pods.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fgd/cluster.h"

namespace basalt::fgd {

struct PodShape {
  int64_t cpu_milli = 0;
  int num_gpu = 0;
  int gpu_milli = 0;
  uint32_t models = 0;     // 0 = any
  double weight = 0;       // probability in the target workload
  int64_t memory_mib = 0;  // median memory of the pods of this shape (memory-aware meters only)
};

// The empirical distribution of pod shapes (cpu, num_gpu, gpu_milli, models),
// weighted by pod count. As in the paper's simulator, only the most common
// shapes are kept: they are added in steps of 10 (most common first; equal
// counts ordered by the larger shape first) until they cover at least
// `coverage_pct` percent of the pods, then renormalised to sum to 1.
// `by_gpu_demand`: each kept shape weighs its pod count times its GPU request
// instead of its pod count alone (shapes without GPUs then weigh nothing).
std::vector<PodShape> TargetWorkload(const std::vector<PodSpec>& pods, double coverage_pct = 95.0,
                                     bool by_gpu_demand = false);

// Evaluates F(n) quickly: the shapes that ask no GPU, and those a model may not
// use, contribute all idle milli whatever the node holds, so their weight is
// summed once per model; only the remaining shapes are checked per node.
class FragmentationMeter {
 public:
  // `count_memory`: a shape also needs its (median) memory free to fit. The
  // paper's measure ignores memory; FGD-Mem counts it.
  // `count_units`: see "Unit-counting meters" above.
  FragmentationMeter(std::vector<PodShape> shapes, int model_count, bool count_memory = false,
                     bool count_units = false);

  // F(n) in GPU milli.
  double NodeFragment(const NodeState& n) const;
  // Sum of F over the cluster, in GPU milli.
  double ClusterFragment(const Cluster& c) const;

  const std::vector<PodShape>& shapes() const { return shapes_; }
  int model_count() const { return static_cast<int>(checks_.size()) - 1; }
  bool count_memory() const { return count_memory_; }
  bool count_units() const { return count_units_; }

 private:
  struct Check {
    int64_t cpu_milli;
    int num_gpu;
    int gpu_milli;
    double weight;
    int64_t memory_mib;  // 0 unless memory counts
  };
  // Idle milli that shape `c` cannot use on `n` (n has idle > 0).
  double ShapeFragment(const NodeState& n, const Check& c, int64_t idle) const;

  std::vector<PodShape> shapes_;
  bool count_memory_ = false;
  bool count_units_ = false;
  // Per model (index model + 1; slot 0 for nodes without GPUs): the weight that
  // always counts all idle milli, and the shapes to check.
  std::vector<double> always_idle_weight_;
  std::vector<std::vector<Check>> checks_;
};

}  // namespace basalt::fgd
