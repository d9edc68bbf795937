// proportion: queues share the cluster by weight (docs/plugins/proportion.md).
//
// At session open, for every queue that has at least one job in the snapshot
// (other queues take no part at all):
//   total          = Σ node allocatable
//   totalGuarantee = Σ spec.guarantee.resource over every queue of the snapshot
//   guarantee      = spec.guarantee.resource (empty when unset)
//   capability     = spec.capability; a missing or zero cpu / memory there is unlimited
//   realCapability = min(total - totalGuarantee + guarantee, capability)
//                    (a scalar the capability does not name is not capped)
//   allocated      = Σ requests of the queue's tasks in an allocated status
//   request        = allocated + Σ requests of its Pending tasks
//   inqueue        = Σ minResources (less gated pods) of its Inqueue jobs
//                  + Σ of what Running jobs with minResources and at least
//                    minMember allocated tasks still reserve (share::RunningReservation)
//   elastic        = Σ over its jobs of max(allocated - minResources, 0)
//   deserved       = water-filling of `total` by weight (`WaterFill`)
//   share          = max over deserved's positive dimensions of allocated / deserved
//
// Registered functions:
//   QueueOrder   higher spec.priority first, then lower share;
//   Reclaimable  victims only from queues above deserved (`Reclaimable`); Permit;
//   Overused     deserved <= allocated in every dimension;
//   Allocatable, Preemptive
//                queue Open and allocated + request <= deserved on the
//                dimensions the request has (`pods` skipped);
//   JobEnqueueable
//                Reject when the queue is not Open; Permit without minResources;
//                else Permit iff minResources + allocated + inqueue - elastic
//                <= realCapability on minResources' dimensions (the job's
//                minResources less gated pods then join `inqueue`), else Reject
//                with a "queue resource quota insufficient" PodGroup event;
//   events       allocate / deallocate move `allocated` and `share`.
//
// Exact arithmetic: Volcano hands out `remaining * weight / totalWeight` as a
// float64. basalt keeps every hand-out, and so deserved, as an exact rational
// (`ExactResource`), so deserved is the arithmetic result of the water-filling;
// the tests against whole values use its floor (`x <= deserved`) or ceiling
// (`deserved <= x`), and the share is the exact quotient.
#include <map>
#include <set>
#include <vector>

#include "framework/invariants.h"
#include "framework/session.h"
#include "framework/session_stats.h"
#include "framework/vote_notes.h"
#include "plugins/builtin.h"
#include "plugins/exact_resource.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

struct QueueAttr {
  bool present = false;  // the queue has a job in the snapshot
  int32_t weight = 0;
  Resource guarantee;
  Resource real_capability;
  ExactResource deserved;
  Resource deserved_floor;  // tests of `x <= deserved` on whole values
  Resource deserved_ceil;   // tests of `deserved <= x` on whole values
  Resource allocated;
  Resource request;
  Resource inqueue;
  Resource admitted_in_pass;  // the part of `inqueue` enqueue added this session
  Resource elastic;
  mpq_class share;
};

class ProportionPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "proportion"; }

  // Check 6 of framework/invariants.h: allocate keeps queues within capability.
  void CheckInvariants(const Session& ssn, std::vector<std::string>* violations) const override {
    if (!ssn.PluginEnabled(*this, Switch::kAllocatable)) return;
    std::string over = CapabilityExceeded(ssn);
    if (!over.empty()) violations->push_back(std::move(over));
  }

  void OnSessionOpen(Session& ssn) override {
    BuildAttrs(ssn);
    WaterFill();
    for (QueueAttr& a : attrs_) {
      if (!a.present) continue;
      a.deserved_floor = a.deserved.Floor();
      a.deserved_ceil = a.deserved.Ceil();
      a.share = DominantShare(a.allocated, a.deserved);
    }
    Register(ssn);
  }

  // What Volcano's proportion shows as its queue gauges: for a queue with
  // jobs its allocation, request, weight, deserved share, share and whether it
  // is overused; for a queue without jobs an allocation and request of 0.
  void OnSessionClose(Session& ssn) override {
    SessionStats* stats = ActiveSessionStats();
    if (stats == nullptr) return;
    for (const QueueInfo& q : ssn.queues()) {
      QueueReport& r = stats->queues[q.name];
      const QueueAttr* a = Attr(q.id);
      if (a == nullptr) {
        r.allocated = ResourceFigures();
        r.request = ResourceFigures();
        continue;
      }
      r.allocated = FiguresOf(a->allocated);
      r.request = FiguresOf(a->request);
      r.weight = a->weight;
      r.deserved = DeservedFigures(a->deserved);
      r.share = a->share.get_d();
      r.overused = LessEqual(a->deserved_ceil, a->allocated);
    }
  }

 private:
  // The exact deserved share in gauge units (a fraction of a unit survives).
  static ResourceFigures DeservedFigures(const ExactResource& deserved) {
    ResourceFigures f;
    for (const auto& [id, v] : deserved.values()) {
      if (id == ResourceNames::kCpu)
        f.milli_cpu = v.get_d();
      else if (id == ResourceNames::kMemory)
        f.memory = v.get_d();
      else if (id != ResourceNames::kPods)
        f.scalars[ResourceNames::Name(id)] = v.get_d();
    }
    return f;
  }

  // The attributes of a queue; nullptr when it has no job in the snapshot.
  const QueueAttr* Attr(QueueId id) const {
    return id >= 0 && id < static_cast<QueueId>(attrs_.size()) && attrs_[id].present ? &attrs_[id]
                                                                                     : nullptr;
  }

  void BuildAttrs(const Session& ssn) {
    total_ = ssn.total_resource();
    Resource total_guarantee;
    for (const QueueInfo& q : ssn.queues()) {
      if (q.queue && q.queue->guarantee) total_guarantee += *q.queue->guarantee;
    }
    attrs_.assign(ssn.queues().size(), QueueAttr());
    for (const JobInfo& job : ssn.jobs()) {
      QueueAttr& a = attrs_[job.queue];
      if (!a.present) InitQueue(ssn.queue(job.queue), total_guarantee, &a);
      a.allocated += job.allocated;
      a.request += job.allocated;
      if (job.Count(TaskStatus::kPending) > 0) {
        for (TaskId id : job.tasks) {
          const TaskInfo& t = ssn.task(id);
          if (t.status == TaskStatus::kPending) a.request += t.request;
        }
      }
      const Resource min = job.min_resources.value_or(Resource());
      if (job.phase == PodGroupPhase::kInqueue) a.inqueue += share::DeductGated(ssn, job, min);
      // A Running job whose gang is placed keeps room for the rest of its
      // minResources; the minMember test keeps a finished driver pod (Spark)
      // from reserving its job's room again.
      if (job.phase == PodGroupPhase::kRunning && job.min_resources &&
          share::AllocatedTaskCount(job) >= job.min_member) {
        a.inqueue += share::DeductGated(ssn, job, share::RunningReservation(job));
      }
      // minResources has no `pods`, so every allocated pod counts 1 `pods` here.
      a.elastic += ExceededPart(job.allocated, min);
    }
  }

  void InitQueue(const QueueInfo& q, const Resource& total_guarantee, QueueAttr* a) const {
    a->present = true;
    a->weight = q.weight;
    if (q.queue && q.queue->guarantee) a->guarantee = *q.queue->guarantee;
    a->real_capability = total_ - total_guarantee + a->guarantee;
    if (q.queue && q.queue->capability) {
      Resource cap = *q.queue->capability;
      if (cap.milli_cpu() <= 0) cap.set_milli_cpu(INT64_MAX);
      if (cap.memory() <= 0) cap.set_memory(INT64_MAX);
      a->real_capability = MinUnlimited(a->real_capability, cap);
    }
  }

  // Water-filling (docs/plugins/proportion.md): every round hands each unmet queue
  // its weight's part of what is left, capped by realCapability and by its
  // request and raised to its guarantee. A queue is met once its request fits
  // its deserved or its deserved stops moving (it hit a cap). Rounds stop when
  // every queue is met, nothing is left, or nothing changed.
  //
  // Exact: the hand-outs are rationals, so nothing is lost to rounding. In a
  // dimension where an unmet queue already sits at its cap, Volcano's round
  // still hands it a part, which the cap gives straight back to `remaining`
  // for the next round; the other queues' totals are the same when the part is
  // split among the queues below their cap at once (`Weights`), and that also
  // ends the rounds: each one either fills a dimension or brings another queue
  // to a cap in it, where an exact geometric series of returns would never end.
  void WaterFill() {
    ExactResource remaining(total_);
    std::vector<bool> met(attrs_.size(), false);
    while (true) {
      std::map<ResourceId, int64_t> weights = Weights(remaining, met);
      if (weights.empty()) break;  // every queue met, or only weight-0 queues left
      const ExactResource before = remaining;
      ExactResource increased, decreased;
      for (size_t i = 0; i < attrs_.size(); ++i) {
        QueueAttr& a = attrs_[i];
        if (!a.present || met[i]) continue;
        const ExactResource old = a.deserved;
        for (const auto& [id, left] : remaining.values()) {
          auto w = weights.find(id);
          if (w != weights.end() && !AtCap(a, id)) a.deserved.Add(id, left * a.weight / w->second);
        }
        a.deserved.MinUnlimited(a.real_capability);
        a.deserved.MinZero(a.request);
        a.deserved.Max(a.guarantee);
        if (a.deserved.Covers(a.request) || a.deserved.SameValues(old)) met[i] = true;
        AddDiff(a.deserved, old, &increased, &decreased);
      }
      remaining += decreased;
      remaining = ExceededPart(remaining, increased);
      if (remaining.NothingPositive() || remaining.SameValues(before)) break;
    }
  }

  // The cap of queue `a` in dimension `id`: min(realCapability, request), a
  // scalar the request does not have counting 0 (as MinZero applies it).
  static mpq_class CapOf(const QueueAttr& a, ResourceId id) {
    const bool fixed = id == ResourceNames::kCpu || id == ResourceNames::kMemory;
    if (!fixed && !a.request.Has(id)) return 0;
    int64_t cap = a.request.Get(id);
    if (fixed || a.real_capability.Has(id)) cap = std::min(cap, a.real_capability.Get(id));
    return mpq_class(static_cast<long>(cap));
  }

  static bool AtCap(const QueueAttr& a, ResourceId id) {
    return a.deserved.Get(id) >= CapOf(a, id);
  }

  // Per dimension with something left: the total weight of the unmet queues
  // below their cap there (dimensions where it is 0 are left out); empty when
  // no unmet queue has a weight.
  std::map<ResourceId, int64_t> Weights(const ExactResource& remaining,
                                        const std::vector<bool>& met) const {
    std::map<ResourceId, int64_t> out;
    int64_t any = 0;
    for (size_t i = 0; i < attrs_.size(); ++i) {
      const QueueAttr& a = attrs_[i];
      if (!a.present || met[i]) continue;
      any += a.weight;
      for (const auto& [id, left] : remaining.values()) {
        if (left > 0 && a.weight > 0 && !AtCap(a, id)) out[id] += a.weight;
      }
    }
    if (any == 0) return {};
    if (out.empty()) out[ResourceNames::kCpu] = any;  // nothing to hand out: one last round
    return out;
  }

  void Register(Session& ssn) {
    ssn.AddQueueOrderFn([this](const QueueInfo& a, const QueueInfo& b) {
      if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
      const int c = cmp(ShareOfQueue(a.id), ShareOfQueue(b.id));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    });

    ssn.AddReclaimableFn([this, &ssn](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      return std::make_pair(Reclaimable(ssn, cands), Vote::kPermit);
    });

    ssn.AddOverusedFn([this](const QueueInfo& q) {
      const QueueAttr* a = Attr(q.id);
      return a != nullptr && LessEqual(a->deserved_ceil, a->allocated);
    });

    auto fits_deserved = [this](const QueueInfo& q, const TaskInfo& t) {
      if (!q.IsOpen()) return false;
      const QueueAttr* a = Attr(q.id);
      if (a == nullptr) return true;  // no job in the queue: nothing to check against
      return LessEqualOnRequested(a->allocated + t.request, a->deserved_floor, t.request);
    };
    ssn.AddAllocatableFn(fits_deserved);
    ssn.AddPreemptiveFn(fits_deserved);

    ssn.AddJobEnqueueableFn([this, &ssn](const JobInfo& job) { return Enqueueable(ssn, job); });

    EventHandler handler;
    handler.allocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, +1); };
    handler.deallocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, -1); };
    ssn.AddEventHandler(std::move(handler));
  }

  mpq_class ShareOfQueue(QueueId id) const {
    const QueueAttr* a = Attr(id);
    return a ? a->share : mpq_class(0);
  }

  // Per candidate, with a running copy of its queue's allocation: a victim iff
  // that allocation is not <= deserved (every dimension, absent = 0); a victim
  // is then subtracted. The check comes before the subtraction, so the last
  // victim may take its queue below deserved.
  std::vector<const TaskInfo*> Reclaimable(const Session& ssn,
                                           const std::vector<const TaskInfo*>& cands) const {
    std::vector<const TaskInfo*> victims;
    std::map<QueueId, Resource> running;
    for (const TaskInfo* c : cands) {
      if (c->job == kNone) continue;
      const QueueId q = ssn.job(c->job).queue;
      const QueueAttr* a = Attr(q);
      if (a == nullptr) continue;
      auto it = running.find(q);
      if (it == running.end()) it = running.emplace(q, a->allocated).first;
      if (!LessEqual(it->second, a->deserved_floor)) {
        it->second -= c->request;
        victims.push_back(c);
      }
    }
    return victims;
  }

  Vote Enqueueable(Session& ssn, const JobInfo& job) {
    const QueueInfo& q = ssn.queue(job.queue);
    if (!q.IsOpen()) return Vote::kReject;
    if (!job.min_resources) return Vote::kPermit;
    QueueAttr& a = attrs_[job.queue];
    const Resource& min = *job.min_resources;
    const Resource needed = min + a.allocated + a.inqueue - a.elastic;
    if (LessEqualOnRequested(needed, a.real_capability, min)) {
      const Resource admitted = share::DeductGated(ssn, job, min);
      a.inqueue += admitted;
      a.admitted_in_pass += admitted;
      return Vote::kPermit;
    }
    ssn.RecordEvent("PodGroup/" + job.key, "Normal", "Unschedulable",
                    "queue resource quota insufficient");
    if (NotingVotes()) {
      NoteVote("PodGroup/" + job.key, "proportion",
               QueueQuotaNote(q.name, min, a.allocated, a.inqueue, a.admitted_in_pass, a.elastic,
                              a.real_capability));
    }
    return Vote::kReject;
  }

  void Move(const Session& ssn, const TaskInfo& t, int sign) {
    if (t.job == kNone) return;
    QueueAttr& a = attrs_[ssn.job(t.job).queue];
    if (!a.present) return;
    if (sign > 0) {
      a.allocated += t.request;
    } else {
      a.allocated -= t.request;
    }
    a.share = DominantShare(a.allocated, a.deserved);
  }

  Resource total_;
  std::vector<QueueAttr> attrs_;  // by QueueId
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewProportionPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new ProportionPlugin());
}

}  // namespace basalt
