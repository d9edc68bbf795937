#include "sim/fgd/cluster.h"

#include "api/check.h"

namespace basalt::fgd {

int64_t NodeState::GpuLeftTotal() const {
  int64_t total = 0;
  for (int g = 0; g < gpus; ++g) total += gpu_left[static_cast<size_t>(g)];
  return total;
}

int NodeState::FullyFreeCards() const { return CardsWithAtLeast(kMilliPerGpu); }

int NodeState::CardsWithAtLeast(int milli) const {
  int count = 0;
  for (int g = 0; g < gpus; ++g) count += gpu_left[static_cast<size_t>(g)] >= milli ? 1 : 0;
  return count;
}

int NodeState::DistinctTags() const {
  int count = 0;
  for (int c : pods_by_tag) count += c > 0 ? 1 : 0;
  return count;
}

int BestFitCard(const NodeState& n, int milli) {
  int best = -1;
  for (int g = 0; g < n.gpus; ++g) {
    int left = n.gpu_left[static_cast<size_t>(g)];
    if (left < milli) continue;
    if (best < 0 || left < n.gpu_left[static_cast<size_t>(best)]) best = g;
  }
  return best;
}

int AffinityTag(const PodSpec& pod) {
  if (pod.num_gpu == 0) return -1;
  return pod.SharesGpu() ? 0 : pod.num_gpu;
}

bool Fits(const NodeState& n, const PodSpec& pod) {
  if (n.cpu_left < pod.cpu_milli || n.memory_left < pod.memory_mib) return false;
  if (pod.num_gpu == 0) return true;
  if (n.gpus == 0 || !pod.MayUseModel(n.model)) return false;
  return n.CardsWithAtLeast(pod.gpu_milli) >= pod.num_gpu;
}

void Place(NodeState& n, const PodSpec& pod, int card) {
  BASALT_CHECK(n.cpu_left >= pod.cpu_milli && n.memory_left >= pod.memory_mib);
  n.cpu_left -= pod.cpu_milli;
  n.memory_left -= pod.memory_mib;
  if (pod.num_gpu == 0) return;
  if (pod.SharesGpu()) {
    BASALT_CHECK(card >= 0 && card < n.gpus &&
                 n.gpu_left[static_cast<size_t>(card)] >= pod.gpu_milli);
    n.gpu_left[static_cast<size_t>(card)] -= pod.gpu_milli;
  } else {
    int needed = pod.num_gpu;
    for (int g = 0; g < n.gpus && needed > 0; ++g) {
      if (n.gpu_left[static_cast<size_t>(g)] == kMilliPerGpu) {
        n.gpu_left[static_cast<size_t>(g)] = 0;
        --needed;
      }
    }
    BASALT_CHECK(needed == 0);
  }
  ++n.pods_by_tag[static_cast<size_t>(AffinityTag(pod))];
}

Cluster::Cluster(const std::vector<NodeSpec>& nodes) {
  nodes_.reserve(nodes.size());
  for (const auto& spec : nodes) {
    NodeState n;
    n.cpu_left = spec.cpu_milli;
    n.memory_left = spec.memory_mib;
    n.gpus = spec.gpus;
    n.model = spec.model;
    for (int g = 0; g < spec.gpus; ++g) n.gpu_left[static_cast<size_t>(g)] = kMilliPerGpu;
    gpu_capacity_milli_ += int64_t{spec.gpus} * kMilliPerGpu;
    nodes_.push_back(n);
  }
}

void Cluster::Place(int node, const PodSpec& pod, int card) {
  fgd::Place(nodes_[static_cast<size_t>(node)], pod, card);
  gpu_allocated_milli_ += pod.TotalGpuMilli();
}

}  // namespace basalt::fgd
