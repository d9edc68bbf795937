// task-topology: place a job's tasks by the affinity between its task roles
// (Volcano pkg/scheduler/plugins/task-topology; docs/plugins/task-topology.md).
//
// PodGroup annotations (Volcano's job controller copies them from the vcjob):
//   volcano.sh/task-topology-affinity       "ps,worker;ps,evaluator"
//   volcano.sh/task-topology-anti-affinity  "ps;worker,chief"
//   volcano.sh/task-topology-task-order     "ps,worker"
// A group of one name is self (anti-)affinity, a longer group relates every
// pair of its names. Every name must be a task of the job (the second-to-last
// '-' part of a pod name) and appear once per group, or the job is ignored.
// A task's role is its pod's `volcano.sh/task-spec` annotation.
//
// At session open, for each job with pending tasks and one of the annotations,
// the tasks whose role has a topology are sorted (placed ones first by node
// name; then by task-order position, then by topology priority — self
// anti-affinity 4, inter affinity 3, self affinity 2, inter anti-affinity 1 —
// then by pod name) and dealt into buckets: a placed task joins the bucket of
// its node; a pending task joins the bucket with the highest affinity sum
// (+count per affine task in the bucket, -count per anti-affine one; the
// smaller request score wins ties), or a new bucket when that sum is negative.
//
// TaskOrder: tasks in a bucket before tasks without one; within one job,
// buckets with more pending tasks first, then older buckets; inside a bucket,
// task order position then topology priority.
// NodeOrder (argument task-topology.weight, default 1): 0 when the task does
// not fit the node's idle + releasing; else
//   bucket tasks already placed on the node
//   + min(0, anti-affinity sum against the tasks placed there this session)
//   + pending tasks of the bucket
//   - pending bucket tasks (other than this one) that must be dropped, in
//     snapshot order, until the bucket's request fits the node,
// times weight * 100 / (largest bucket size).
//
// Its scores change with every placement, so the tasks of such jobs leave
// the per-class node-selection caches (equivalence class kNone).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/text.h"
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

constexpr const char* kAffinityKey = "volcano.sh/task-topology-affinity";
constexpr const char* kAntiAffinityKey = "volcano.sh/task-topology-anti-affinity";
constexpr const char* kTaskOrderKey = "volcano.sh/task-topology-task-order";
constexpr const char* kTaskSpecKey = "volcano.sh/task-spec";
constexpr double kMaxNodeScore = 100;

enum Priority { kInterAnti = 1, kSelfAffinity = 2, kInterAffinity = 3, kSelfAnti = 4 };

const std::string* Annotation(const std::map<std::string, std::string>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

std::string RoleOf(const TaskInfo& t) {
  if (!t.pod) return "";
  const std::string* r = Annotation(t.pod->meta.annotations, kTaskSpecKey);
  return r ? *r : "";
}

// Comparison on the dimensions Volcano compares (pods excluded, absent = 0).
bool FitsIn(const Resource& req, const Resource& avail) {
  if (req.milli_cpu() > avail.milli_cpu() || req.memory() > avail.memory()) return false;
  for (const auto& [id, v] : req.scalars()) {
    if (id == ResourceNames::kPods) continue;
    if (v > avail.Get(id)) return false;
  }
  return true;
}

// 1 cpu (1000m), 1Mi of memory and a thousandth of a scalar unit weigh the same.
double RequestScore(const Resource& r) {
  double s = static_cast<double>(r.milli_cpu()) + static_cast<double>(r.memory()) / 1024.0 / 1024.0;
  for (const auto& [id, v] : r.scalars()) {
    if (id != ResourceNames::kPods) s += static_cast<double>(v);
  }
  return s;
}

struct Bucket {
  int index = 0;
  std::vector<TaskId> pending;            // unplaced tasks, snapshot order
  std::map<std::string, int> role_count;  // every task dealt into the bucket
  Resource request;                       // of the pending tasks
  double request_score = 0;
  int placed = 0;
  std::map<NodeId, int> on_node;  // placed tasks per node
};

class JobTopology {
 public:
  // The parsed annotations, or nullopt when invalid (the job is ignored).
  static std::optional<JobTopology> Parse(const Session& ssn, const JobInfo& job) {
    const auto& ann = job.podgroup->meta.annotations;
    const std::string* aff = Annotation(ann, kAffinityKey);
    const std::string* anti = Annotation(ann, kAntiAffinityKey);
    const std::string* order = Annotation(ann, kTaskOrderKey);
    if (!aff && !anti && !order) return std::nullopt;
    std::set<std::string> roles;  // from pod names "<job>-<task>-<index>"
    for (TaskId id : job.tasks) {
      std::vector<std::string> parts = Split(ssn.task(id).pod->meta.name, '-');
      if (parts.size() >= 2) roles.insert(parts[parts.size() - 2]);
    }
    auto valid = [&](const std::vector<std::vector<std::string>>& groups) {
      for (const auto& g : groups) {
        std::set<std::string> seen;
        for (const auto& name : g) {
          if (name.empty()) continue;
          if (!roles.count(name) || !seen.insert(name).second) return false;
        }
      }
      return true;
    };
    auto groups_of = [](const std::string& text) {
      std::vector<std::vector<std::string>> gs;
      for (const auto& g : Split(text, ';')) gs.push_back(Split(g, ','));
      return gs;
    };
    JobTopology t;
    if (aff) {
      auto gs = groups_of(*aff);
      if (!valid(gs)) return std::nullopt;
      for (const auto& g : gs)
        t.Relate(g, t.self_affinity_, t.inter_affinity_, kSelfAffinity, kInterAffinity);
    }
    if (anti) {
      auto gs = groups_of(*anti);
      if (!valid(gs)) return std::nullopt;
      for (const auto& g : gs) t.Relate(g, t.self_anti_, t.inter_anti_, kSelfAnti, kInterAnti);
    }
    if (order) {
      std::vector<std::string> names = Split(*order, ',');
      if (!valid({names})) return std::nullopt;
      for (size_t i = 0; i < names.size(); ++i)
        t.order_[names[i]] = static_cast<int>(names.size() - i);
    }
    return t;
  }

  // Builds the buckets from the job's tasks.
  void Deal(const Session& ssn, const JobInfo& job) {
    std::vector<TaskId> members;
    for (TaskId id : job.tasks) {
      const std::string role = RoleOf(ssn.task(id));
      if (role.empty() || !priority_.count(role)) continue;
      role_[id] = role;
      members.push_back(id);
    }
    std::sort(members.begin(), members.end(), [&](TaskId a, TaskId b) {
      const TaskInfo& l = ssn.task(a);
      const TaskInfo& r = ssn.task(b);
      const bool lp = l.node != kNone, rp = r.node != kNone;
      if (lp != rp) return lp;
      if (lp) return ssn.node(l.node).name < ssn.node(r.node).name;
      int c = Compare(a, b);
      if (c != 0) return c > 0;
      return l.pod->meta.name < r.pod->meta.name;
    });
    std::map<NodeId, int> node_bucket;
    for (TaskId id : members) {
      const TaskInfo& t = ssn.task(id);
      const std::string& role = role_[id];
      Bucket* chosen = nullptr;
      int best = INT_MIN;
      if (t.node != kNone) {
        best = 0;
        auto it = node_bucket.find(t.node);
        if (it != node_bucket.end()) chosen = &buckets_[it->second];
      } else {
        for (Bucket& b : buckets_) {
          int aff = AffinitySum(role, b.role_count, false);
          if (aff > best || (aff == best && chosen && b.request_score < chosen->request_score)) {
            best = aff;
            chosen = &b;
          }
        }
      }
      if (best < 0 || chosen == nullptr) {
        buckets_.emplace_back();
        buckets_.back().index = static_cast<int>(buckets_.size()) - 1;
        chosen = &buckets_.back();
        if (t.node != kNone) node_bucket[t.node] = chosen->index;
      }
      bucket_of_[id] = chosen->index;
      chosen->role_count[role]++;
      if (t.node != kNone) {
        chosen->on_node[t.node]++;
        chosen->placed++;
      } else {
        chosen->pending.push_back(id);
        chosen->request += t.request;
        chosen->request_score += RequestScore(t.request);
      }
      max_size_ = std::max(max_size_, static_cast<int>(chosen->pending.size()) + chosen->placed);
    }
    for (Bucket& b : buckets_) std::sort(b.pending.begin(), b.pending.end());
  }

  Bucket* BucketOf(TaskId id) {
    auto it = bucket_of_.find(id);
    return it == bucket_of_.end() ? nullptr : &buckets_[it->second];
  }

  // >0 when task `a` goes before `b` (task order position, then priority).
  int Compare(TaskId a, TaskId b) const {
    const std::string& la = RoleRef(a);
    const std::string& lb = RoleRef(b);
    if (la == lb) return 0;
    int oa = Lookup(order_, la), ob = Lookup(order_, lb);
    if (oa != ob) return oa > ob ? 1 : -1;
    int pa = Lookup(priority_, la), pb = Lookup(priority_, lb);
    if (pa != pb) return pa > pb ? 1 : -1;
    return 0;
  }

  // Affinity of `role` to tasks counted in `roles`; with `only_anti`, only the
  // anti-affinity part.
  int AffinitySum(const std::string& role, const std::map<std::string, int>& roles,
                  bool only_anti) const {
    if (role.empty()) return 0;
    int sum = 0;
    for (const auto& [other, count] : roles) {
      const bool same = other == role;
      if (!only_anti) {
        bool aff = same ? self_affinity_.count(role) > 0 : inter_affinity_.count({role, other}) > 0;
        if (aff) sum += count;
      }
      bool anti = same ? self_anti_.count(role) > 0 : inter_anti_.count({role, other}) > 0;
      if (anti) sum -= count;
    }
    return sum;
  }

  void Placed(const TaskInfo& t) {
    const std::string role = RoleOf(t);
    if (!role.empty()) node_roles_[t.node][role]++;
    Bucket* b = BucketOf(t.id);
    if (!b) return;
    b->on_node[t.node]++;
    b->placed++;
    auto it = std::find(b->pending.begin(), b->pending.end(), t.id);
    if (it != b->pending.end()) {
      b->pending.erase(it);
      b->request -= t.request;
      b->request_score -= RequestScore(t.request);
    }
  }

  const std::map<std::string, int>* NodeRoles(NodeId n) const {
    auto it = node_roles_.find(n);
    return it == node_roles_.end() ? nullptr : &it->second;
  }
  int max_size() const { return max_size_; }
  const std::vector<Bucket>& buckets() const { return buckets_; }

 private:
  void Relate(const std::vector<std::string>& g, std::set<std::string>& self,
              std::set<std::pair<std::string, std::string>>& inter, Priority self_p,
              Priority inter_p) {
    if (g.size() == 1) {
      self.insert(g[0]);
      Mark(g[0], self_p);
      return;
    }
    for (size_t i = 0; i < g.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        inter.insert({g[i], g[j]});
        inter.insert({g[j], g[i]});
      }
      Mark(g[i], inter_p);
    }
  }
  void Mark(const std::string& role, Priority p) {
    int& cur = priority_[role];
    cur = std::max(cur, static_cast<int>(p));
  }
  static int Lookup(const std::map<std::string, int>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }
  const std::string& RoleRef(TaskId id) const {
    static const std::string kEmpty;
    auto it = role_.find(id);
    return it == role_.end() ? kEmpty : it->second;
  }

  std::set<std::string> self_affinity_, self_anti_;
  std::set<std::pair<std::string, std::string>> inter_affinity_, inter_anti_;
  std::map<std::string, int> priority_, order_;
  std::map<TaskId, std::string> role_;
  std::map<TaskId, int> bucket_of_;
  std::vector<Bucket> buckets_;
  int max_size_ = 0;
  std::map<NodeId, std::map<std::string, int>> node_roles_;  // placed this session
};

class TaskTopologyPlugin : public Plugin {
 public:
  explicit TaskTopologyPlugin(int64_t weight) : weight_(weight) {}
  std::string_view Name() const override { return "task-topology"; }

  void OnSessionOpen(Session& ssn) override {
    jobs_.clear();
    for (const JobInfo& job : ssn.jobs()) {
      if (!job.podgroup || job.Count(TaskStatus::kPending) == 0) continue;
      std::optional<JobTopology> t = JobTopology::Parse(ssn, job);
      if (!t) continue;
      t->Deal(ssn, job);
      jobs_.emplace(job.id, std::move(*t));
      for (TaskId id : job.tasks) ssn.task(id).equivalence_class = kNone;
    }
    ssn.AddTaskOrderFn([this](const TaskInfo& a, const TaskInfo& b) { return Order(a, b); });
    ssn.AddNodeOrderFn(
        [this, &ssn](const TaskInfo& t, const NodeInfo& n) { return Score(ssn, t, n); });
    EventHandler h;
    h.allocate = [this](const TaskInfo& t) {
      auto it = jobs_.find(t.job);
      if (it != jobs_.end() && t.node != kNone) it->second.Placed(t);
    };
    ssn.AddEventHandler(std::move(h));
  }

  void OnSessionClose(Session& ssn) override { jobs_.clear(); }

 private:
  int Order(const TaskInfo& a, const TaskInfo& b) {
    auto ja = jobs_.find(a.job), jb = jobs_.find(b.job);
    if (ja == jobs_.end() || jb == jobs_.end()) return 0;
    const Bucket* ba = ja->second.BucketOf(a.id);
    const Bucket* bb = jb->second.BucketOf(b.id);
    if ((ba != nullptr) != (bb != nullptr)) return ba ? -1 : 1;
    if (a.job != b.job || !ba) return 0;
    if (ba->pending.size() != bb->pending.size())
      return ba->pending.size() > bb->pending.size() ? -1 : 1;
    if (ba->index == bb->index) return -ja->second.Compare(a.id, b.id);
    return ba->index < bb->index ? -1 : 1;
  }

  double Score(const Session& ssn, const TaskInfo& t, const NodeInfo& n) {
    const Resource room = n.idle() + n.releasing();
    if (!FitsIn(t.request, room)) return 0;
    auto it = jobs_.find(t.job);
    if (it == jobs_.end()) return 0;
    JobTopology& jt = it->second;
    const Bucket* b = jt.BucketOf(t.id);
    int64_t score = 0;
    if (b) {
      auto on = b->on_node.find(n.id);
      if (on != b->on_node.end()) score += on->second;
      if (const auto* roles = jt.NodeRoles(n.id)) {
        int anti = jt.AffinitySum(RoleOf(t), *roles, true);
        if (anti < 0) score += anti;
      }
      score += static_cast<int64_t>(b->pending.size());
      if (!FitsIn(b->request, room)) {
        Resource remains = b->request;
        for (TaskId other : b->pending) {
          if (other == t.id) continue;
          remains -= ssn.task(other).request;
          --score;
          if (FitsIn(remains, room)) break;
        }
      }
    }
    double f = static_cast<double>(score * weight_);
    if (jt.max_size() != 0) f = f * kMaxNodeScore / static_cast<double>(jt.max_size());
    return f;
  }

  int64_t weight_;
  std::map<JobId, JobTopology> jobs_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewTaskTopologyPlugin(const Arguments& args) {
  int64_t weight = 1;
  BASALT_RETURN_IF_ERROR(args.GetInt("task-topology.weight", &weight));
  return std::unique_ptr<Plugin>(new TaskTopologyPlugin(weight));
}

}  // namespace basalt
