// proportion: queues share the cluster by weight (VOLCANO_SEMANTICS §5.5).
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
// float64 and compares with a 0.1-unit epsilon; basalt rounds each hand-out
// down to whole stored units (milli-cpu, bytes, milli-scalars, pods). See
// `ShareOf` for where that can change a decision.
#include <map>
#include <set>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

using share::DominantShare;
using share::Fraction;

struct QueueAttr {
  bool present = false;  // the queue has a job in the snapshot
  int32_t weight = 0;
  Resource guarantee;
  Resource real_capability;
  Resource deserved;
  Resource allocated;
  Resource request;
  Resource inqueue;
  Resource elastic;
  Fraction share;
};

// Every dimension of `a` equals `b`'s, an absent scalar counting as 0. Volcano
// compares these vectors with a deep equality after helpers.Max / ExceededPart
// have dropped zero scalars, which amounts to the same thing.
bool SameValues(const Resource& a, const Resource& b) {
  if (a.milli_cpu() != b.milli_cpu() || a.memory() != b.memory()) return false;
  for (const auto& [id, v] : a.scalars()) {
    if (v != b.Get(id)) return false;
  }
  for (const auto& [id, v] : b.scalars()) {
    if (v != a.Get(id)) return false;
  }
  return true;
}

// True when no dimension is positive (Volcano's IsEmpty: every value < 0.1).
bool NothingLeft(const Resource& r) {
  if (r.milli_cpu() > 0 || r.memory() > 0) return false;
  for (const auto& [id, v] : r.scalars()) {
    if (v > 0) return false;
  }
  return true;
}

// floor(v * weight / total_weight) per dimension: this round's hand-out to a
// queue. Rounding down keeps Σ hand-outs <= remaining, so the water-filling
// never hands out more than the cluster has.
//
// Where this departs from Volcano's float64 deserved d (integer values below):
//  * Allocatable `x <= d` passes in Volcano for x <= floor(d + 0.1) (epsilon);
//    basalt uses floor(d): they differ when d's fraction is >= 0.9 unit.
//  * Overused `d <= allocated` passes in Volcano for allocated >= ceil(d - 0.1);
//    basalt's floor(d) is reached one unit earlier when d's fraction is > 0.1.
// Both need an exact share with a fraction of a milli-cpu / byte / pod, and a
// task size that lands on it.
Resource ShareOf(const Resource& remaining, int64_t weight, int64_t total_weight) {
  auto part = [&](int64_t v) {
    return static_cast<int64_t>(static_cast<__int128>(v) * weight / total_weight);
  };
  Resource r;
  r.set_milli_cpu(part(remaining.milli_cpu()));
  r.set_memory(part(remaining.memory()));
  for (const auto& [id, v] : remaining.scalars()) r.Set(id, part(v));
  return r;
}

// Splits `now - before` into its positive and negative parts and adds them to
// `inc` and `dec` (Volcano's Resource.Diff with the Zero default).
void AddDiff(const Resource& now, const Resource& before, Resource* inc, Resource* dec) {
  auto one = [&](ResourceId id) {
    const int64_t d = now.Get(id) - before.Get(id);
    if (d > 0) inc->Set(id, inc->Get(id) + d);
    if (d < 0) dec->Set(id, dec->Get(id) - d);
  };
  one(ResourceNames::kCpu);
  one(ResourceNames::kMemory);
  std::set<ResourceId> ids;
  for (const auto& [id, v] : now.scalars()) ids.insert(id);
  for (const auto& [id, v] : before.scalars()) ids.insert(id);
  for (ResourceId id : ids) one(id);
}

class ProportionPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "proportion"; }

  void OnSessionOpen(Session& ssn) override {
    BuildAttrs(ssn);
    WaterFill();
    for (QueueAttr& a : attrs_) {
      if (a.present) a.share = DominantShare(a.allocated, a.deserved);
    }
    Register(ssn);
  }

 private:
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

  // Water-filling (VOLCANO_SEMANTICS §5.5): every round hands each unmet queue
  // its weight's part of what is left, capped by realCapability and by its
  // request and raised to its guarantee. A queue is met once its request fits
  // its deserved or its deserved stops moving (it hit a cap). Rounds stop when
  // every queue is met, nothing is left, or nothing changed.
  //
  // Termination: between rounds either a queue becomes met or `remaining`
  // changes; deserved only grows after the first round and `remaining` only
  // shrinks, both in whole units, so the rounds are finite. A queue whose
  // hand-out rounds to zero in every dimension is met (its deserved did not
  // move), which also ends the loop on a sub-unit residue.
  void WaterFill() {
    Resource remaining = total_;
    std::vector<bool> met(attrs_.size(), false);
    while (true) {
      int64_t total_weight = 0;
      for (size_t i = 0; i < attrs_.size(); ++i) {
        if (attrs_[i].present && !met[i]) total_weight += attrs_[i].weight;
      }
      if (total_weight == 0) break;  // every queue met, or only weight-0 queues left
      const Resource before = remaining;
      Resource increased, decreased;
      for (size_t i = 0; i < attrs_.size(); ++i) {
        QueueAttr& a = attrs_[i];
        if (!a.present || met[i]) continue;
        const Resource old = a.deserved;
        a.deserved += ShareOf(remaining, a.weight, total_weight);
        a.deserved = MinUnlimited(a.deserved, a.real_capability);
        a.deserved = MinZero(a.deserved, a.request);
        a.deserved = Max(a.deserved, a.guarantee);
        if (LessEqual(a.request, a.deserved) || SameValues(a.deserved, old)) met[i] = true;
        AddDiff(a.deserved, old, &increased, &decreased);
      }
      remaining = ExceededPart(remaining + decreased, increased);
      if (NothingLeft(remaining) || SameValues(remaining, before)) break;
    }
  }

  void Register(Session& ssn) {
    ssn.AddQueueOrderFn([this](const QueueInfo& a, const QueueInfo& b) {
      if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
      return share::Compare(ShareOfQueue(a.id), ShareOfQueue(b.id));
    });

    ssn.AddReclaimableFn([this, &ssn](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      return std::make_pair(Reclaimable(ssn, cands), Vote::kPermit);
    });

    ssn.AddOverusedFn([this](const QueueInfo& q) {
      const QueueAttr* a = Attr(q.id);
      return a != nullptr && LessEqual(a->deserved, a->allocated);
    });

    auto fits_deserved = [this](const QueueInfo& q, const TaskInfo& t) {
      if (!q.IsOpen()) return false;
      const QueueAttr* a = Attr(q.id);
      if (a == nullptr) return true;  // no job in the queue: nothing to check against
      return LessEqualOnRequested(a->allocated + t.request, a->deserved, t.request);
    };
    ssn.AddAllocatableFn(fits_deserved);
    ssn.AddPreemptiveFn(fits_deserved);

    ssn.AddJobEnqueueableFn([this, &ssn](const JobInfo& job) { return Enqueueable(ssn, job); });

    EventHandler handler;
    handler.allocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, +1); };
    handler.deallocate = [this, &ssn](const TaskInfo& t) { Move(ssn, t, -1); };
    ssn.AddEventHandler(std::move(handler));
  }

  Fraction ShareOfQueue(QueueId id) const {
    const QueueAttr* a = Attr(id);
    return a ? a->share : Fraction();
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
      if (!LessEqual(it->second, a->deserved)) {
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
      a.inqueue += share::DeductGated(ssn, job, min);
      return Vote::kPermit;
    }
    ssn.RecordEvent("PodGroup/" + job.key, "Normal", "Unschedulable",
                    "queue resource quota insufficient");
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
