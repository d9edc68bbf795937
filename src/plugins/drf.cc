// drf: dominant resource fairness between jobs (docs/plugins/drf.md).
//
//  * share(job) = max over the cluster's resources r with total[r] > 0 of
//    allocated[r] / total[r], where allocated is the sum of the requests of the
//    job's tasks in an allocated status (Bound, Binding, Running, Allocated) and
//    total the sum of node allocatable. `pods` is one of those resources, so a
//    job's pod count takes part like any other dimension.
//  * JobOrder: lower share first (equal shares abstain).
//  * Preemptable: see `Victims` below. Votes Permit.
//  * Allocate/deallocate events keep every job's allocation and share current,
//    so jobs re-order after every placement inside one action.
//
// Shares are exact fractions (plugins/queue_share.h), so "equal" means equal
// quotients; Volcano compares float64 quotients, which agree except for
// quotients closer than one double ulp.
//
// Hierarchical DRF (`enableHierarchy: true` on the drf entry) adds QueueOrder
// and Reclaimable over a tree built from the queues' `volcano.sh/hierarchy`
// paths; see `HNode` and below. Its shares are rescaled sums of allocations,
// not quotients of two resource values, so that part keeps Volcano's float64
// arithmetic (with the same operation order) instead of exact fractions.
//
// Namespace fair share (Volcano <= v1.8) is gone upstream and is not implemented.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/text.h"
#include "framework/session.h"
#include "framework/session_stats.h"
#include "plugins/builtin.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

using share::DominantShare;
using share::Fraction;

// Volcano's shareDelta: two shares closer than this count as equal in the
// preemption test.
constexpr long double kShareDelta = 1e-6L;

constexpr const char* kHierarchyKey = "volcano.sh/hierarchy";
constexpr const char* kHierarchyWeightsKey = "volcano.sh/hierarchy-weights";

struct JobAttr {
  Resource allocated;
  Fraction share;
};

// ---------------------------------------------------------------------------
// Hierarchical DRF
// ---------------------------------------------------------------------------

// A float64 resource vector (cpu, memory and scalars by id), as Volcano's
// Resource holds the rescaled allocations of inner tree nodes.
struct FloatResource {
  std::map<ResourceId, double> v;  // ordered: sums run in a fixed order

  static FloatResource Of(const Resource& r) {
    FloatResource f;
    f.v[ResourceNames::kCpu] = static_cast<double>(r.milli_cpu());
    f.v[ResourceNames::kMemory] = static_cast<double>(r.memory());
    for (const auto& [id, x] : r.scalars()) f.v[id] = static_cast<double>(x);
    return f;
  }
  double Get(ResourceId id) const {
    auto it = v.find(id);
    return it == v.end() ? 0.0 : it->second;
  }
  void Add(const FloatResource& o) {
    for (const auto& [id, x] : o.v) v[id] += x;
  }
  FloatResource Times(double ratio) const {
    FloatResource f = *this;
    for (auto& [id, x] : f.v) x *= ratio;
    return f;
  }
};

// Volcano's calculateShare in float64: the largest allocated / total over the
// dimensions where total is positive (0 when none is).
double FloatShare(const FloatResource& alloc, const Resource& total) {
  double best = 0;
  auto consider = [&](ResourceId id, int64_t t) {
    if (t <= 0) return;
    const double s = alloc.Get(id) / static_cast<double>(t);
    if (s > best) best = s;
  };
  consider(ResourceNames::kCpu, total.milli_cpu());
  consider(ResourceNames::kMemory, total.memory());
  for (const auto& [id, t] : total.scalars()) consider(id, t);
  return best;
}

// One node of the hDRF tree: the root, a level of some queue's hierarchy path,
// or a job (leaf). Children are kept in name order so that the float sums, and
// so every share, are the same from run to run (Volcano walks a Go map here).
struct HNode {
  double weight = 1;
  bool leaf = false;
  bool saturated = false;
  FloatResource allocated;
  double share = 0;
  Resource leaf_allocated;  // leaves: the job's allocation, for the saturation test
  Resource request;         // leaves: the job's total request (every task, any status)
  std::map<std::string, std::unique_ptr<HNode>> children;

  std::unique_ptr<HNode> Clone() const {
    auto n = std::make_unique<HNode>();
    n->weight = weight;
    n->leaf = leaf;
    n->saturated = saturated;
    n->allocated = allocated;
    n->share = share;
    n->leaf_allocated = leaf_allocated;
    n->request = request;
    for (const auto& [name, c] : children) n->children.emplace(name, c->Clone());
    return n;
  }
};

// A leaf is saturated when, on some dimension it has a positive allocation of,
// it got all it requested, or it requests that dimension while the cluster has
// none of it left (not "demanding").
bool LeafSaturated(const Resource& allocated, const Resource& request, const Resource& total,
                   const Resource& total_allocated) {
  auto demanding = [&](ResourceId id) {
    // Only dimensions the cluster has (total > 0) can be demanding.
    return total.Get(id) > 0 && total_allocated.Get(id) < total.Get(id);
  };
  auto saturated_on = [&](ResourceId id, int64_t a) {
    if (a <= 0) return false;
    const int64_t r = request.Get(id);
    if (r != 0 && a >= r) return true;
    return !demanding(id) && r != 0;
  };
  if (saturated_on(ResourceNames::kCpu, allocated.milli_cpu())) return true;
  if (saturated_on(ResourceNames::kMemory, allocated.memory())) return true;
  for (const auto& [id, a] : allocated.scalars()) {
    if (saturated_on(id, a)) return true;
  }
  return false;
}

class HdrfTree {
 public:
  explicit HdrfTree(const Resource& total) : total_(total), root_(std::make_unique<HNode>()) {}

  HNode* root() { return root_.get(); }

  // Puts (or replaces) the leaf of `job` under its queue's path, creating the
  // missing levels, then recomputes every node bottom-up against
  // `total_allocated` (the sum of every job's allocation).
  void Update(HNode* root, const Resource& total_allocated, const JobInfo& job,
              const Resource& job_allocated, const std::string& path,
              const std::string& weights) const {
    Put(root, job, job_allocated, path, weights);
    Recompute(root, total_allocated);
  }

  // Puts (or replaces) the leaf of `job`; the tree is stale until `Recompute`.
  //
  // Path "root/eng/prod" with weights "1/2/8": level i > 0 gets weight
  // weights[i], floored at 1 (also when missing or not a number; upstream
  // crashes on a weights list shorter than the path).
  void Put(HNode* root, const JobInfo& job, const Resource& job_allocated, const std::string& path,
           const std::string& weights) const {
    const std::vector<std::string> levels = Split(path, '/');
    const std::vector<std::string> ws = Split(weights, '/');
    HNode* node = root;
    for (size_t i = 1; i < levels.size(); ++i) {
      auto it = node->children.find(levels[i]);
      if (it == node->children.end()) {
        auto child = std::make_unique<HNode>();
        double w = 0;
        if (i < ws.size()) {
          char* end = nullptr;
          w = std::strtod(ws[i].c_str(), &end);
          if (ws[i].empty() || *end != '\0' || !std::isfinite(w)) w = 0;
        }
        child->weight = w < 1 ? 1 : w;
        it = node->children.emplace(levels[i], std::move(child)).first;
      }
      node = it->second.get();
    }
    auto leaf = std::make_unique<HNode>();
    leaf->leaf = true;
    leaf->allocated = FloatResource::Of(job_allocated);
    leaf->share = FloatShare(leaf->allocated, total_);
    leaf->leaf_allocated = job_allocated;
    leaf->request = job.total_request;
    node->children[job.key] = std::move(leaf);
  }

  // Compares two queues along their paths, level by level from the root: an
  // unsaturated node before a saturated one, then the lower share / weight.
  // <0 when `a` goes first, 0 when no level tells them apart.
  static double Compare(const HNode* root, const std::string& a, const std::string& b) {
    const std::vector<std::string> la = Split(a, '/'), lb = Split(b, '/');
    const HNode* x = root;
    const HNode* y = root;
    const size_t depth = std::min(la.size(), lb.size());
    for (size_t i = 0; i < depth; ++i) {
      if (!x->saturated && y->saturated) return -1;
      if (x->saturated && !y->saturated) return 1;
      const double sx = x->share / x->weight, sy = y->share / y->weight;
      if (sx != sy) return sx - sy;
      if (i + 1 < depth) {
        auto ix = x->children.find(la[i + 1]);
        auto iy = y->children.find(lb[i + 1]);
        // A level no job has reached yet: nothing to compare (upstream would crash).
        if (ix == x->children.end() || iy == y->children.end()) return 0;
        x = ix->second.get();
        y = iy->second.get();
      }
    }
    return 0;
  }

  // Bottom-up: a leaf's saturation is tested; an inner node's allocation is its
  // saturated children's allocations plus its unsaturated children's rescaled
  // to the smallest dominant share among them (mdr, at most 1), children with
  // share 0 left out; it is saturated when every child is.
  void Recompute(HNode* n, const Resource& total_allocated) const {
    if (n->leaf) {
      n->saturated = LeafSaturated(n->leaf_allocated, n->request, total_, total_allocated);
      return;
    }
    double mdr = 1;
    for (auto& [name, c] : n->children) {
      Recompute(c.get(), total_allocated);
      if (c->share != 0 && !c->saturated) {
        const double s = FloatShare(c->allocated, total_);
        if (s < mdr) mdr = s;
      }
    }
    n->allocated = FloatResource();
    bool saturated = true;
    for (auto& [name, c] : n->children) {
      if (!c->saturated) saturated = false;
      if (c->share == 0) continue;
      n->allocated.Add(c->saturated ? c->allocated : c->allocated.Times(mdr / c->share));
    }
    n->share = FloatShare(n->allocated, total_);
    n->saturated = saturated;
  }

 private:
  Resource total_;
  std::unique_ptr<HNode> root_;
};

// ---------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------

class DrfPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "drf"; }

  // Each job's dominant share as the session leaves it (Volcano's job_share gauge).
  void OnSessionClose(Session& ssn) override {
    SessionStats* stats = ActiveSessionStats();
    if (stats == nullptr) return;
    for (const JobInfo& job : ssn.jobs())
      stats->job_shares[job.key] = static_cast<double>(attrs_[job.id].share.ToLongDouble());
  }

  void OnSessionOpen(Session& ssn) override {
    total_ = ssn.total_resource();
    attrs_.assign(ssn.jobs().size(), JobAttr());
    for (const JobInfo& job : ssn.jobs()) {
      JobAttr& a = attrs_[job.id];
      a.allocated = job.allocated;
      a.share = DominantShare(a.allocated, total_);
    }
    if (HierarchyEnabled(ssn)) {
      tree_ = std::make_unique<HdrfTree>(total_);
      for (const JobInfo& job : ssn.jobs()) total_allocated_ += attrs_[job.id].allocated;
      // Upstream adds the jobs one by one, recomputing the whole tree each time
      // with a growing total; only the last recomputation, with the full
      // total, survives, so one recomputation after all leaves gives the same tree.
      for (const JobInfo& job : ssn.jobs()) {
        const QueueInfo& q = ssn.queue(job.queue);
        tree_->Put(tree_->root(), job, attrs_[job.id].allocated, Path(q),
                   Annotation(q, kHierarchyWeightsKey));
      }
      tree_->Recompute(tree_->root(), total_allocated_);
    }

    ssn.AddPreemptableFn(
        [this](const TaskInfo& preemptor, const std::vector<const TaskInfo*>& cands) {
          return std::make_pair(Victims(preemptor, cands), Vote::kPermit);
        });

    if (tree_) {
      ssn.AddQueueOrderFn([this](const QueueInfo& a, const QueueInfo& b) {
        const double r = HdrfTree::Compare(tree_->root(), Path(a), Path(b));
        return r < 0 ? -1 : (r > 0 ? 1 : 0);
      });
      ssn.AddReclaimableFn(
          [this, &ssn](const TaskInfo& reclaimer, const std::vector<const TaskInfo*>& cands) {
            return std::make_pair(HierarchicalVictims(ssn, reclaimer, cands), Vote::kPermit);
          });
    }

    ssn.AddJobOrderFn([this](const JobInfo& a, const JobInfo& b) {
      return share::Compare(attrs_[a.id].share, attrs_[b.id].share);
    });

    EventHandler handler;
    handler.allocate = [this, &ssn](const TaskInfo& task) { Update(ssn, task, +1); };
    handler.deallocate = [this, &ssn](const TaskInfo& task) { Update(ssn, task, -1); };
    ssn.AddEventHandler(std::move(handler));
  }

 private:
  // The first drf entry of the configuration decides, as upstream.
  static bool HierarchyEnabled(const Session& ssn) {
    for (const Tier& tier : ssn.config().tiers) {
      for (const PluginOption& p : tier.plugins) {
        if (p.name == "drf") return p.Enabled(Switch::kHierarchy);
      }
    }
    return false;
  }

  static std::string Annotation(const QueueInfo& q, const char* key) {
    if (q.queue == nullptr) return "";
    auto it = q.queue->meta.annotations.find(key);
    return it == q.queue->meta.annotations.end() ? "" : it->second;
  }
  static std::string Path(const QueueInfo& q) { return Annotation(q, kHierarchyKey); }

  void UpdateTree(const Session& ssn, HNode* root, const Resource& total_allocated,
                  const JobInfo& job, const Resource& job_allocated) const {
    const QueueInfo& q = ssn.queue(job.queue);
    tree_->Update(root, total_allocated, job, job_allocated, Path(q),
                  Annotation(q, kHierarchyWeightsKey));
  }

  void Update(const Session& ssn, const TaskInfo& task, int sign) {
    if (task.job == kNone) return;
    JobAttr& a = attrs_[task.job];
    if (sign > 0) {
      a.allocated += task.request;
      if (tree_) total_allocated_ += task.request;
    } else {
      a.allocated -= task.request;
      if (tree_) total_allocated_ -= task.request;
    }
    a.share = DominantShare(a.allocated, total_);
    if (tree_) UpdateTree(ssn, tree_->root(), total_allocated_, ssn.job(task.job), a.allocated);
  }

  // A candidate of job R is a victim iff
  //     share(preemptor job allocated + preemptor request)
  //         <= share(R's running allocation - candidate) + 1e-6
  // (Volcano: `ls < rs || |ls - rs| <= shareDelta`).
  //
  // R's running allocation starts at R's allocated and loses every candidate
  // of R that is looked at, victim or not, in candidate order: upstream
  // subtracts before it compares. So among the candidates of one job the later
  // ones see a smaller rs and are less likely to be victims.
  std::vector<const TaskInfo*> Victims(const TaskInfo& preemptor,
                                       const std::vector<const TaskInfo*>& cands) const {
    std::vector<const TaskInfo*> victims;
    if (preemptor.job == kNone) return victims;
    const Fraction ls = DominantShare(attrs_[preemptor.job].allocated + preemptor.request, total_);
    std::map<JobId, Resource> running;
    for (const TaskInfo* c : cands) {
      if (c->job == kNone) continue;  // no job, no share: upstream skips it too
      auto it = running.find(c->job);
      if (it == running.end()) it = running.emplace(c->job, attrs_[c->job].allocated).first;
      it->second -= c->request;
      const Fraction rs = DominantShare(it->second, total_);
      if (ls < rs || std::fabs(ls.ToLongDouble() - rs.ToLongDouble()) <= kShareDelta)
        victims.push_back(c);
    }
    return victims;
  }

  // hDRF Reclaimable: on a copy of the tree the reclaimer's job gains the
  // reclaimer's request; then each candidate is judged on its own (its job
  // loses just that candidate, the copy is restored afterwards): a victim iff
  // the reclaimer's queue path then compares strictly before the candidate's.
  std::vector<const TaskInfo*> HierarchicalVictims(
      const Session& ssn, const TaskInfo& reclaimer,
      const std::vector<const TaskInfo*>& cands) const {
    std::vector<const TaskInfo*> victims;
    if (reclaimer.job == kNone) return victims;
    std::unique_ptr<HNode> root = tree_->root()->Clone();
    Resource total_allocated = total_allocated_ + reclaimer.request;
    const JobInfo& ljob = ssn.job(reclaimer.job);
    UpdateTree(ssn, root.get(), total_allocated, ljob,
               attrs_[ljob.id].allocated + reclaimer.request);
    const std::string lpath = Path(ssn.queue(ljob.queue));
    for (const TaskInfo* c : cands) {
      if (c->job == kNone) continue;
      const JobInfo& rjob = ssn.job(c->job);
      const Resource& rallocated = attrs_[rjob.id].allocated;
      total_allocated -= c->request;
      UpdateTree(ssn, root.get(), total_allocated, rjob, rallocated - c->request);
      const double ret = HdrfTree::Compare(root.get(), lpath, Path(ssn.queue(rjob.queue)));
      total_allocated += c->request;
      UpdateTree(ssn, root.get(), total_allocated, rjob, rallocated);
      if (ret < 0) victims.push_back(c);
    }
    return victims;
  }

  Resource total_;
  std::vector<JobAttr> attrs_;      // by JobId
  std::unique_ptr<HdrfTree> tree_;  // null without enableHierarchy
  Resource total_allocated_;        // Σ job allocations (hierarchy only)
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewDrfPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new DrfPlugin());
}

}  // namespace basalt
