// Exact share arithmetic and admission bookkeeping shared by the fairness
// plugins (drf, proportion, overcommit).
//
// Volcano computes shares as float64 quotients and compares them with `==`.
// basalt keeps a share as the exact fraction it stands for, so two shares are
// equal exactly when the quotients are; comparisons cross-multiply in 128 bits
// (numerators and denominators are resource values, well below 2^63).
#pragma once

#include <algorithm>
#include <cstdint>

#include "api/resource.h"
#include "framework/session.h"

namespace basalt::share {

// A ratio `num / den` with `den > 0`.
struct Fraction {
  int64_t num = 0;
  int64_t den = 1;

  long double ToLongDouble() const {
    return static_cast<long double>(num) / static_cast<long double>(den);
  }
};

// -1, 0, 1 as a < b, a == b, a > b (exact).
inline int Compare(const Fraction& a, const Fraction& b) {
  const __int128 l = static_cast<__int128>(a.num) * b.den;
  const __int128 r = static_cast<__int128>(b.num) * a.den;
  return l < r ? -1 : (l > r ? 1 : 0);
}
inline bool operator<(const Fraction& a, const Fraction& b) { return Compare(a, b) < 0; }
inline bool operator==(const Fraction& a, const Fraction& b) { return Compare(a, b) == 0; }

// Volcano's dominant share: the largest `used / base` over the dimensions where
// `base` is positive (Resource.ResourceNames() skips the others, so a dimension
// with nothing to share never counts, even when `used` has some of it). 0 when
// no dimension qualifies or every quotient is negative.
inline Fraction DominantShare(const Resource& used, const Resource& base) {
  Fraction best;  // 0/1
  auto consider = [&](int64_t u, int64_t b) {
    if (b <= 0) return;
    Fraction f{u, b};
    if (best < f) best = f;
  };
  consider(used.milli_cpu(), base.milli_cpu());
  consider(used.memory(), base.memory());
  for (const auto& [id, b] : base.scalars()) consider(used.Get(id), b);
  return best;
}

// Number of tasks of `job` in an allocated status (Bound, Binding, Running, Allocated).
inline int32_t AllocatedTaskCount(const JobInfo& job) {
  return job.Count(TaskStatus::kBound) + job.Count(TaskStatus::kBinding) +
         job.Count(TaskStatus::kRunning) + job.Count(TaskStatus::kAllocated);
}

// `res` minus the requests of the job's scheduling-gated tasks, clamped at zero
// per dimension: a gated pod cannot start, so it must not hold queue room
// (Volcano's JobInfo.DeductSchGatedResources).
inline Resource DeductGated(const Session& ssn, const JobInfo& job, const Resource& res) {
  Resource gated;
  bool any = false;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.gated) {
      gated += t.request;
      any = true;
    }
  }
  return any ? ExceededPart(res, gated) : res;
}

// What a Running job with minResources still reserves: the part of its
// minResources not covered by its allocation (Volcano's util.GetInqueueResource).
//
// NOTE: reproduces an upstream unit mix-up on purpose. For scalar resources
// other than `pods` Volcano reads the minResources quantity in whole units
// (`Quantity.Value()`, rounded up) but the allocation in milli-units, so:
//   * a scalar the job has no allocation of reserves `units` stored milli-units
//     (1 GPU of minResources reserves 0.001 GPU);
//   * a scalar it has some of reserves `units - allocated_milli` when positive
//     (in practice never).
// `pods` (not a scalar resource name for Kubernetes) never reserves anything.
inline Resource RunningReservation(const JobInfo& job) {
  Resource out;
  if (!job.min_resources) return out;
  const Resource& min = *job.min_resources;
  const Resource& alloc = job.allocated;
  out.set_milli_cpu(std::max<int64_t>(min.milli_cpu() - alloc.milli_cpu(), 0));
  out.set_memory(std::max<int64_t>(min.memory() - alloc.memory(), 0));
  for (const auto& [id, milli] : min.scalars()) {
    if (id == ResourceNames::kPods) continue;
    const int64_t units = milli / 1000 + (milli % 1000 > 0 ? 1 : 0);
    if (!alloc.Has(id)) {
      out.Set(id, units);
    } else if (units - alloc.Get(id) > 0) {
      out.Set(id, units - alloc.Get(id));
    }
  }
  return out;
}

}  // namespace basalt::share
