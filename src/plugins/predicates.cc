// predicates: the Kubernetes filters Volcano runs per (task, node)
// (docs/plugins/predicates.md; Volcano pkg/scheduler/plugins/predicates).
//
// Checks, in Volcano's order, each adding a status with a Kubernetes reason:
//   1. pod count: pods on the node >= allocatable `pods`
//        -> Unschedulable "node(s) pod number exceeded" (the other checks still run);
//   2. the "stable" filters, any failure of which is UnschedulableAndUnresolvable
//      and ends the checks for this node:
//        a. NodeUnschedulable (always on): a cordoned node, unless the pod
//           tolerates `node.kubernetes.io/unschedulable:NoSchedule`;
//        b. NodeAffinity (`predicate.NodeAffinityEnable`): nodeSelector and
//           required node affinity;
//        c. TaintToleration (`predicate.TaintTolerationEnable`): the first
//           NoSchedule/NoExecute taint the pod does not tolerate; then a node
//           whose Ready condition is not True, unless the pod tolerates
//           `node.kubernetes.io/not-ready:NoSchedule` (see NotReady below);
//   3. NodePorts (`predicate.NodePortsEnable`): a requested host port already
//      used on the node -> Unschedulable.
// Resource fit is not here: actions check requests against FutureIdle.
//
// Node view. Volcano keeps a Kubernetes NodeInfo per node (pods and used host
// ports), built from the snapshot and updated by this plugin's event handlers:
// allocate/pipeline add the pod, evict/unpipeline/unallocate remove it. So a pod
// evicted in this session no longer counts (although it stays on the node as
// Releasing in basalt's `NodeInfo::tasks`), and a pipelined pod does. Used ports
// are a set, as in Kubernetes: removing one of two pods that share a host port
// frees the port.
//
// NotReady. Volcano >= 1.11 keeps NotReady nodes in the snapshot and relies on
// the `node.kubernetes.io/not-ready` taint the node lifecycle controller adds.
// Manifests often carry only the Ready=False condition, so basalt treats such a
// node as if it had `node.kubernetes.io/not-ready:NoSchedule`, reported as
// "node(s) were not ready". A node that already carries a not-ready or
// unreachable taint is left to the taint check, which then gives Volcano's exact
// message.
//
// CacheEnable (`predicate.CacheEnable`, default false) mirrors Volcano's
// equivalence cache: within a session, the outcome of the stable filters is
// remembered per (node, pod annotation `volcano.sh/template-uid`); a cached
// failure is reported as Error "plugin equivalence cache predicates failed"
// instead of the original reason.
//
// The switches for pod affinity, volume limits, volume zone, topology spread,
// volume binding and DRA are accepted (and type-checked) but change nothing:
// basalt models no volumes, claims or inter-pod affinity.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/k8s_match.h"

namespace basalt {
namespace {

constexpr const char* kReasonPodNumberExceeded = "node(s) pod number exceeded";
constexpr const char* kReasonUnschedulable = "node(s) were unschedulable";
constexpr const char* kReasonNotReady = "node(s) were not ready";
constexpr const char* kReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector";
constexpr const char* kReasonNodePorts =
    "node(s) didn't have free ports for the requested pod ports";
constexpr const char* kReasonCacheFailed = "plugin equivalence cache predicates failed";
constexpr const char* kTemplateUidAnnotation = "volcano.sh/template-uid";
constexpr const char* kBindAllHostIp = "0.0.0.0";

struct Options {
  bool node_affinity = true;
  bool node_ports = true;
  bool taint_toleration = true;
  bool pod_affinity = true;
  bool node_volume_limits = true;
  bool volume_zone = true;
  bool pod_topology_spread = true;
  bool volume_binding = true;
  bool dynamic_resource_allocation = false;
  bool cache = false;
};

// Kubernetes HostPortInfo: host IP -> set of (protocol, port). An empty IP means
// 0.0.0.0 and an empty protocol TCP.
class HostPortSet {
 public:
  void Add(const HostPort& p) {
    if (p.port <= 0) return;
    used_[Ip(p)].insert({Protocol(p), p.port});
  }
  void Remove(const HostPort& p) {
    if (p.port <= 0) return;
    auto it = used_.find(Ip(p));
    if (it == used_.end()) return;
    it->second.erase({Protocol(p), p.port});
    if (it->second.empty()) used_.erase(it);
  }
  // 0.0.0.0 conflicts with the same (protocol, port) on any IP; a specific IP
  // conflicts with itself and with 0.0.0.0.
  bool Conflicts(const HostPort& p) const {
    if (p.port <= 0) return false;
    const std::pair<std::string, int32_t> key{Protocol(p), p.port};
    const std::string ip = Ip(p);
    if (ip == kBindAllHostIp) {
      for (const auto& [_, ports] : used_) {
        if (ports.count(key)) return true;
      }
      return false;
    }
    for (const std::string& candidate : {std::string(kBindAllHostIp), ip}) {
      auto it = used_.find(candidate);
      if (it != used_.end() && it->second.count(key)) return true;
    }
    return false;
  }

 private:
  static std::string Ip(const HostPort& p) {
    return p.host_ip.empty() ? kBindAllHostIp : p.host_ip;
  }
  static std::string Protocol(const HostPort& p) { return p.protocol.empty() ? "TCP" : p.protocol; }
  std::map<std::string, std::set<std::pair<std::string, int32_t>>> used_;
};

// Volcano's view of one node: the pods on it and their host ports.
struct NodeView {
  std::vector<TaskId> pods;
  HostPortSet ports;
};

// Folds statuses the way Volcano's fit error does: every reason is kept in
// order, and the most severe code decides how actions treat the node.
void AddStatus(PredicateStatus& out, PredicateStatus::Code code, std::string reason) {
  auto rank = [](PredicateStatus::Code c) {
    switch (c) {
      case PredicateStatus::Code::kSuccess:
        return 0;
      case PredicateStatus::Code::kUnschedulable:
        return 1;
      case PredicateStatus::Code::kUnresolvable:
        return 2;
      case PredicateStatus::Code::kError:
        return 3;
    }
    return 0;
  };
  if (rank(code) > rank(out.code)) out.code = code;
  out.reasons.push_back(std::move(reason));
}

class PredicatesPlugin : public Plugin {
 public:
  explicit PredicatesPlugin(Options opts) : opts_(opts) {}
  std::string_view Name() const override { return "predicates"; }

  void OnSessionOpen(Session& ssn) override {
    views_.assign(ssn.nodes().size(), NodeView());
    for (const NodeInfo& node : ssn.nodes()) {
      NodeView& v = views_[node.id];
      v.pods = node.tasks;
      for (TaskId id : node.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (t.has_host_ports) AddPorts(v, t);
      }
    }
    ssn.AddEventHandler(EventHandler{
        [this](const TaskInfo& task) {
          if (task.node != kNone) AddPod(task.node, task);
        },
        [this](const TaskInfo& task) {
          if (task.node != kNone) RemovePod(task.node, task);
        },
    });
    ssn.AddPredicateFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return Check(task, node); });
  }

 private:
  void AddPod(NodeId node, const TaskInfo& task) {
    NodeView& v = views_[node];
    v.pods.push_back(task.id);
    AddPorts(v, task);
  }

  static void AddPorts(NodeView& v, const TaskInfo& task) {
    for (const HostPort& p : task.pod->spec.host_ports) v.ports.Add(p);
  }

  // Like Kubernetes' NodeInfo.RemovePod: a pod that is not there changes nothing.
  void RemovePod(NodeId node, const TaskInfo& task) {
    NodeView& v = views_[node];
    auto it = std::find(v.pods.begin(), v.pods.end(), task.id);
    if (it == v.pods.end()) return;
    v.pods.erase(it);
    for (const HostPort& p : task.pod->spec.host_ports) v.ports.Remove(p);
  }

  PredicateStatus Check(const TaskInfo& task, const NodeInfo& node) const {
    PredicateStatus st;
    const NodeView& view = views_[node.id];
    if (static_cast<int64_t>(view.pods.size()) >= node.allocatable.Get(ResourceNames::kPods)) {
      AddStatus(st, PredicateStatus::Code::kUnschedulable, kReasonPodNumberExceeded);
    }
    if (!StableFiltersWithCache(task, node, st)) return st;
    if (opts_.node_ports) {
      for (const HostPort& p : task.pod->spec.host_ports) {
        if (view.ports.Conflicts(p)) {
          AddStatus(st, PredicateStatus::Code::kUnschedulable, kReasonNodePorts);
          break;
        }
      }
    }
    return st;
  }

  // Returns false when a stable filter failed (the checks stop there).
  bool StableFiltersWithCache(const TaskInfo& task, const NodeInfo& node,
                              PredicateStatus& st) const {
    const std::string* uid = nullptr;
    if (opts_.cache) {
      auto it = task.pod->meta.annotations.find(kTemplateUidAnnotation);
      if (it != task.pod->meta.annotations.end()) uid = &it->second;
    }
    if (uid == nullptr) return StableFilters(task, node, st);
    std::pair<NodeId, std::string> key{node.id, *uid};
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        if (!it->second) AddStatus(st, PredicateStatus::Code::kError, kReasonCacheFailed);
        return it->second;
      }
    }
    bool fit = StableFilters(task, node, st);
    std::lock_guard<std::mutex> lock(cache_mu_);
    cache_[key] = fit;
    return fit;
  }

  bool StableFilters(const TaskInfo& task, const NodeInfo& node, PredicateStatus& st) const {
    if (node.node == nullptr) return true;
    const Node& n = *node.node;
    const PodSpec& spec = task.pod->spec;
    if (n.unschedulable &&
        !k8s::TolerationsTolerateTaint(spec.tolerations,
                                       Taint{k8s::kTaintNodeUnschedulable, "", "NoSchedule"})) {
      AddStatus(st, PredicateStatus::Code::kUnresolvable, kReasonUnschedulable);
      return false;
    }
    if (opts_.node_affinity && !k8s::MatchesRequiredNodeAffinity(spec, n)) {
      AddStatus(st, PredicateStatus::Code::kUnresolvable, kReasonNodeAffinity);
      return false;
    }
    if (opts_.taint_toleration) {
      if (const Taint* t = k8s::FirstUntoleratedScheduleTaint(n.taints, spec.tolerations)) {
        AddStatus(st, PredicateStatus::Code::kUnresolvable,
                  "node(s) had untolerated taint {" + t->key + ": " + t->value + "}");
        return false;
      }
      if (!n.ready && !HasLifecycleTaint(n) &&
          !k8s::TolerationsTolerateTaint(spec.tolerations,
                                         Taint{k8s::kTaintNodeNotReady, "", "NoSchedule"})) {
        AddStatus(st, PredicateStatus::Code::kUnresolvable, kReasonNotReady);
        return false;
      }
    }
    return true;
  }

  // The node lifecycle controller already tainted the node; the taint check
  // above has judged it with Volcano's own message.
  static bool HasLifecycleTaint(const Node& n) {
    for (const Taint& t : n.taints) {
      if ((t.key == k8s::kTaintNodeNotReady || t.key == k8s::kTaintNodeUnreachable) &&
          (t.effect == "NoSchedule" || t.effect == "NoExecute")) {
        return true;
      }
    }
    return false;
  }

  Options opts_;
  std::vector<NodeView> views_;  // by NodeId
  // Equivalence cache (CacheEnable): (node, template uid) -> stable filters passed.
  // Guarded because predicates may be evaluated for several nodes in parallel.
  mutable std::mutex cache_mu_;
  mutable std::map<std::pair<NodeId, std::string>, bool> cache_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewPredicatesPlugin(const Arguments& args) {
  Options o;
  const std::pair<const char*, bool*> kSwitches[] = {
      {"predicate.NodeAffinityEnable", &o.node_affinity},
      {"predicate.NodePortsEnable", &o.node_ports},
      {"predicate.TaintTolerationEnable", &o.taint_toleration},
      {"predicate.PodAffinityEnable", &o.pod_affinity},
      {"predicate.NodeVolumeLimitsEnable", &o.node_volume_limits},
      {"predicate.VolumeZoneEnable", &o.volume_zone},
      {"predicate.PodTopologySpreadEnable", &o.pod_topology_spread},
      {"predicate.VolumeBindingEnable", &o.volume_binding},
      {"predicate.DynamicResourceAllocationEnable", &o.dynamic_resource_allocation},
      {"predicate.CacheEnable", &o.cache},
  };
  for (const auto& [key, out] : kSwitches) BASALT_RETURN_IF_ERROR(args.GetBool(key, out));
  return std::unique_ptr<Plugin>(new PredicatesPlugin(o));
}

}  // namespace basalt
