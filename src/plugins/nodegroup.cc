// nodegroup: bind queues to groups of nodes (Volcano
// pkg/scheduler/plugins/nodegroup; docs/plugins/nodegroup.md).
//
// Nodes belong to the group named by their label `volcano.sh/nodegroup-name`.
// A Queue's spec.affinity lists groups:
//   nodeGroupAffinity.required     the queue's pods may run there;
//   nodeGroupAffinity.preferred    may run there, scored higher;
//   nodeGroupAntiAffinity.required may not run there (wins over affinity);
//   nodeGroupAntiAffinity.preferred may run there, scored -1.
//
// Predicate (Volcano's order of checks; every failure is Unresolvable):
//   node without the label: passes when `strict` is false and the queue has
//     no affinity terms at all, else "node group label not found";
//   queue without affinity terms: "node group affinity not specified";
//   group in none of required / preferred / anti-preferred, or in
//     anti-required and not anti-preferred: "node does not satisfy the node
//     group affinity".
// NodeOrder: 0 for a node without the label or a queue without affinity;
//   else +100 if required, +50 if preferred (with enablePreferredOrder:
//   50 * (n - i) / n for the i-th of n preferred groups), and -1 in place of
//   all that when the group is anti-preferred.
//
// Arguments: strict (bool, true), enablePreferredOrder (bool, false).
// With enableHierarchy, a queue without spec.affinity inherits the affinity
// of its nearest ancestor that has one (parent "" means "root").
//
// The answers depend on the task's queue, which the session's equivalence
// classes (pod spec only) do not know: the plugin splits each class by queue
// so that per-class caches of node selection stay exact.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

constexpr const char* kGroupLabel = "volcano.sh/nodegroup-name";
constexpr const char* kRootQueue = "root";
constexpr double kBaseScore = 100;

constexpr const char* kReasonLabelNotFound = "node group label not found";
constexpr const char* kReasonAffinityNotFound = "node group affinity not specified";
constexpr const char* kReasonUnsatisfied = "node does not satisfy the node group affinity";

struct GroupAffinity {
  std::set<std::string> required, preferred, anti_required, anti_preferred;
  std::map<std::string, int> preferred_index;  // last position of each preferred group

  bool Unset() const {
    return required.empty() && preferred.empty() && anti_required.empty() && anti_preferred.empty();
  }
  bool Admits(const std::string& group) const {
    bool ok = required.count(group) > 0 || preferred.count(group) > 0;
    if (anti_required.count(group)) ok = false;
    if (anti_preferred.count(group)) ok = true;
    return ok;
  }
  double Score(const std::string& group, bool preferred_order) const {
    double score = 0;
    if (required.count(group)) score += kBaseScore;
    if (preferred_order) {
      auto it = preferred_index.find(group);
      if (it != preferred_index.end()) {
        const double n = static_cast<double>(preferred_index.size());
        score += 0.5 * kBaseScore * (n - it->second) / n;
      }
    } else if (preferred.count(group)) {
      score += 0.5 * kBaseScore;
    }
    if (anti_preferred.count(group)) score = -1;
    return score;
  }
};

GroupAffinity FromQueue(const QueueAffinity& a) {
  GroupAffinity g;
  if (a.node_group_affinity) {
    g.required.insert(a.node_group_affinity->required.begin(),
                      a.node_group_affinity->required.end());
    const auto& pref = a.node_group_affinity->preferred;
    g.preferred.insert(pref.begin(), pref.end());
    for (size_t i = 0; i < pref.size(); ++i) g.preferred_index[pref[i]] = static_cast<int>(i);
  }
  if (a.node_group_anti_affinity) {
    g.anti_required.insert(a.node_group_anti_affinity->required.begin(),
                           a.node_group_anti_affinity->required.end());
    g.anti_preferred.insert(a.node_group_anti_affinity->preferred.begin(),
                            a.node_group_anti_affinity->preferred.end());
  }
  return g;
}

const std::string* GroupOf(const NodeInfo& node) {
  if (!node.node) return nullptr;
  auto it = node.node->meta.labels.find(kGroupLabel);
  return it == node.node->meta.labels.end() ? nullptr : &it->second;
}

struct NodeGroupOptions {
  bool strict = true;
  bool preferred_order = false;
};

class NodeGroupPlugin : public Plugin {
 public:
  explicit NodeGroupPlugin(NodeGroupOptions o) : opts_(o) {}
  std::string_view Name() const override { return "nodegroup"; }

  void OnSessionOpen(Session& ssn) override {
    BuildAffinities(ssn);
    SplitClassesByQueue(ssn);
    ssn.AddNodeOrderFn([this, &ssn](const TaskInfo& task, const NodeInfo& node) {
      const std::string* group = GroupOf(node);
      if (!group) return 0.0;
      const GroupAffinity* a = AffinityOf(ssn, task);
      return a ? a->Score(*group, opts_.preferred_order) : 0.0;
    });
    ssn.AddPredicateFn([this, &ssn](const TaskInfo& task, const NodeInfo& node) {
      const GroupAffinity* a = AffinityOf(ssn, task);
      const bool unset = a == nullptr || a->Unset();
      const std::string* group = GroupOf(node);
      if (!group) {
        if (!opts_.strict && unset) return PredicateStatus::Success();
        return PredicateStatus::Unresolvable(kReasonLabelNotFound);
      }
      if (unset) return PredicateStatus::Unresolvable(kReasonAffinityNotFound);
      if (!a->Admits(*group)) return PredicateStatus::Unresolvable(kReasonUnsatisfied);
      return PredicateStatus::Success();
    });
  }

 private:
  bool HierarchyEnabled(const Session& ssn) const {
    for (const Tier& tier : ssn.config().tiers) {
      for (const PluginOption& opt : tier.plugins) {
        if (opt.name == Name()) return opt.Enabled(Switch::kHierarchy);
      }
    }
    return false;
  }

  // One affinity per queue id (nullptr: the queue has none, nor inherits one).
  void BuildAffinities(const Session& ssn) {
    const auto& queues = ssn.queues();
    own_.assign(queues.size(), nullptr);
    store_.clear();
    for (const QueueInfo& q : queues) {
      if (q.queue && q.queue->affinity) {
        store_.push_back(std::make_unique<GroupAffinity>(FromQueue(*q.queue->affinity)));
        own_[q.id] = store_.back().get();
      }
    }
    by_queue_ = own_;
    if (!HierarchyEnabled(ssn)) return;
    for (const QueueInfo& q : queues) {
      if (by_queue_[q.id]) continue;
      // Walk up to the nearest ancestor with an affinity; stop on a cycle or a
      // missing parent.
      std::set<QueueId> seen = {q.id};
      const QueueInfo* cur = &q;
      while (cur->name != kRootQueue) {
        auto parent = ssn.FindQueue(cur->parent.empty() ? std::string(kRootQueue) : cur->parent);
        if (!parent || !seen.insert(*parent).second) break;
        cur = &ssn.queue(*parent);
        if (own_[cur->id]) {
          by_queue_[q.id] = own_[cur->id];
          break;
        }
      }
    }
  }

  const GroupAffinity* AffinityOf(const Session& ssn, const TaskInfo& task) const {
    if (task.job == kNone) return nullptr;
    const QueueId q = ssn.job(task.job).queue;
    if (q == kNone || q >= static_cast<QueueId>(by_queue_.size())) return nullptr;
    return by_queue_[q];
  }

  // Pending tasks of one class but different queues get different classes.
  static void SplitClassesByQueue(Session& ssn) {
    int32_t next = 0;
    for (const TaskInfo& t : ssn.tasks()) next = std::max(next, t.equivalence_class + 1);
    std::map<std::pair<int32_t, QueueId>, int32_t> split;
    for (TaskInfo& t : ssn.tasks()) {
      if (t.equivalence_class == kNone) continue;
      const QueueId q = t.job == kNone ? kNone : ssn.job(t.job).queue;
      auto [it, fresh] = split.try_emplace({t.equivalence_class, q}, next);
      if (fresh) ++next;
      t.equivalence_class = it->second;
    }
  }

  NodeGroupOptions opts_;
  std::vector<std::unique_ptr<GroupAffinity>> store_;
  std::vector<const GroupAffinity*> own_, by_queue_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewNodeGroupPlugin(const Arguments& args) {
  NodeGroupOptions o;
  BASALT_RETURN_IF_ERROR(args.GetBool("strict", &o.strict));
  BASALT_RETURN_IF_ERROR(args.GetBool("enablePreferredOrder", &o.preferred_order));
  return std::unique_ptr<Plugin>(new NodeGroupPlugin(o));
}

}  // namespace basalt
