// ExactResource: a resource vector of rationals (GMP's mpq_class), for the
// water-filling of proportion, whose hand-outs `remaining * weight / total`
// are fractions of a stored unit. Keeping them exact makes the deserved share
// the arithmetic result: rounding each round's hand-out down would lose up to
// one unit per queue and round, and the losses add up (a queue owed 3 cpu
// would stop at 2998m).
//
// Presence follows `Resource`: cpu and memory are always present, a scalar is
// present or absent, and each operation below treats absence as the
// `Resource` function of the same name does.
#pragma once

#include <gmpxx.h>

#include <map>

#include "api/resource.h"

namespace basalt {

class ExactResource {
 public:
  ExactResource();
  explicit ExactResource(const Resource& r);

  // The value of dimension `id`; 0 when absent.
  mpq_class Get(ResourceId id) const;
  const std::map<ResourceId, mpq_class>& values() const { return values_; }

  // Adds `v` to dimension `id` (absent becomes present).
  void Add(ResourceId id, const mpq_class& v) { values_[id] += v; }
  ExactResource& operator+=(const ExactResource& o);
  // Per dimension min with `cap`; a scalar `cap` does not have is unlimited (MinUnlimited).
  void MinUnlimited(const Resource& cap);
  // Per dimension min with `b`; a scalar `b` does not have becomes 0 (MinZero).
  void MinZero(const Resource& b);
  // Per dimension max with `b` over the union of dimensions (Max).
  void Max(const Resource& b);

  // Every dimension of `a` <= this, absent counting as 0 (LessEqual(a, this)).
  bool Covers(const Resource& a) const;
  // Every dimension equal, absent counting as 0.
  bool SameValues(const ExactResource& o) const;
  // True when no dimension is positive.
  bool NothingPositive() const;

  // Per dimension max(a - b, 0); only the scalars of `a` that exceed `b` are
  // present in the result (ExceededPart).
  friend ExactResource ExceededPart(const ExactResource& a, const ExactResource& b);
  // Adds the positive part of `now - before` to `*inc` and the negative part to
  // `*dec`, per dimension of either (Volcano's Resource.Diff).
  friend void AddDiff(const ExactResource& now, const ExactResource& before, ExactResource* inc,
                      ExactResource* dec);

  // Rounded per dimension to a whole stored unit (same presence), saturated at
  // the int64 range: Floor for "x <= value" tests of whole values, Ceil for
  // "value <= x".
  Resource Floor() const;
  Resource Ceil() const;

 private:
  std::map<ResourceId, mpq_class> values_;  // always has cpu and memory
};

// Volcano's dominant share, exact: the largest `used / base` over the
// dimensions where `base` is positive; 0 when none qualifies.
mpq_class DominantShare(const Resource& used, const ExactResource& base);

}  // namespace basalt
