// nodeorder: Kubernetes score plugins Volcano sums per (task, node)
// (docs/plugins/nodeorder.md; Volcano pkg/scheduler/plugins/nodeorder).
//
// Map score (per node) = Σ weight × plugin score, each plugin score in 0..100
// computed with Kubernetes' integer arithmetic:
//   * leastrequested (NodeResourcesFit, LeastAllocated, cpu and memory weighted
//     50/50): per resource (alloc - req) * 100 / alloc (0 when req > alloc), then
//     Σ score_r * w_r / Σ w_r over the resources whose allocatable is non-zero;
//   * mostrequested (MostAllocated, weights 1/1): min(req, alloc) * 100 / alloc,
//     averaged the same way;
//     For both, "req" is the node's non-zero requested plus the pod's non-zero
//     request: a pod without a cpu request counts 100m, without a memory request
//     200Mi (Kubernetes' NonZeroRequested; the Fit plugin scores with it).
//   * balancedresource (NodeResourcesBalancedAllocation over cpu, memory and
//     nvidia.com/gpu): fractions f_r = min(req_r / alloc_r, 1) with the plain
//     requested values, over cpu, memory, and the GPU only when the pod requests
//     one and the node has it; score = int((1 - std(f)) * 100), std being
//     |f0 - f1| / 2 for two fractions and the population standard deviation for
//     three. A pod requesting none of the three (BestEffort) scores 0.
//   * nodeaffinity: the sum of the weights of the pod's preferred node affinity
//     terms that match the node, NOT normalised. Volcano calls Kubernetes'
//     NodeAffinity.Score without its NormalizeScore (its source carries
//     "TODO: should we normalize the score"), so a node matching a weight-80
//     term gets 80 × nodeaffinity.weight.
//   * imagelocality: 0 (basalt knows no images).
// Batch score (normalised across the nodes being scored):
//   * tainttoleration: the number of PreferNoSchedule taints the pod does not
//     tolerate, normalised with Kubernetes' DefaultNormalizeScore reversed:
//     100 - 100 * count / max(count); every node gets 100 when no node has such
//     a taint. Times tainttoleration.weight, so by default every node carries a
//     constant 300 here.
//   * podaffinity, podtopologyspread: 0 (basalt models no inter-pod affinity or
//     spread constraints; Kubernetes skips both plugins for such pods).
//
// Node view. "Requested" is what Kubernetes' NodeInfo holds for the node in
// Volcano's session: every pod on the node at the snapshot (Releasing ones
// included), plus the pods allocated or pipelined in the session, minus the
// ones evicted, unpipelined or unallocated in it. Volcano shares that view with
// the predicates plugin, and only the predicates plugin's event handlers keep it
// current: with no `predicates` in the configuration, scores see the snapshot as
// it was when the session opened. basalt reproduces both cases.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/k8s_match.h"

namespace basalt {
namespace {

constexpr int64_t kMaxNodeScore = 100;
// Kubernetes' defaults for containers that request no cpu / memory
// (pkg/scheduler/util: DefaultMilliCPURequest, DefaultMemoryRequest).
constexpr int64_t kDefaultMilliCpuRequest = 100;
constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;
constexpr const char* kGpuResource = "nvidia.com/gpu";

struct Weights {
  int64_t least_requested = 1;
  int64_t most_requested = 0;
  int64_t balanced_resource = 1;
  int64_t node_affinity = 2;
  int64_t pod_affinity = 2;
  int64_t taint_toleration = 3;
  int64_t image_locality = 1;
  int64_t pod_topology_spread = 2;
};

// Kubernetes computes non-zero requests per container; basalt keeps only the
// pod's total, so the default applies when the pod as a whole requests none
// (exact for single-container pods).
int64_t NonZeroCpu(const Resource& r) {
  return r.milli_cpu() == 0 ? kDefaultMilliCpuRequest : r.milli_cpu();
}
int64_t NonZeroMemory(const Resource& r) {
  return r.memory() == 0 ? kDefaultMemoryRequest : r.memory();
}

// The parts of Kubernetes' NodeInfo the resource scores read.
struct NodeRequested {
  int64_t cpu = 0;  // Requested
  int64_t memory = 0;
  int64_t gpu = 0;
  int64_t nonzero_cpu = 0;  // NonZeroRequested
  int64_t nonzero_memory = 0;

  void Add(const Resource& r, ResourceId gpu_id, int64_t sign) {
    cpu += sign * r.milli_cpu();
    memory += sign * r.memory();
    gpu += sign * r.Get(gpu_id);
    nonzero_cpu += sign * NonZeroCpu(r);
    nonzero_memory += sign * NonZeroMemory(r);
  }
};

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * kMaxNodeScore / capacity;
}

// One resource of a Fit strategy: allocatable, requested after placement, weight.
struct FitTerm {
  int64_t allocatable;
  int64_t requested;
  int64_t weight;
};

// Σ score_r * w_r / Σ w_r over the resources with a non-zero allocatable
// (Kubernetes skips the others entirely); 0 when none is left.
template <typename ScoreFn>
int64_t WeightedFitScore(const FitTerm (&terms)[2], ScoreFn score) {
  int64_t sum = 0, weights = 0;
  for (const FitTerm& t : terms) {
    if (t.allocatable == 0) continue;
    sum += score(t.requested, t.allocatable) * t.weight;
    weights += t.weight;
  }
  return weights == 0 ? 0 : sum / weights;
}

class NodeOrderPlugin : public Plugin {
 public:
  explicit NodeOrderPlugin(Weights w) : w_(w) {}
  std::string_view Name() const override { return "nodeorder"; }

  void OnSessionOpen(Session& ssn) override {
    gpu_ = ResourceNames::Intern(kGpuResource);
    views_.assign(ssn.nodes().size(), NodeRequested());
    for (const NodeInfo& node : ssn.nodes()) {
      for (TaskId id : node.tasks) views_[node.id].Add(ssn.task(id).request, gpu_, +1);
    }
    if (HasPlugin(ssn.config(), "predicates")) {
      ssn.AddEventHandler(EventHandler{
          [this](const TaskInfo& t) {
            if (t.node != kNone) views_[t.node].Add(t.request, gpu_, +1);
          },
          [this](const TaskInfo& t) {
            if (t.node != kNone) views_[t.node].Add(t.request, gpu_, -1);
          },
      });
    }
    ssn.AddNodeOrderFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return MapScore(task, node); });
    // Subset-uniform (framework/session.h): taint counts depend on the pod's
    // tolerations and the node's taints only, and scores that are equal over a
    // set (all counts 0, or all equal to the maximum) stay equal over a subset.
    ssn.AddBatchNodeOrderFn(
        [this](const TaskInfo& task, const std::vector<const NodeInfo*>& nodes) {
          return BatchScores(task, nodes);
        },
        /*subset_uniform=*/true);
  }

 private:
  static bool HasPlugin(const SchedulerConfig& conf, const std::string& name) {
    for (const Tier& tier : conf.tiers) {
      for (const PluginOption& p : tier.plugins) {
        if (p.name == name) return true;
      }
    }
    return false;
  }

  double MapScore(const TaskInfo& task, const NodeInfo& node) const {
    const NodeRequested& v = views_[node.id];
    double score = 0;
    // Image locality scores 0 without image data; its weight changes nothing.
    if (w_.least_requested != 0)
      score += static_cast<double>(LeastAllocated(node, v, task.request) * w_.least_requested);
    if (w_.most_requested != 0)
      score += static_cast<double>(MostAllocated(node, v, task.request) * w_.most_requested);
    if (w_.balanced_resource != 0) {
      score +=
          static_cast<double>(BalancedAllocation(node, v, task.request) * w_.balanced_resource);
    }
    if (w_.node_affinity != 0 && node.node != nullptr) {
      score += static_cast<double>(k8s::PreferredNodeAffinityScore(task.pod->spec, *node.node) *
                                   w_.node_affinity);
    }
    return score;
  }

  static int64_t LeastAllocated(const NodeInfo& node, const NodeRequested& v, const Resource& req) {
    const FitTerm terms[2] = {
        {node.allocatable.milli_cpu(), v.nonzero_cpu + NonZeroCpu(req), 50},
        {node.allocatable.memory(), v.nonzero_memory + NonZeroMemory(req), 50},
    };
    return WeightedFitScore(terms, LeastRequestedScore);
  }

  static int64_t MostAllocated(const NodeInfo& node, const NodeRequested& v, const Resource& req) {
    const FitTerm terms[2] = {
        {node.allocatable.milli_cpu(), v.nonzero_cpu + NonZeroCpu(req), 1},
        {node.allocatable.memory(), v.nonzero_memory + NonZeroMemory(req), 1},
    };
    return WeightedFitScore(terms, MostRequestedScore);
  }

  int64_t BalancedAllocation(const NodeInfo& node, const NodeRequested& v,
                             const Resource& req) const {
    const int64_t pod_gpu = req.Get(gpu_);
    if (req.milli_cpu() == 0 && req.memory() == 0 && pod_gpu == 0) return 0;
    // (allocatable, requested) in Kubernetes' resource order: cpu, memory, gpu.
    // A GPU the pod does not request, or the node does not list, is left out.
    std::pair<int64_t, int64_t> terms[3] = {
        {node.allocatable.milli_cpu(), v.cpu + req.milli_cpu()},
        {node.allocatable.memory(), v.memory + req.memory()},
        {0, 0},
    };
    if (pod_gpu != 0 && node.allocatable.Has(gpu_))
      terms[2] = {node.allocatable.Get(gpu_), v.gpu + pod_gpu};
    // Float steps in the same order as Kubernetes, so results match bit for bit.
    double fractions[3];
    int n = 0;
    double total = 0;
    for (const auto& [alloc, requested] : terms) {
      if (alloc == 0) continue;
      double f = static_cast<double>(requested) / static_cast<double>(alloc);
      if (f > 1) f = 1;
      total += f;
      fractions[n++] = f;
    }
    double std_dev = 0;
    if (n == 2) {
      std_dev = std::fabs((fractions[0] - fractions[1]) / 2);
    } else if (n > 2) {
      const double mean = total / n;
      double sum = 0;
      for (int i = 0; i < n; ++i) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
      std_dev = std::sqrt(sum / n);
    }
    return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
  }

  std::vector<double> BatchScores(const TaskInfo& task,
                                  const std::vector<const NodeInfo*>& nodes) const {
    // TaintToleration: raw counts, then DefaultNormalizeScore(100, reverse).
    std::vector<int64_t> counts(nodes.size(), 0);
    int64_t max_count = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->node == nullptr) continue;
      counts[i] =
          k8s::CountIntolerablePreferNoSchedule(nodes[i]->node->taints, task.pod->spec.tolerations);
      max_count = std::max(max_count, counts[i]);
    }
    std::vector<double> out(nodes.size(), 0.0);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const int64_t normalized =
          max_count == 0 ? kMaxNodeScore : kMaxNodeScore - kMaxNodeScore * counts[i] / max_count;
      // Pod affinity and topology spread add 0 (see the file comment).
      out[i] = static_cast<double>(normalized * w_.taint_toleration);
    }
    return out;
  }

  Weights w_;
  ResourceId gpu_ = 0;
  std::vector<NodeRequested> views_;  // by NodeId
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewNodeOrderPlugin(const Arguments& args) {
  Weights w;
  const std::pair<const char*, int64_t*> kWeights[] = {
      {"leastrequested.weight", &w.least_requested},
      {"mostrequested.weight", &w.most_requested},
      {"balancedresource.weight", &w.balanced_resource},
      {"nodeaffinity.weight", &w.node_affinity},
      {"podaffinity.weight", &w.pod_affinity},
      {"tainttoleration.weight", &w.taint_toleration},
      {"imagelocality.weight", &w.image_locality},
      {"podtopologyspread.weight", &w.pod_topology_spread},
  };
  for (const auto& [key, out] : kWeights) BASALT_RETURN_IF_ERROR(args.GetInt(key, out));
  return std::unique_ptr<Plugin>(new NodeOrderPlugin(w));
}

}  // namespace basalt
