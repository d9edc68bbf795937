// numa-aware: place Guaranteed pods with integral CPUs where the kubelet's
// topology manager will admit them (Volcano pkg/scheduler/plugins/numaaware;
// docs/plugins/numa-aware.md).
//
// Inputs: a Numatopology object per node (api/numatopology.h): the kubelet's
// CPU-manager and topology-manager policies, the CPUs the CPU manager may hand
// out (`numares.cpu.allocatable`), the reserved CPUs (`resReserved.cpu`) and
// where each CPU sits (`cpuDetail`); the pod annotation
// `volcano.sh/numa-topology-policy` (none, best-effort, restricted,
// single-numa-node).
//
// Per node the plugin keeps the free CPU set: the allocatable set less the CPUs
// of the pods on the node. Pods already on a node at session open are replayed
// in (creation, name) order; pods placed during the session take their CPUs in
// the allocate event and give them back in the deallocate event, so the
// predicate always sees the CPUs of every placement made so far.
//
// For one container asking for R whole CPUs (the CPU manager's hint provider):
//   a hint is a set of NUMA nodes whose free CPUs number at least R; it is
//   preferred when its size is the smallest size of any NUMA set whose CPUs
//   (free or not) could hold R.
// The node's topology-manager policy picks the best hint (preferred first,
// then fewest NUMA nodes, then lowest ids) and admits:
//   none, best-effort: always;  restricted: a preferred hint;
//   single-numa-node: a preferred hint of exactly one NUMA node.
// The container then takes R CPUs, those of the hint's NUMA nodes first (whole
// cores first), and the next container sees what is left.
//
// Predicate (Guaranteed pods only; others always pass):
//   pod policy set (not none): the node needs a Numatopology, CPU manager
//     `static`, the same topology-manager policy and a non-empty CPU set, else
//     Unresolvable; then every container must be admitted, else Unschedulable.
//   pod policy none: nodes without NUMA information, without the static CPU
//     manager or with topology policy none pass; others check admission as above.
// BatchNodeOrder (pods with a policy): n = NUMA nodes the pod's CPUs would span
//   on each node; score = weight * (100 - 100 * n / max n) (100 when max n = 0).
//
// Argument: `weight` (integer, default 1), Volcano's name; an unknown argument
// is ignored with a warning on stderr.
//
// Predicate answers depend on the pod's annotation, QoS and per-container
// CPUs, which the session's equivalence classes do not see: the plugin splits
// each class by them so that per-class caches of node selection stay exact.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "api/numatopology.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr const char* kPolicyAnnotation = "volcano.sh/numa-topology-policy";
constexpr int64_t kMaxScore = 100;
constexpr const char* kWeightArgument = "weight";

enum class TopologyPolicy { kNone, kBestEffort, kRestricted, kSingleNumaNode };

std::optional<TopologyPolicy> ParseTopologyPolicy(const std::string& text) {
  if (text.empty() || text == "none") return TopologyPolicy::kNone;
  if (text == "best-effort") return TopologyPolicy::kBestEffort;
  if (text == "restricted") return TopologyPolicy::kRestricted;
  if (text == "single-numa-node") return TopologyPolicy::kSingleNumaNode;
  return std::nullopt;
}

// A set of NUMA nodes of one machine: bit i is the machine's i-th NUMA id in
// ascending order (Numatopology decoding bounds them to 16).
using NumaMask = uint32_t;

struct Hint {
  NumaMask mask = 0;
  bool preferred = false;
};

// Kubernetes' bitmask narrowness: fewer NUMA nodes, then the lower mask.
bool Narrower(NumaMask a, NumaMask b) {
  const int ca = std::popcount(a), cb = std::popcount(b);
  return ca != cb ? ca < cb : a < b;
}

// One node's NUMA layout and free CPUs.
struct NodeTopology {
  const Numatopology* topo = nullptr;
  bool cpu_static = false;
  TopologyPolicy policy = TopologyPolicy::kNone;
  std::string policy_text;
  std::vector<int32_t> numa_ids;    // ascending
  std::map<int32_t, int> numa_bit;  // numa id -> bit
  std::vector<int> cpus_per_numa;   // all described CPUs, per bit
  std::set<int32_t> allocatable;    // numares.cpu.allocatable less reserved
  std::set<int32_t> free;           // allocatable less the pods' CPUs

  NumaMask AllNuma() const { return numa_ids.empty() ? 0 : (NumaMask{1} << numa_ids.size()) - 1; }
  int BitOf(int32_t cpu) const { return numa_bit.at(topo->cpu_detail.at(cpu).numa); }
};

// Takes `count` CPUs of `from` as the CPU manager would pack them: whole
// physical cores first (in socket, core order), then single CPUs in (socket,
// core, id) order. Returns nullopt when `from` has fewer than `count`.
std::optional<std::vector<int32_t>> TakeByTopology(const Numatopology& topo,
                                                   const std::set<int32_t>& from, size_t count) {
  if (from.size() < count) return std::nullopt;
  using CoreKey = std::pair<int32_t, int32_t>;  // (socket, core)
  std::map<CoreKey, std::vector<int32_t>> all_of_core, free_of_core;
  for (const auto& [cpu, p] : topo.cpu_detail) all_of_core[{p.socket, p.core}].push_back(cpu);
  for (int32_t cpu : from) {
    const CpuPlacement& p = topo.cpu_detail.at(cpu);
    free_of_core[{p.socket, p.core}].push_back(cpu);
  }
  std::vector<int32_t> taken;
  std::set<int32_t> used;
  for (const auto& [core, cpus] : free_of_core) {
    if (taken.size() + cpus.size() > count) continue;
    if (cpus.size() != all_of_core[core].size()) continue;  // a sibling is busy
    taken.insert(taken.end(), cpus.begin(), cpus.end());
    used.insert(cpus.begin(), cpus.end());
  }
  for (const auto& [core, cpus] : free_of_core) {
    for (int32_t cpu : cpus) {
      if (taken.size() == count) break;
      if (used.insert(cpu).second) taken.push_back(cpu);
    }
  }
  std::sort(taken.begin(), taken.end());
  return taken;
}

// The CPU manager's hints for R CPUs out of `available`, filtered and merged by
// `policy`; returns the best hint and whether the policy admits it.
std::pair<Hint, bool> BestHint(const NodeTopology& node, const std::set<int32_t>& available,
                               int64_t cpus, TopologyPolicy policy) {
  if (policy == TopologyPolicy::kNone) return {Hint{0, true}, true};
  const size_t n = node.numa_ids.size();
  std::vector<int> free_per_numa(n, 0);
  for (int32_t cpu : available) ++free_per_numa[node.BitOf(cpu)];
  int min_affinity = static_cast<int>(n);
  std::vector<NumaMask> fitting;
  for (NumaMask mask = 1; mask <= node.AllNuma(); ++mask) {
    int64_t total = 0, free = 0;
    for (size_t b = 0; b < n; ++b) {
      if (mask & (NumaMask{1} << b)) {
        total += node.cpus_per_numa[b];
        free += free_per_numa[b];
      }
    }
    if (total >= cpus) min_affinity = std::min(min_affinity, std::popcount(mask));
    if (free >= cpus) fitting.push_back(mask);
  }
  Hint best{node.AllNuma(), false};
  for (NumaMask mask : fitting) {
    const Hint h{mask, std::popcount(mask) == min_affinity};
    if (policy == TopologyPolicy::kSingleNumaNode && !(h.preferred && std::popcount(mask) == 1))
      continue;
    if (h.preferred != best.preferred) {
      if (h.preferred) best = h;
      continue;
    }
    if (Narrower(h.mask, best.mask)) best = h;
  }
  const bool admit = policy == TopologyPolicy::kBestEffort || best.preferred;
  return {best, admit};
}

struct PodPinning {
  bool guaranteed = false;
  bool policy_valid = true;
  TopologyPolicy policy = TopologyPolicy::kNone;
  std::string policy_text;
  const std::vector<int64_t>* containers = nullptr;  // milli-CPU per app container
};

PodPinning PinningOf(const TaskInfo& task) {
  PodPinning p;
  if (!task.pod) return p;
  p.guaranteed = task.pod->spec.qos_guaranteed;
  p.containers = &task.pod->spec.container_milli_cpu;
  auto it = task.pod->meta.annotations.find(kPolicyAnnotation);
  if (it != task.pod->meta.annotations.end()) {
    p.policy_text = it->second;
    auto parsed = ParseTopologyPolicy(it->second);
    p.policy_valid = parsed.has_value();
    if (parsed) p.policy = *parsed;
  }
  return p;
}

// The CPUs the pod's containers take on `node` under the node's policy, or
// nullopt when the policy refuses a container. With `force` (pods already
// placed) nothing is refused. A container without whole CPUs takes none; so
// does one the free CPUs cannot hold (as Volcano's CPU manager provider).
std::optional<std::vector<int32_t>> AssignCpus(const NodeTopology& node, const PodPinning& pod,
                                               bool force) {
  std::set<int32_t> available = node.free;
  std::vector<int32_t> all;
  for (int64_t milli : *pod.containers) {
    if (milli <= 0 || milli % 1000 != 0) continue;
    const int64_t cpus = milli / 1000;
    auto [hint, admit] = BestHint(node, available, cpus, node.policy);
    if (!admit && !force) return std::nullopt;
    std::vector<int32_t> taken;
    if (hint.mask != 0) {
      std::set<int32_t> aligned;
      for (int32_t cpu : available) {
        if (hint.mask & (NumaMask{1} << node.BitOf(cpu))) aligned.insert(cpu);
      }
      const size_t want = std::min<size_t>(aligned.size(), static_cast<size_t>(cpus));
      taken = TakeByTopology(*node.topo, aligned, want).value_or(std::vector<int32_t>{});
    }
    std::set<int32_t> rest = available;
    for (int32_t cpu : taken) rest.erase(cpu);
    auto more = TakeByTopology(*node.topo, rest, static_cast<size_t>(cpus) - taken.size());
    if (!more) continue;  // not enough free CPUs: the container gets none
    taken.insert(taken.end(), more->begin(), more->end());
    for (int32_t cpu : taken) available.erase(cpu);
    all.insert(all.end(), taken.begin(), taken.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

int NumaCount(const NodeTopology& node, const std::vector<int32_t>& cpus) {
  NumaMask mask = 0;
  for (int32_t cpu : cpus) mask |= NumaMask{1} << node.BitOf(cpu);
  return std::popcount(mask);
}

class NumaAwarePlugin : public Plugin {
 public:
  explicit NumaAwarePlugin(int64_t weight) : weight_(weight) {}
  std::string_view Name() const override { return "numa-aware"; }

  void OnSessionOpen(Session& ssn) override {
    BuildNodes(ssn);
    SplitClasses(ssn);
    ReplayPlacedPods(ssn);
    ssn.AddEventHandler(EventHandler{
        [this](const TaskInfo& task) { Take(task); },
        [this](const TaskInfo& task) { GiveBack(task); },
    });
    ssn.AddPredicateFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return Predicate(task, node); });
    ssn.AddBatchNodeOrderFn(
        [this](const TaskInfo& task, const std::vector<const NodeInfo*>& nodes) {
          return Scores(task, nodes);
        });
  }

 private:
  void BuildNodes(const Session& ssn) {
    nodes_.assign(ssn.nodes().size(), NodeTopology{});
    const auto& topos = ssn.state().numatopologies();
    for (const NodeInfo& n : ssn.nodes()) {
      if (!n.node) continue;
      auto it = topos.find(n.node->meta.name);
      if (it == topos.end()) continue;
      const Numatopology& t = it->second;
      NodeTopology& nt = nodes_[n.id];
      nt.topo = &t;
      nt.cpu_static = t.Policy(kCpuManagerPolicyKey) == "static";
      nt.policy_text = t.Policy(kTopologyManagerPolicyKey);
      nt.policy = ParseTopologyPolicy(nt.policy_text).value_or(TopologyPolicy::kNone);
      std::set<int32_t> ids;
      for (const auto& [cpu, p] : t.cpu_detail) ids.insert(p.numa);
      nt.numa_ids.assign(ids.begin(), ids.end());
      nt.cpus_per_numa.assign(nt.numa_ids.size(), 0);
      for (size_t i = 0; i < nt.numa_ids.size(); ++i)
        nt.numa_bit[nt.numa_ids[i]] = static_cast<int>(i);
      for (const auto& [cpu, p] : t.cpu_detail) ++nt.cpus_per_numa[nt.numa_bit[p.numa]];
      auto cpu_res = t.numa_resources.find("cpu");
      if (cpu_res != t.numa_resources.end()) {
        nt.allocatable.insert(cpu_res->second.allocatable.begin(),
                              cpu_res->second.allocatable.end());
      }
      // The kubelet reserves ceil(resReserved.cpu) CPUs, packed from the first
      // cores, for the system; they are never handed out.
      std::set<int32_t> all;
      for (const auto& [cpu, p] : t.cpu_detail) all.insert(cpu);
      const size_t reserved = static_cast<size_t>((t.reserved_milli_cpu + 999) / 1000);
      for (int32_t cpu : TakeByTopology(t, all, std::min(reserved, all.size()))
                             .value_or(std::vector<int32_t>{})) {
        nt.allocatable.erase(cpu);
      }
      nt.free = nt.allocatable;
    }
  }

  // Pins CPUs on `task.node` for a Guaranteed pod on a node whose CPU manager is static.
  void Take(const TaskInfo& task) {
    if (task.node == kNone || task.node >= static_cast<NodeId>(nodes_.size())) return;
    if (assigned_.count(task.id)) return;
    NodeTopology& node = nodes_[task.node];
    if (!node.topo || !node.cpu_static) return;
    const PodPinning pod = PinningOf(task);
    if (!pod.guaranteed) return;
    std::vector<int32_t> cpus =
        AssignCpus(node, pod, /*force=*/true).value_or(std::vector<int32_t>{});
    for (int32_t cpu : cpus) node.free.erase(cpu);
    assigned_[task.id] = {task.node, std::move(cpus)};
  }

  void GiveBack(const TaskInfo& task) {
    auto it = assigned_.find(task.id);
    if (it == assigned_.end()) return;
    NodeTopology& node = nodes_[it->second.first];
    node.free.insert(it->second.second.begin(), it->second.second.end());
    assigned_.erase(it);
  }

  void ReplayPlacedPods(const Session& ssn) {
    std::vector<const TaskInfo*> placed;
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.node != kNone && IsOnNodeStatus(t.status)) placed.push_back(&t);
    }
    std::sort(placed.begin(), placed.end(), [](const TaskInfo* a, const TaskInfo* b) {
      return std::tie(a->creation, a->key) < std::tie(b->creation, b->key);
    });
    for (const TaskInfo* t : placed) Take(*t);
  }

  // Why the node cannot host a pod that names a policy; "" when it can try.
  static std::string Unsuitable(const NodeTopology& node, const PodPinning& pod) {
    if (!node.topo) return "numa info is empty";
    if (!node.cpu_static) return "cpu manager policy isn't static";
    if (node.policy_text != pod.policy_text) {
      return "task topology policy[" + pod.policy_text + "] is different with node[" +
             node.policy_text + "]";
    }
    if (node.allocatable.empty()) return "cpu allocatable map is empty";
    return "";
  }

  PredicateStatus Predicate(const TaskInfo& task, const NodeInfo& node_info) const {
    const PodPinning pod = PinningOf(task);
    if (!pod.guaranteed) return PredicateStatus::Success();
    if (!pod.policy_valid) {
      return PredicateStatus::Unresolvable(
          std::string("invalid annotation ") + kPolicyAnnotation + " \"" + pod.policy_text +
          "\" (want none, best-effort, restricted or single-numa-node)");
    }
    const NodeTopology& node = nodes_[node_info.id];
    if (pod.policy != TopologyPolicy::kNone) {
      std::string why = Unsuitable(node, pod);
      if (!why.empty()) return PredicateStatus::Unresolvable(why);
      if (node.free.empty()) return PredicateStatus::Unschedulable("cpu allocatable map is empty");
    } else if (!node.topo || !node.cpu_static || node.policy == TopologyPolicy::kNone) {
      return PredicateStatus::Success();
    }
    if (!AssignCpus(node, pod, /*force=*/false)) {
      return PredicateStatus::Unschedulable(
          "numa-aware: the requested CPUs cannot be aligned under topology policy " +
          node.policy_text);
    }
    return PredicateStatus::Success();
  }

  std::vector<double> Scores(const TaskInfo& task,
                             const std::vector<const NodeInfo*>& nodes) const {
    std::vector<double> scores(nodes.size(), 0.0);
    const PodPinning pod = PinningOf(task);
    if (!pod.guaranteed || !pod.policy_valid || pod.policy == TopologyPolicy::kNone) return scores;
    std::vector<int64_t> spans(nodes.size(), 0);
    int64_t max_span = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeTopology& node = nodes_[nodes[i]->id];
      if (!Unsuitable(node, pod).empty()) continue;
      if (auto cpus = AssignCpus(node, pod, /*force=*/false)) spans[i] = NumaCount(node, *cpus);
      max_span = std::max(max_span, spans[i]);
    }
    // Volcano's NormalizeScore(100, reverse): fewer NUMA nodes score higher.
    for (size_t i = 0; i < nodes.size(); ++i) {
      const int64_t s = max_span == 0 ? kMaxScore : kMaxScore - kMaxScore * spans[i] / max_span;
      scores[i] = static_cast<double>(s * weight_);
    }
    return scores;
  }

  // Pending tasks of one class whose pinning inputs differ get different classes.
  static void SplitClasses(Session& ssn) {
    int32_t next = 0;
    for (const TaskInfo& t : ssn.tasks()) next = std::max(next, t.equivalence_class + 1);
    std::map<std::pair<int32_t, std::string>, int32_t> split;
    for (TaskInfo& t : ssn.tasks()) {
      if (t.equivalence_class == kNone) continue;
      const PodPinning p = PinningOf(t);
      std::string key;
      if (p.guaranteed) {
        key = "G|" + p.policy_text + "|";
        for (int64_t c : *p.containers) key += std::to_string(c) + ",";
      }
      auto [it, fresh] = split.try_emplace({t.equivalence_class, key}, next);
      if (fresh) ++next;
      t.equivalence_class = it->second;
    }
  }

  int64_t weight_;
  std::vector<NodeTopology> nodes_;                                     // by NodeId
  std::map<TaskId, std::pair<NodeId, std::vector<int32_t>>> assigned_;  // pinned CPUs per task
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewNumaAwarePlugin(const Arguments& args) {
  WarnUnknownArguments(args, kWeightArgument);
  int64_t weight = 1;
  BASALT_RETURN_IF_ERROR(args.GetInt(kWeightArgument, &weight));
  return std::unique_ptr<Plugin>(new NumaAwarePlugin(weight));
}

}  // namespace basalt
