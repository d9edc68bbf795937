// Resource: an exact, integer resource vector.
//
// Units (as Volcano stores them, but exact):
//   * cpu: milli-CPU;  * memory: bytes;
//   * `pods`: a count (units);  * every other scalar (nvidia.com/gpu, ...): milli-units.
// cpu and memory are always present (0 when unset). A scalar is either present
// (possibly with value 0) or absent; the difference matters for the two ways
// Volcano reads a missing dimension, which are two differently named functions
// below (`LessEqual` treats absent as zero, `LessEqualUnlimited` as infinity).
// Values are signed so that an over-committed node ("out of sync") is
// representable instead of crashing; invariant checks report negatives.
//
// Overflow policy (user input reaches these sums, so overflow must not be UB):
//  1. Decoding rejects any single quantity whose stored value exceeds
//     `kMaxResourceValue` (2^62: 4Ei of memory, ~4.6e15 CPUs), with a message
//     naming the field. Realistic sums of such values stay far below 2^63.
//  2. Arithmetic saturates at INT64_MAX / INT64_MIN instead of wrapping, so even
//     an absurd input (three nodes with 4Ei of memory each) degrades to "huge"
//     rather than to a negative capacity. A saturated value is not exact; it only
//     compares as larger (or smaller) than anything real.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/status.h"

namespace basalt {

using ResourceId = uint32_t;

// The largest stored value (milli-units, bytes or a count) a decoded quantity may
// have; see the overflow policy above.
inline constexpr int64_t kMaxResourceValue = int64_t{1} << 62;

// Interned resource names. Ids 0..2 are fixed; others are assigned on first use.
// Thread-safe.
class ResourceNames {
 public:
  static constexpr ResourceId kCpu = 0;
  static constexpr ResourceId kMemory = 1;
  static constexpr ResourceId kPods = 2;
  static ResourceId Intern(std::string_view name);
  // Returns false when the name was never interned.
  static bool Lookup(std::string_view name, ResourceId* id);
  static const std::string& Name(ResourceId id);
};

class Resource {
 public:
  using Scalar = std::pair<ResourceId, int64_t>;

  Resource() = default;

  // Parses "cpu=2,memory=4Gi,nvidia.com/gpu=1" (quantities in Kubernetes syntax;
  // spaces around items are ignored; "" is the empty resource). cpu and scalars are
  // stored in milli-units, memory and `pods` in units. Errors: an item without '=',
  // an empty name, a name given twice, a bad quantity, a magnitude above
  // `kMaxResourceValue`. Negative values are accepted (tests use them for deltas).
  static Result<Resource> Parse(std::string_view text);

  int64_t milli_cpu() const { return milli_cpu_; }
  int64_t memory() const { return memory_; }
  void set_milli_cpu(int64_t v) { milli_cpu_ = v; }
  void set_memory(int64_t v) { memory_ = v; }

  // Stored value for any dimension (absent scalar -> 0).
  int64_t Get(ResourceId id) const;
  bool Has(ResourceId id) const;  // cpu and memory: always true
  void Set(ResourceId id, int64_t value);
  void Erase(ResourceId id);
  const std::vector<Scalar>& scalars() const { return scalars_; }

  // Adds per dimension; scalars of `o` absent here become present. Saturates.
  Resource& operator+=(const Resource& o);
  // Subtracts per dimension; scalars of `o` absent here become present (negative if o > 0).
  // Saturates.
  Resource& operator-=(const Resource& o);
  friend Resource operator+(Resource a, const Resource& b) { return a += b; }
  friend Resource operator-(Resource a, const Resource& b) { return a -= b; }
  bool operator==(const Resource& o) const = default;

  // Multiplies every dimension by `factor`, rounding down (overcommit factors).
  // Saturates at the int64 range; a NaN factor yields zeros. Presence of scalars
  // is kept.
  Resource Scaled(double factor) const;

  // True when no dimension other than `pods` is positive (Volcano's BestEffort test).
  bool IsEmptyIgnoringPods() const;
  // True when every dimension is zero or absent.
  bool IsZero() const;

  // ---- comparisons ----
  // cpu, memory and each scalar `a` names <= `b` (absent in b = 0); b-only scalars: not compared.
  friend bool LessEqual(const Resource& a, const Resource& b);
  // Every dimension of `a` <= `b`, an absent scalar counting as unlimited on either side:
  // absent in `b` passes; present in `b` but absent in `a` fails (Volcano's Infinity mode).
  friend bool LessEqualUnlimited(const Resource& a, const Resource& b);
  // Only the dimensions `request` has with a positive value, `pods` skipped; absent = 0.
  // Used by queue quota checks: a cpu-only pod is never blocked by a queue's memory.
  friend bool LessEqualOnRequested(const Resource& a, const Resource& b, const Resource& request);
  // At least one dimension of `a` <= `b` (absent in b = unlimited).
  friend bool LessEqualAnyUnlimited(const Resource& a, const Resource& b);

  // Per-dimension max(a - b, 0) (absent in b = 0). Only the scalars of `a` that
  // exceed `b` are present in the result, as in Volcano (a scalar that does not
  // exceed is absent, not 0 — which matters to a later `LessEqualUnlimited`).
  friend Resource ExceededPart(const Resource& a, const Resource& b);
  // Per-dimension minimum. Scalars absent in `b` are kept as in `a` (b unlimited there).
  friend Resource MinUnlimited(const Resource& a, const Resource& b);
  // Per-dimension minimum. Scalars absent in `b` become 0 (present) in the result.
  // Scalars only `b` has stay absent (Volcano's MinDimensionResource).
  friend Resource MinZero(const Resource& a, const Resource& b);
  // Per-dimension maximum over the union of dimensions.
  friend Resource Max(const Resource& a, const Resource& b);
  // Per-dimension max(v, 0).
  Resource ClampedAtZero() const;

  // "cpu 2, memory 1Gi, pods 1, nvidia.com/gpu 500m": cpu and memory always, then
  // the present scalars by id, each in `FormatDimension` form (for messages and gtest).
  std::string ToString() const;
  friend std::ostream& operator<<(std::ostream& os, const Resource& r) {
    return os << r.ToString();
  }

 private:
  std::vector<Scalar>::iterator Find(ResourceId id);
  std::vector<Scalar>::const_iterator Find(ResourceId id) const;

  int64_t milli_cpu_ = 0;
  int64_t memory_ = 0;
  std::vector<Scalar> scalars_;  // sorted by id; includes `pods`
};

// Converts a stored value of dimension `id` into a canonical Kubernetes quantity
// string: cpu "500m"/"3", memory "1Gi"/"1500", scalars "2"/"500m", pods "3".
std::string FormatDimension(ResourceId id, int64_t stored_value);

}  // namespace basalt
