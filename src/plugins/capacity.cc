// capacity: queues get what their spec says (docs/plugins/capacity.md), in a
// flat list or in a tree of queues (`enableHierarchy: true` on this plugin).
//
// Per queue (exact integers; `total` = Σ node allocatable):
//   guarantee      = spec.guarantee (empty when unset)
//   allocated      = Σ requests of the queue's tasks in an allocated status
//   inqueue        = Σ minResources (less gated pods) of its Inqueue jobs
//                  + what its Running jobs with minResources and at least
//                    minMember allocated tasks still reserve (share::RunningReservation)
//   elastic        = Σ over its jobs of max(allocated - minResources, 0)
//   share          = max over deserved's positive dimensions of allocated / deserved;
//                    1 for a queue without deserved (best-effort: it goes after the
//                    queues with deserved, and after them at equal shares)
//
// Flat mode (every queue; Volcano builds only queues with jobs, the others are
// never consulted, so the answers are the same):
//   capability     = spec.capability, a missing or zero cpu / memory unlimited
//   realCapability = min((total - Σ every queue's guarantee) + guarantee, capability)
//                    (a scalar the capability does not name is not capped)
//   deserved       = max(min(spec.deserved, realCapability), guarantee)
//                    (scalars realCapability lacks stay; `MaxPositive` drops zeros)
//
// Hierarchical mode: every queue is a node of a tree under `root` (parent =
// spec.parent, else root). When the store has no Queue named `root` the plugin
// uses an implicit one with an empty spec — the queue Volcano's scheduler
// creates at start-up. Top-down from root:
//   root:   capability unlimited when empty (cpu, memory and the cluster's
//           scalars); realCapability = capability; deserved and guarantee =
//           Σ children's (whatever its spec says)
//   child:  capability inherits the parent's cpu / memory where missing or <= 0
//           and the parent's scalars it does not name;
//           realCapability = min((parent.real - Σ siblings' guarantees) + guarantee,
//                                capability)
//           deserved = max(spec.deserved, guarantee) (no min)
//   allocated, inqueue and elastic of a queue include its descendants'.
// A child capability above its parent's only clips the child's realCapability;
// children's deserved or guarantees summing above the parent's change nothing
// (v1.15.1 logs both and goes on). The session is "not ready" — every
// allocation, enqueue and reclaim refused, and no queue order registered —
// only when a parent is missing, parents loop, or a job sits in a non-leaf queue.
//
// Registered functions (both modes unless said):
//   QueueOrder      higher spec.priority first, then lower share; hierarchical:
//                   then leaves before non-leaves, and two leaves compare the
//                   shares of their ancestors just below the deepest common
//                   ancestor (their own shares when siblings);
//   VictimQueueOrder (hierarchical) victims whose queue shares a deeper common
//                   ancestor with the reclaimer's queue go first;
//   Reclaimable     victims only from queues above deserved, never below guarantee;
//                   hierarchical with `ancestorReclaimLevel` N > 0: also, for each
//                   depth d = 1..N (1: the parent), the victim queue's ancestor at
//                   depth d, unless it is root or the reclaimer's ancestor at that
//                   depth, must be above its deserved (a running copy per ancestor);
//   Preemptive      queue Open and the task fits deserved on at least one dimension,
//                   or (hierarchical, N > 0) so does some non-root ancestor at depth <= N;
//   Allocatable     queue Open, tree valid, leaf, and the task fits realCapability
//                   of the queue and of every ancestor;
//   JobEnqueueable  minResources fits realCapability of the queue and its
//                   ancestors (then joins their `inqueue`);
//   events          allocate / deallocate move `allocated` up the tree.
// No Overused function: capacity never marks a queue overused.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "framework/invariants.h"
#include "framework/session.h"
#include "framework/session_stats.h"
#include "framework/vote_notes.h"
#include "plugins/builtin.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

using share::DominantShare;
using share::Fraction;

constexpr char kPluginName[] = "capacity";
constexpr char kRootQueue[] = "root";
constexpr char kAncestorReclaimLevel[] = "ancestorReclaimLevel";

// ---- Resource operations with Volcano's exact rules (local: src/api/ is not ours) ----

// Volcano's helpers.Max: per-dimension maximum, keeping only positive scalars.
// The dropped zeros matter later: a deserved scalar absent after this is
// unlimited for the `LessEqualUnlimited` test in Reclaimable.
Resource MaxPositive(const Resource& a, const Resource& b) {
  Resource r;
  r.set_milli_cpu(std::max(a.milli_cpu(), b.milli_cpu()));
  r.set_memory(std::max(a.memory(), b.memory()));
  for (const auto& [id, v] : a.scalars()) {
    if (v > 0) r.Set(id, v);
  }
  for (const auto& [id, v] : b.scalars()) {
    if (v > 0 && v > r.Get(id)) r.Set(id, v);
  }
  return r;
}

// Volcano's LessEqual with the Zero default as Reclaimable uses it for the
// guarantee: cpu, memory and the scalars `guarantee` names must each be <= `left`'s.
bool KeepsGuarantee(const Resource& left, const Resource& guarantee) {
  if (guarantee.milli_cpu() > left.milli_cpu() || guarantee.memory() > left.memory()) return false;
  for (const auto& [id, v] : guarantee.scalars()) {
    if (v > left.Get(id)) return false;
  }
  return true;
}

// Volcano's LessEqualPartlyWithDimensionZeroFiltered as of v1.13: true when on
// at least one dimension the request has (> 0), `used` <= `limit` (absent = 0).
// A dimension where both `used` and `limit` are zero is skipped. Unlike the
// quota checks, `pods` is compared too, so a deserved naming `pods` can pass on
// the pod count alone.
bool FitsOnSomeRequested(const Resource& used, const Resource& limit, const Resource& request) {
  auto one = [&](ResourceId id) {
    const int64_t u = used.Get(id);
    const int64_t l = limit.Get(id);
    if (request.Get(id) <= 0 || (u <= 0 && l <= 0)) return false;
    return u <= l;
  };
  if (one(ResourceNames::kCpu) || one(ResourceNames::kMemory)) return true;
  for (const auto& [id, v] : request.scalars()) {
    if (one(id)) return true;
  }
  return false;
}

// The dimensions the request has (> 0, `pods` skipped) on which `used` exceeds
// `limit` (absent = 0): Volcano's LessEqualWithDimensionAndResourcesName, with
// cpu, memory, then scalars by name (Volcano's map order is random).
std::vector<std::string> ExceededOnRequested(const Resource& used, const Resource& limit,
                                             const Resource& request) {
  std::vector<std::string> names;
  if (request.milli_cpu() > 0 && used.milli_cpu() > limit.milli_cpu()) names.push_back("cpu");
  if (request.memory() > 0 && used.memory() > limit.memory()) names.push_back("memory");
  std::vector<std::string> scalars;
  for (const auto& [id, v] : request.scalars()) {
    if (id == ResourceNames::kPods || v <= 0) continue;
    if (used.Get(id) > limit.Get(id)) scalars.push_back(ResourceNames::Name(id));
  }
  std::sort(scalars.begin(), scalars.end());
  names.insert(names.end(), scalars.begin(), scalars.end());
  return names;
}

// util.FormatResourceNames: "prefix: insufficient cpu, insufficient memory".
std::string FormatInsufficient(const std::vector<std::string>& names) {
  std::string s = "queue resource quota insufficient";
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? ": insufficient " : ", insufficient ") + names[i];
  return s;
}

// ---- per-queue state ----

struct QueueAttr {
  std::string name;
  QueueId queue = kNone;       // kNone: the implicit root
  int parent = -1;             // index in `attrs_`; -1 for root and in flat mode
  std::vector<int> ancestors;  // root first, parent last (empty in flat mode)
  std::vector<int> children;   // in queue-name order
  Resource capability;
  Resource real_capability;
  Resource deserved;
  Resource guarantee;
  Resource allocated;
  Resource inqueue;
  Resource admitted_in_pass;  // the part of `inqueue` enqueue added this session
  Resource elastic;
  Fraction share;
};

// What one job adds to its queue (and, with hierarchy, to every ancestor).
struct JobUsage {
  Resource allocated;
  Resource inqueue;
  Resource elastic;
};

JobUsage UsageOf(const Session& ssn, const JobInfo& job) {
  JobUsage u;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (IsAllocatedStatus(t.status)) u.allocated += t.request;
  }
  const Resource min = job.min_resources.value_or(Resource());
  if (job.phase == PodGroupPhase::kInqueue) u.inqueue += share::DeductGated(ssn, job, min);
  // A Running job whose gang is placed keeps room for the rest of its
  // minResources; the minMember test keeps a finished driver pod (Spark) from
  // reserving its job's room again.
  if (job.phase == PodGroupPhase::kRunning && job.min_resources &&
      share::AllocatedTaskCount(job) >= job.min_member) {
    u.inqueue += share::DeductGated(ssn, job, share::RunningReservation(job));
  }
  // minResources has no `pods`, so every allocated pod counts 1 `pods` here.
  u.elastic = ExceededPart(job.allocated, min);
  return u;
}

// Volcano's `ssn.HierarchyEnabled("capacity")`: the switch of the first
// `capacity` entry of the tiers. The factory only sees the arguments, so the
// switch is read from the session's configuration.
bool HierarchyEnabled(const SchedulerConfig& conf) {
  for (const Tier& tier : conf.tiers) {
    for (const PluginOption& opt : tier.plugins) {
      if (opt.name == kPluginName) return opt.Enabled(Switch::kHierarchy);
    }
  }
  return false;
}

// Index of the deepest common entry of the two ancestor lists (Volcano's
// getQueueLevel). Lists start at root, so two queues of one tree share at
// least index 0; a queue's own id is not in its list.
int CommonLevel(const QueueAttr& l, const QueueAttr& r) {
  int level = 0;
  const size_t n = std::min(l.ancestors.size(), r.ancestors.size());
  for (size_t i = 0; i < n; ++i) {
    if (l.ancestors[i] != r.ancestors[i]) return level;
    level = static_cast<int>(i);
  }
  return level;
}

class CapacityPlugin : public Plugin {
 public:
  explicit CapacityPlugin(int64_t ancestor_reclaim_level)
      : ancestor_reclaim_level_(ancestor_reclaim_level) {}
  std::string_view Name() const override { return kPluginName; }

  // Checks 6 and 7 of framework/invariants.h: allocate keeps queues within
  // capability; reclaim, when capacity alone chooses the victims, leaves no
  // queue it took from below its guarantee.
  void CheckInvariants(const Session& ssn, std::vector<std::string>* violations) const override {
    if (ssn.PluginEnabled(*this, Switch::kAllocatable)) {
      std::string over = CapabilityExceeded(ssn);
      if (!over.empty()) violations->push_back(std::move(over));
    }
    if (ssn.invariants().action() != "reclaim" ||
        !ssn.DecidesVictimsAlone(*this, Switch::kReclaimable)) {
      return;
    }
    const ActionEvictions evicted = EvictionsOfAction(ssn);
    if (evicted.lost_queues.empty()) return;
    const std::vector<Resource> usage = QueueUsage(ssn);
    for (QueueId q : evicted.lost_queues) {
      const QueueInfo& queue = ssn.queue(q);
      if (!queue.queue || !queue.queue->guarantee) continue;
      const Resource& g = *queue.queue->guarantee;
      if (LessEqual(g, usage[q])) continue;
      std::ostringstream os;
      os << "reclaim took queue " << queue.name << " to " << usage[q] << ", below its guarantee "
         << g;
      violations->push_back(os.str());
      return;
    }
  }

  void OnSessionOpen(Session& ssn) override {
    hierarchy_ = HierarchyEnabled(ssn.config());
    total_ = ssn.total_resource();
    if (hierarchy_) {
      ready_ = BuildTree(ssn);
    } else {
      BuildFlat(ssn);
    }
    Register(ssn);
  }

  // Volcano's capacity queue gauges at close: a queue with jobs shows its
  // attributes (and is overused when its share is above 1); a queue without
  // jobs its spec.deserved, nothing allocated or requested, and its real
  // capability.
  void OnSessionClose(Session& ssn) override {
    SessionStats* stats = ActiveSessionStats();
    if (stats == nullptr) return;
    std::vector<bool> has_jobs(ssn.queues().size(), false);
    std::vector<Resource> request(ssn.queues().size());
    for (const JobInfo& job : ssn.jobs()) {
      has_jobs[job.queue] = true;
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (IsAllocatedStatus(t.status) || t.status == TaskStatus::kPending)
          request[job.queue] += t.request;
      }
    }
    for (const QueueAttr& a : attrs_) {
      if (a.queue == kNone) continue;  // the implicit root has no Queue object
      const QueueInfo& q = ssn.queue(a.queue);
      QueueReport& r = stats->queues[q.name];
      if (q.queue && q.queue->capability) r.capability = FiguresOf(*q.queue->capability);
      r.real_capability = FiguresOf(a.real_capability);
      if (!has_jobs[a.queue] && !hierarchy_) {
        r.deserved = FiguresOf(q.queue && q.queue->deserved ? *q.queue->deserved : Resource());
        r.allocated = ResourceFigures();
        r.request = ResourceFigures();
        continue;
      }
      r.deserved = FiguresOf(a.deserved);
      r.allocated = FiguresOf(a.allocated);
      r.request = FiguresOf(request[a.queue]);
      r.share = static_cast<double>(a.share.ToLongDouble());
      r.overused = Fraction{1, 1} < a.share;
    }
  }

 private:
  // ---- flat mode ----

  void BuildFlat(const Session& ssn) {
    Resource total_guarantee;
    for (const QueueInfo& q : ssn.queues()) {
      if (q.queue && q.queue->guarantee) total_guarantee += *q.queue->guarantee;
    }
    attrs_.assign(ssn.queues().size(), QueueAttr());
    for (const QueueInfo& q : ssn.queues()) {
      QueueAttr& a = attrs_[q.id];
      a.name = q.name;
      a.queue = q.id;
      if (q.queue && q.queue->guarantee) a.guarantee = *q.queue->guarantee;
      a.real_capability = ExceededPart(total_, total_guarantee) + a.guarantee;
      if (q.queue && q.queue->capability) {
        Resource cap = *q.queue->capability;
        if (cap.milli_cpu() <= 0) cap.set_milli_cpu(INT64_MAX);
        if (cap.memory() <= 0) cap.set_memory(INT64_MAX);
        a.real_capability = MinUnlimited(a.real_capability, cap);
      }
      Resource deserved = q.queue && q.queue->deserved ? *q.queue->deserved : Resource();
      a.deserved = MaxPositive(MinUnlimited(deserved, a.real_capability), a.guarantee);
    }
    for (const JobInfo& job : ssn.jobs()) Charge(attrs_[job.queue], UsageOf(ssn, job));
    for (QueueAttr& a : attrs_) a.share = QueueShare(a);
  }

  // Volcano's updateQueueAttrShare: a queue without deserved is best-effort,
  // its share 1 whatever it holds, so it goes after every queue with deserved
  // below its share (and after equal ones: CompareShares).
  static Fraction QueueShare(const QueueAttr& a) {
    if (a.deserved.IsZero()) return Fraction{1, 1};
    return DominantShare(a.allocated, a.deserved);
  }

  // Lower share first; at equal shares a queue with deserved goes before a
  // best-effort one (Volcano's compareShareWithDeserved).
  static int CompareShares(const QueueAttr& a, const QueueAttr& b) {
    if (int c = share::Compare(a.share, b.share); c != 0) return c;
    const bool a_has = !a.deserved.IsZero(), b_has = !b.deserved.IsZero();
    if (a_has == b_has) return 0;
    return a_has ? -1 : 1;
  }

  static void Charge(QueueAttr& a, const JobUsage& u) {
    a.allocated += u.allocated;
    a.inqueue += u.inqueue;
    a.elastic += u.elastic;
  }

  // ---- hierarchical mode ----

  // Builds the tree and its quotas; false when the session must refuse
  // everything (see the file comment). Stops at the first problem, as Volcano
  // does; what was built until then is only used to keep events harmless.
  bool BuildTree(const Session& ssn) {
    attrs_.assign(ssn.queues().size(), QueueAttr());
    for (const QueueInfo& q : ssn.queues()) {
      QueueAttr& a = attrs_[q.id];
      a.name = q.name;
      a.queue = q.id;
      if (q.queue && q.queue->capability) a.capability = *q.queue->capability;
      if (q.queue && q.queue->guarantee) a.guarantee = *q.queue->guarantee;
      if (q.queue && q.queue->deserved) a.deserved = *q.queue->deserved;
    }
    if (auto id = ssn.FindQueue(kRootQueue)) {
      root_ = *id;
    } else {
      root_ = static_cast<int>(attrs_.size());
      attrs_.emplace_back();
      attrs_.back().name = kRootQueue;
    }
    if (!LinkParents(ssn)) return false;
    for (const JobInfo& job : ssn.jobs()) {
      QueueAttr& a = attrs_[job.queue];
      if (!a.children.empty()) return false;  // a job in a non-leaf queue
      const JobUsage u = UsageOf(ssn, job);
      Charge(a, u);
      for (int anc : a.ancestors) Charge(attrs_[anc], u);
    }
    QueueAttr& root = attrs_[root_];
    if (root.capability.IsZero()) root.capability = Unlimited(total_);
    root.real_capability = root.capability;
    CheckSubtree(root_);
    for (QueueAttr& a : attrs_) a.share = QueueShare(a);
    return true;
  }

  // No limit: cpu and memory, and every scalar the cluster has (Volcano's
  // InfiniteResource plus the cluster's scalar names).
  static Resource Unlimited(const Resource& total) {
    Resource r;
    r.set_milli_cpu(INT64_MAX);
    r.set_memory(INT64_MAX);
    for (const auto& [id, v] : total.scalars()) r.Set(id, INT64_MAX);
    return r;
  }

  // Sets parent, children and ancestors. False on a parent that does not exist
  // or a loop of parents that never reaches root.
  bool LinkParents(const Session& ssn) {
    for (const QueueInfo& q : ssn.queues()) {
      if (q.id == root_) continue;
      const std::string parent = q.parent.empty() ? kRootQueue : q.parent;
      int p = root_;
      if (parent != kRootQueue) {
        auto id = ssn.FindQueue(parent);
        if (!id) return false;
        p = *id;
      }
      attrs_[q.id].parent = p;
      attrs_[p].children.push_back(q.id);  // queues come in name order
    }
    for (QueueAttr& a : attrs_) {
      if (a.parent < 0) continue;  // root
      std::vector<int> up;
      for (int p = a.parent; p != root_; p = attrs_[p].parent) {
        if (up.size() >= attrs_.size()) return false;  // a loop that misses root
        up.push_back(p);
      }
      up.push_back(root_);
      a.ancestors.assign(up.rbegin(), up.rend());
    }
    return true;
  }

  // Volcano's checkHierarchicalQueue: `p`'s capability and realCapability are
  // final; floors each child's deserved at its guarantee, hands inherited
  // capabilities and realCapabilities (clipped by the child's capability) to
  // the children, then recurses. A child capability above the parent's, or
  // children's deserved or guarantees summing above the parent's, invalidate
  // nothing in v1.15.1 (it only logs them): the clip is the whole effect.
  void CheckSubtree(int p) {
    QueueAttr& parent = attrs_[p];
    Resource children_deserved, children_guarantee;
    for (int c : parent.children) {
      QueueAttr& child = attrs_[c];
      child.deserved = Max(child.deserved, child.guarantee);
      children_deserved += child.deserved;
      children_guarantee += child.guarantee;
      if (child.capability.milli_cpu() <= 0)
        child.capability.set_milli_cpu(parent.capability.milli_cpu());
      if (child.capability.memory() <= 0) child.capability.set_memory(parent.capability.memory());
      for (const auto& [id, v] : parent.capability.scalars()) {
        if (!child.capability.Has(id)) child.capability.Set(id, v);
      }
    }
    if (p == root_) {
      parent.guarantee = children_guarantee;
      parent.deserved = children_deserved;
    }
    const Resource shareable = ExceededPart(parent.real_capability, children_guarantee);
    for (int c : parent.children) {
      QueueAttr& child = attrs_[c];
      child.real_capability = MinUnlimited(shareable + child.guarantee, child.capability);
    }
    for (int c : parent.children) CheckSubtree(c);
  }

  bool IsLeaf(QueueId q) const { return attrs_[q].children.empty(); }

  // True when `fits` holds for the queue and then each ancestor up to root
  // (the order Volcano's quota checks walk; the first failure stops it).
  template <typename Fits>
  bool FitsUpward(QueueId q, Fits fits) const {
    if (!fits(attrs_[q])) return false;
    const std::vector<int>& up = attrs_[q].ancestors;
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
      if (!fits(attrs_[*it])) return false;
    }
    return true;
  }

  // ---- registered functions ----

  void Register(Session& ssn) {
    ssn.AddReclaimableFn(
        [this, &ssn](const TaskInfo& reclaimer, const std::vector<const TaskInfo*>& cands) {
          if (!ready_) return std::make_pair(std::vector<const TaskInfo*>(), Vote::kReject);
          return std::make_pair(Reclaimable(ssn, reclaimer, cands), Vote::kPermit);
        });
    ssn.AddPreemptiveFn([this](const QueueInfo& q, const TaskInfo& t) { return Preemptive(q, t); });
    ssn.AddAllocatableFn(
        [this](const QueueInfo& q, const TaskInfo& t) { return Allocatable(q, t); });
    ssn.AddJobEnqueueableFn([this, &ssn](const JobInfo& job) { return Enqueueable(ssn, job); });

    EventHandler handler;
    handler.allocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, +1); };
    handler.deallocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, -1); };
    ssn.AddEventHandler(std::move(handler));

    // Volcano registers the orders last and skips them when the tree is
    // invalid, so a broken tree leaves queue order to the fallback.
    if (!hierarchy_) {
      ssn.AddQueueOrderFn(
          [this](const QueueInfo& a, const QueueInfo& b) { return FlatQueueOrder(a, b); });
    } else if (ready_) {
      ssn.AddQueueOrderFn(
          [this](const QueueInfo& a, const QueueInfo& b) { return TreeQueueOrder(a, b); });
      ssn.AddVictimQueueOrderFn(
          [this](const QueueInfo& a, const QueueInfo& b, const QueueInfo& reclaimer) {
            const int la = CommonLevel(attrs_[a.id], attrs_[reclaimer.id]);
            const int lb = CommonLevel(attrs_[b.id], attrs_[reclaimer.id]);
            if (la == lb) return 0;
            return la > lb ? -1 : 1;
          });
    }
  }

  int FlatQueueOrder(const QueueInfo& a, const QueueInfo& b) const {
    if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
    return CompareShares(attrs_[a.id], attrs_[b.id]);
  }

  // Leaves before non-leaves; two non-leaves by their own shares; two leaves by
  // the shares of their ancestors just below the deepest common one. Only the
  // leaf's own share follows allocate events, so ancestors compare with the
  // shares of session open (as in Volcano).
  int TreeQueueOrder(const QueueInfo& a, const QueueInfo& b) const {
    if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
    const bool a_leaf = IsLeaf(a.id), b_leaf = IsLeaf(b.id);
    if (a_leaf != b_leaf) return a_leaf ? -1 : 1;
    if (!a_leaf) return CompareShares(attrs_[a.id], attrs_[b.id]);
    const QueueAttr& la = attrs_[a.id];
    const QueueAttr& lb = attrs_[b.id];
    const size_t below = static_cast<size_t>(CommonLevel(la, lb)) + 1;
    const int pa = below < la.ancestors.size() ? la.ancestors[below] : a.id;
    const int pb = below < lb.ancestors.size() ? lb.ancestors[below] : b.id;
    return CompareShares(attrs_[pa], attrs_[pb]);
  }

  // Per candidate, with a running copy of its queue's allocation: skipped
  // while that allocation is <= deserved (a dimension deserved does not name is
  // unlimited) or when taking it would leave the queue below its guarantee on
  // some dimension, or when an ancestor within `ancestorReclaimLevel` is not
  // above its deserved (AncestorsAllowReclaim); otherwise a victim, subtracted
  // from the copies. Candidates are taken in victim order (Volcano sorts them
  // with its victim queue first), so the pods chosen are the ones evicted
  // first: a job's last pod in task order before its first.
  std::vector<const TaskInfo*> Reclaimable(const Session& ssn, const TaskInfo& reclaimer,
                                           std::vector<const TaskInfo*> cands) const {
    std::vector<const TaskInfo*> victims;
    if (reclaimer.job != kNone) {
      const QueueInfo& reclaimer_queue = ssn.queue(ssn.job(reclaimer.job).queue);
      std::stable_sort(cands.begin(), cands.end(), [&](const TaskInfo* a, const TaskInfo* b) {
        return ssn.VictimOrderLess(*a, *b, reclaimer_queue);
      });
    }
    std::map<int, Resource> running;  // by index in attrs_
    auto running_of = [&](int q) -> Resource& {
      return running.try_emplace(q, attrs_[q].allocated).first->second;
    };
    const QueueId reclaimer_queue = reclaimer.job == kNone ? kNone : ssn.job(reclaimer.job).queue;
    std::vector<int> checked;
    for (const TaskInfo* c : cands) {
      if (c->job == kNone) continue;
      const QueueId q = ssn.job(c->job).queue;
      const QueueAttr& a = attrs_[q];
      Resource& mine = running_of(q);
      if (LessEqualUnlimited(mine, a.deserved)) continue;
      if (!KeepsGuarantee(mine - c->request, a.guarantee)) continue;
      checked.clear();
      if (!AncestorsAllowReclaim(reclaimer_queue, q, running_of, &checked)) continue;
      mine -= c->request;
      for (int anc : checked) running_of(anc) -= c->request;
      victims.push_back(c);
    }
    return victims;
  }

  // The ancestor of `q` at `depth` (1: the parent), or -1 when the tree is not
  // that deep above it.
  int AncestorAtDepth(int q, int64_t depth) const {
    const std::vector<int>& up = attrs_[q].ancestors;
    if (depth <= 0 || static_cast<int64_t>(up.size()) < depth) return -1;
    return up[up.size() - static_cast<size_t>(depth)];
  }

  // Volcano's ancestor check (capacity argument `ancestorReclaimLevel`): for
  // each depth up to the level, the victim queue's ancestor there must be
  // above its deserved, unless it is root or the reclaimer's ancestor at the
  // same depth (the two queues share that part of the tree: no contention to
  // settle there). The ancestors checked go to `checked`.
  template <typename RunningOf>
  bool AncestorsAllowReclaim(QueueId reclaimer, QueueId victim, RunningOf&& running_of,
                             std::vector<int>* checked) const {
    if (!hierarchy_ || ancestor_reclaim_level_ <= 0 || reclaimer == kNone) return true;
    for (int64_t depth = 1; depth <= ancestor_reclaim_level_; ++depth) {
      const int anc = AncestorAtDepth(victim, depth);
      if (anc < 0 || anc == root_) continue;
      if (AncestorAtDepth(reclaimer, depth) == anc) continue;
      if (LessEqualUnlimited(running_of(anc), attrs_[anc].deserved)) return false;
      checked->push_back(anc);
    }
    return true;
  }

  // May the queue take from others for `t`? Only while it would stay within
  // deserved on some dimension of the request: the opposite of proportion's
  // "overused", on purpose partial (a queue over on cpu may still reclaim gpus).
  bool Preemptive(const QueueInfo& q, const TaskInfo& t) const {
    if (!ready_ || !q.IsOpen()) return false;
    const QueueAttr& a = attrs_[q.id];
    if (FitsOnSomeRequested(a.allocated + t.request, a.deserved, t.request)) return true;
    if (!hierarchy_) return false;
    for (int64_t depth = 1; depth <= ancestor_reclaim_level_; ++depth) {
      const int anc = AncestorAtDepth(q.id, depth);
      if (anc < 0 || anc == root_) continue;
      const QueueAttr& up = attrs_[anc];
      if (FitsOnSomeRequested(up.allocated + t.request, up.deserved, t.request)) return true;
    }
    return false;
  }

  bool Allocatable(const QueueInfo& q, const TaskInfo& t) const {
    if (!q.IsOpen() || !ready_) return false;
    if (hierarchy_ && !IsLeaf(q.id)) return false;
    return FitsUpward(q.id, [&t](const QueueAttr& a) {
      return LessEqualOnRequested(a.allocated + t.request, a.real_capability, t.request);
    });
  }

  Vote Enqueueable(Session& ssn, const JobInfo& job) {
    if (!ready_) return Vote::kReject;
    if (hierarchy_ && !IsLeaf(job.queue)) return Vote::kReject;
    if (!ssn.queue(job.queue).IsOpen()) return Vote::kReject;
    if (!job.min_resources) return Vote::kPermit;
    const Resource& min = *job.min_resources;
    std::vector<std::string> over;
    const QueueAttr* refusing = nullptr;
    const bool fits = FitsUpward(job.queue, [&](const QueueAttr& a) {
      over = ExceededOnRequested(min + a.allocated + a.inqueue - a.elastic, a.real_capability, min);
      if (!over.empty()) refusing = &a;
      return over.empty();
    });
    if (!fits) {
      ssn.RecordEvent("PodGroup/" + job.key, "Normal", "Unschedulable", FormatInsufficient(over));
      if (NotingVotes() && refusing != nullptr) {
        NoteVote("PodGroup/" + job.key, "capacity",
                 QueueQuotaNote(refusing->name.empty() ? "root" : refusing->name, min,
                                refusing->allocated, refusing->inqueue, refusing->admitted_in_pass,
                                refusing->elastic, refusing->real_capability));
      }
      return Vote::kReject;
    }
    const Resource admitted = share::DeductGated(ssn, job, min);
    QueueAttr& a = attrs_[job.queue];
    a.inqueue += admitted;
    a.admitted_in_pass += admitted;
    for (int anc : a.ancestors) {
      attrs_[anc].inqueue += admitted;
      attrs_[anc].admitted_in_pass += admitted;
    }
    return Vote::kPermit;
  }

  void Move(const Session& ssn, const TaskInfo& t, int sign) {
    if (t.job == kNone) return;
    QueueAttr& a = attrs_[ssn.job(t.job).queue];
    auto apply = [&](QueueAttr& x) {
      if (sign > 0) {
        x.allocated += t.request;
      } else {
        x.allocated -= t.request;
      }
    };
    apply(a);
    a.share = QueueShare(a);
    for (int anc : a.ancestors) apply(attrs_[anc]);
  }

  bool hierarchy_ = false;
  bool ready_ = true;
  int64_t ancestor_reclaim_level_ = 0;  // the argument ancestorReclaimLevel
  int root_ = -1;
  Resource total_;
  // By QueueId; with hierarchy and no `root` Queue, one more entry at the end
  // for the implicit root.
  std::vector<QueueAttr> attrs_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewCapacityPlugin(const Arguments& args) {
  int64_t level = 0;
  BASALT_RETURN_IF_ERROR(args.GetInt(kAncestorReclaimLevel, &level));
  if (level < 0) {
    // Volcano logs a negative level and uses 0.
    BASALT_RETURN_IF_ERROR(args.Invalid(
        kAncestorReclaimLevel,
        Status::InvalidArgument(args.owner() + ": arguments." + kAncestorReclaimLevel +
                                ": must not be negative, got " + std::to_string(level)),
        "0"));
    level = 0;
  }
  return std::unique_ptr<Plugin>(new CapacityPlugin(level));
}

}  // namespace basalt
