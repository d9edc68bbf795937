// Per-GPU accounting for the fragmentation reproduction (docs/fgd.md).
//
// Every node keeps the free milli of each of its cards. The rules are those of
// GPU sharing in the openb cluster (and of the FGD paper's simulator):
//   1. A pod with num_gpu == 1 and gpu_milli < 1000 (a GPU-sharing pod) takes
//      gpu_milli from ONE card that has at least that much free.
//   2. Any other GPU pod takes num_gpu WHOLE cards (free == 1000).
//   3. A pod with a model list runs only on nodes whose model is listed.
//   4. CPU and memory must fit as well; nothing departs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/fgd/trace.h"

namespace basalt::fgd {

// How many distinct GPU request kinds ("affinity tags") a node hosts: tag 0 is
// GPU sharing, tag n is n whole cards. The GPU-clustering policy reads it.
inline constexpr int kAffinityTags = kMaxGpusPerNode + 1;

// The free resources of one node. A plain value so policies can score a
// hypothetical placement on a copy.
struct NodeState {
  int64_t cpu_left = 0;
  int64_t memory_left = 0;
  int gpus = 0;
  int model = -1;
  std::array<int, kMaxGpusPerNode> gpu_left{};  // free milli per card; cards >= gpus stay 0
  std::array<int, kAffinityTags> pods_by_tag{};

  int64_t GpuLeftTotal() const;
  int FullyFreeCards() const;
  // Cards with at least `milli` free.
  int CardsWithAtLeast(int milli) const;
  int DistinctTags() const;
};

// Which card a GPU-sharing pod gets: ties always go to the lowest card index.
int BestFitCard(const NodeState& n, int milli);  // least free among those that fit; -1 when none

// Affinity tag of a GPU pod (see kAffinityTags); -1 for a CPU-only pod.
int AffinityTag(const PodSpec& pod);

// True when `pod` fits `n` now (CPU, memory, model, cards).
bool Fits(const NodeState& n, const PodSpec& pod);

// Takes `pod`'s resources from `n`. `card` is the card of a GPU-sharing pod and
// is ignored otherwise: whole-card pods take the lowest-indexed free cards.
// The caller has checked Fits (and that `card` has room); a violation aborts
// because the accounting would be corrupt from then on.
void Place(NodeState& n, const PodSpec& pod, int card);

// The accounting of a whole cluster plus its running totals.
class Cluster {
 public:
  explicit Cluster(const std::vector<NodeSpec>& nodes);

  const std::vector<NodeState>& nodes() const { return nodes_; }
  const NodeState& node(int i) const { return nodes_[static_cast<size_t>(i)]; }
  int size() const { return static_cast<int>(nodes_.size()); }

  void Place(int node, const PodSpec& pod, int card);

  int64_t gpu_capacity_milli() const { return gpu_capacity_milli_; }
  int64_t gpu_allocated_milli() const { return gpu_allocated_milli_; }

 private:
  std::vector<NodeState> nodes_;
  int64_t gpu_capacity_milli_ = 0;
  int64_t gpu_allocated_milli_ = 0;
};

}  // namespace basalt::fgd
