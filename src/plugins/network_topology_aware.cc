// network-topology-aware: scores HyperNodes for topology-constrained gangs and
// nodes for every pod, from the HyperNode tree (docs/plugins/network-topology-aware.md,
// docs/topology.md; Volcano pkg/scheduler/plugins/network-topology-aware).
//
// Arguments (a wrong type is an error; unknown keys are warned about):
//   weight (1)                                  scales every score (negative: 1)
//   hypernode.binpack.cpu (1), .memory (1)      per-resource binpacking weights
//   hypernode.binpack.resources ("")            extra resource names, comma-separated
//   hypernode.binpack.resources.<name> (1)      their weights
//   hypernode.binpack.normal-pod.enable (true)  HyperNode binpacking for pods without a constraint
//   hypernode.binpack.normal-pod.fading (0.8)   tier t weighs fading^(t-1) (negative: 0.8)
//
// HyperNode order (enabledHyperNodeOrder), for a constrained job's candidates:
//   binpack(h) = Σ_r w_r (used_r(h) + req_r) / alloc_r(h) / Σ_r w_r over the
//   resources the job's pods request (req: all its pods), 0 if any overflows;
//   the HyperNodes sharing the best binpack score add the fraction of the
//   job's pods already placed in them; times 100 x weight.
// Node order (enableNodeOrder):
//   * pods of a constrained job: 1 on a node of the leaf HyperNode the job's
//     placed pods span, else (maxTier - tier of the common ancestor) /
//     (maxTier - minTier), 0 without one; the best nodes add the fraction of
//     the job's pods in their leaf; times 100 x weight;
//   * other pods: Σ_t fading^(t-1) binpack_t / Σ_t fading^(t-1) over the
//     tiers, binpack_t for the pod alone on the node's HyperNode of tier t (1
//     when it has none); times 100 x weight.
// HyperNode gradient (enabledHyperNodeGradient): with the plugin in the
// configuration, hard and soft network topology constraints of jobs and
// SubGroups apply (docs/topology.md); without it, or with the switch off,
// they constrain nothing, as in Volcano v1.15.1.
// A session without HyperNodes registers no scores: every node would score
// the same, so scheduling is exactly as without the plugin.
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/text.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/resource_weights.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr double kMaxNodeScore = 100;

struct TopologyAwareOptions {
  int64_t weight = 1;
  std::map<ResourceId, int64_t> binpack;  // cpu and memory always present
  bool normal_pod_enable = true;
  double normal_pod_fading = 0.8;
};

class NetworkTopologyAwarePlugin : public Plugin {
 public:
  explicit NetworkTopologyAwarePlugin(TopologyAwareOptions o) : opts_(std::move(o)) {}
  std::string_view Name() const override { return "network-topology-aware"; }

  void OnSessionOpen(Session& ssn) override {
    ssn_ = &ssn;
    // The plugin is what makes networkTopology constrain placement (Volcano
    // v1.15.1 places by topology only through its gradient functions).
    ssn.AddHyperNodeGradient();
    const HyperNodeTree& tree = ssn.hypernodes();
    if (tree.empty()) return;
    min_tier_ = tree.tiers().front();
    max_tier_ = tree.tiers().back();
    used_.assign(tree.size(), Resource());
    alloc_.assign(tree.size(), Resource());
    changes_.assign(tree.size(), 0);
    cached_.assign(tree.size(), Cached{});
    for (HyperNodeId h = 0; h < static_cast<HyperNodeId>(tree.size()); ++h) {
      for (NodeId n : tree.at(h).nodes) {
        alloc_[h] += ssn.node(n).allocatable;
        used_[h] += ssn.node(n).used();
      }
    }
    ssn.AddEventHandler(EventHandler{[this](const TaskInfo& t) { Account(t, +1); },
                                     [this](const TaskInfo& t) { Account(t, -1); }});
    ssn.AddHyperNodeOrderFn([this](const JobInfo& job, const std::vector<HyperNodeId>& hs) {
      return HyperNodeScores(job, hs);
    });
    ssn.AddBatchNodeOrderFn([this](const TaskInfo& task, const std::vector<const NodeInfo*>& ns) {
      return NodeScores(task, ns);
    });
  }

 private:
  void Account(const TaskInfo& task, int sign) {
    if (task.node == kNone) return;
    for (HyperNodeId h : ssn_->hypernodes().Containing(task.node)) {
      ++changes_[h];
      if (sign > 0) {
        used_[h] += task.request;
      } else {
        used_[h] -= task.request;
      }
    }
  }

  // The weighted fill of `h` with `request` added, over the weighted
  // resources `request` asks for; 0 when one would overflow.
  double Binpack(HyperNodeId h, const Resource& request) const {
    std::vector<std::pair<ResourceId, int64_t>> asked = {
        {ResourceNames::kCpu, request.milli_cpu()}, {ResourceNames::kMemory, request.memory()}};
    for (const auto& s : request.scalars()) asked.push_back(s);
    double score = 0;
    int64_t weights = 0;
    for (const auto& [id, req] : asked) {
      auto w = opts_.binpack.find(id);
      if (req <= 0 || w == opts_.binpack.end()) continue;
      const double alloc = static_cast<double>(alloc_[h].Get(id));
      const double filled = static_cast<double>(used_[h].Get(id) + req);
      if (filled > alloc) return 0;
      score += static_cast<double>(w->second) * filled / alloc;
      weights += w->second;
    }
    return weights > 0 ? score / static_cast<double>(weights) : 0;
  }

  // Per HyperNode, how many of `job`'s pods are on its nodes.
  std::map<HyperNodeId, int32_t> PlacedCounts(const JobInfo& job) const {
    std::map<HyperNodeId, int32_t> counts;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn_->task(id);
      if (t.node == kNone) continue;
      for (HyperNodeId h : ssn_->hypernodes().Containing(t.node)) ++counts[h];
    }
    return counts;
  }

  // The binpack score of `h` for the job's request, computed again only when
  // the HyperNode's placements or the request changed: allocate asks for every
  // HyperNode of a tier per gang, and most of them did not change since.
  double JobBinpack(HyperNodeId h, const Resource& request) const {
    if (!(request == cached_request_)) {
      cached_request_ = request;
      ++request_generation_;
    }
    Cached& c = cached_[h];
    if (c.generation != request_generation_ || c.changes != changes_[h]) {
      c = Cached{request_generation_, changes_[h], Binpack(h, request)};
    }
    return c.score;
  }

  double Scale(double score) const {
    return kMaxNodeScore * static_cast<double>(opts_.weight) * score;
  }

  std::vector<double> HyperNodeScores(const JobInfo& job,
                                      const std::vector<HyperNodeId>& hs) const {
    std::vector<double> scores;
    double best = -1;
    for (HyperNodeId h : hs) {
      scores.push_back(JobBinpack(h, job.total_request));
      best = std::max(best, scores.back());
    }
    AddShareOnTies(job, hs, best, &scores);
    for (double& s : scores) s = Scale(s);
    return scores;
  }

  // Where several share the best score, the job's share in each breaks the tie.
  void AddShareOnTies(const JobInfo& job, const std::vector<HyperNodeId>& hs, double best,
                      std::vector<double>* scores) const {
    size_t at_best = 0;
    for (double s : *scores) at_best += s == best;
    if (at_best < 2) return;
    if (job.tasks.empty()) {  // Volcano: a job without pods has the whole share everywhere
      for (double& s : *scores) s += s == best ? 1 : 0;
      return;
    }
    const std::map<HyperNodeId, int32_t> counts = PlacedCounts(job);
    if (counts.empty()) return;  // every share is 0
    const double total = static_cast<double>(job.tasks.size());
    for (size_t i = 0; i < hs.size(); ++i) {
      auto it = hs[i] == kNone ? counts.end() : counts.find(hs[i]);
      if ((*scores)[i] == best && it != counts.end()) (*scores)[i] += it->second / total;
    }
  }

  std::vector<double> NodeScores(const TaskInfo& task,
                                 const std::vector<const NodeInfo*>& nodes) const {
    const HyperNodeTree& tree = ssn_->hypernodes();
    if (task.job != kNone) {
      const JobInfo& job = ssn_->job(task.job);
      if (ConstraintOf(job, tree).kind != TopologyConstraint::Kind::kNone) {
        return ConstrainedNodeScores(job, nodes);
      }
    }
    std::vector<double> scores(nodes.size(), 0.0);
    if (!opts_.normal_pod_enable) return scores;
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] = Scale(FadedBinpack(task, nodes[i]->id));
    return scores;
  }

  double FadedBinpack(const TaskInfo& task, NodeId node) const {
    const HyperNodeTree& tree = ssn_->hypernodes();
    double total = 0, weights = 0;
    for (int32_t tier = min_tier_; tier <= max_tier_; ++tier) {
      const double w = std::pow(opts_.normal_pod_fading, static_cast<double>(tier - 1));
      double tier_score = 1;  // no HyperNode of this tier holds the node
      for (HyperNodeId h : tree.Containing(node)) {
        if (tree.at(h).tier != tier) continue;
        tier_score = Binpack(h, task.request);
        break;
      }
      total += w * tier_score;
      weights += w;
    }
    return weights > 0 ? total / weights : 0;
  }

  double TierScore(int32_t tier) const {
    if (min_tier_ == max_tier_) return 1;
    if (tier < min_tier_ || tier > max_tier_) return 0;
    return static_cast<double>(max_tier_ - tier) / static_cast<double>(max_tier_ - min_tier_);
  }

  std::vector<double> ConstrainedNodeScores(const JobInfo& job,
                                            const std::vector<const NodeInfo*>& nodes) const {
    const HyperNodeTree& tree = ssn_->hypernodes();
    std::vector<double> scores(nodes.size(), 0.0);
    HyperNodeId span = kNone;
    bool placed = false;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = ssn_->task(id);
      HyperNodeId leaf = t.node == kNone || t.best_effort ? kNone : tree.LeafOf(t.node);
      if (leaf == kNone) continue;
      span = placed ? tree.Lca(span, leaf) : leaf;
      placed = true;
      if (span == kNone) break;
    }
    if (span == kNone) return scores;
    std::vector<HyperNodeId> leaves;
    double best = -1;
    for (size_t i = 0; i < nodes.size(); ++i) {
      HyperNodeId leaf = tree.LeafOf(nodes[i]->id);
      leaves.push_back(leaf);
      HyperNodeId lca = leaf == kNone ? kNone : tree.Lca(leaf, span);
      scores[i] = leaf == span ? 1 : lca == kNone ? 0 : TierScore(tree.at(lca).tier);
      best = std::max(best, scores[i]);
    }
    AddShareOnTies(job, leaves, best, &scores);
    for (double& s : scores) s = Scale(s);
    return scores;
  }

  TopologyAwareOptions opts_;
  Session* ssn_ = nullptr;
  int32_t min_tier_ = 0, max_tier_ = 0;
  std::vector<Resource> used_, alloc_;  // per HyperNode
  // Per HyperNode: placements counted so far, and the last job binpack score.
  struct Cached {
    uint64_t generation = 0;  // of the request it was computed for
    uint64_t changes = 0;
    double score = 0;
  };
  std::vector<uint64_t> changes_;
  mutable std::vector<Cached> cached_;
  mutable Resource cached_request_;
  mutable uint64_t request_generation_ = 1;
};

constexpr const char* kKnown =
    "weight, hypernode.binpack.cpu, hypernode.binpack.memory, hypernode.binpack.resources, "
    "hypernode.binpack.resources.<name>, hypernode.binpack.normal-pod.enable, "
    "hypernode.binpack.normal-pod.fading";

}  // namespace

Result<std::unique_ptr<Plugin>> NewNetworkTopologyAwarePlugin(const Arguments& args) {
  TopologyAwareOptions o;
  int64_t cpu = 1, memory = 1;
  BASALT_RETURN_IF_ERROR(args.GetInt("weight", &o.weight));
  BASALT_RETURN_IF_ERROR(args.GetInt("hypernode.binpack.cpu", &cpu));
  BASALT_RETURN_IF_ERROR(args.GetInt("hypernode.binpack.memory", &memory));
  BASALT_RETURN_IF_ERROR(ReadResourceWeightList(args, "hypernode.binpack.", &o.binpack));
  BASALT_RETURN_IF_ERROR(args.GetBool("hypernode.binpack.normal-pod.enable", &o.normal_pod_enable));
  BASALT_RETURN_IF_ERROR(
      args.GetDouble("hypernode.binpack.normal-pod.fading", &o.normal_pod_fading));
  if (o.weight < 0) o.weight = 1;
  if (o.normal_pod_fading < 0) o.normal_pod_fading = 0.8;
  o.binpack[ResourceNames::kCpu] = cpu < 0 ? 1 : cpu;
  o.binpack[ResourceNames::kMemory] = memory < 0 ? 1 : memory;
  WarnUnknownArguments(
      args,
      [](const std::string& key) {
        if (key == "weight" || key.rfind("hypernode.binpack.", 0) == 0) return std::string();
        return key;
      },
      kKnown);
  return std::unique_ptr<Plugin>(new NetworkTopologyAwarePlugin(std::move(o)));
}

}  // namespace basalt
