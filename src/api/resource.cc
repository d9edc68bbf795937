#include "api/resource.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "api/quantity.h"
#include "api/saturating.h"
#include "api/text.h"

namespace basalt {
namespace {

struct NameTable {
  std::mutex mu;
  std::deque<std::string> names{"cpu", "memory", "pods"};
  std::map<std::string, ResourceId, std::less<>> ids{{"cpu", 0}, {"memory", 1}, {"pods", 2}};
};

NameTable& Table() {
  static NameTable* table = new NameTable();
  return *table;
}

}  // namespace

ResourceId ResourceNames::Intern(std::string_view name) {
  NameTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  ResourceId id = static_cast<ResourceId>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(std::string(name), id);
  return id;
}

bool ResourceNames::Lookup(std::string_view name, ResourceId* id) {
  NameTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it == t.ids.end()) return false;
  *id = it->second;
  return true;
}

const std::string& ResourceNames::Name(ResourceId id) {
  NameTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.names.at(id);  // deque: references stay valid as names are added
}

std::vector<Resource::Scalar>::iterator Resource::Find(ResourceId id) {
  return std::lower_bound(scalars_.begin(), scalars_.end(), id,
                          [](const Scalar& s, ResourceId k) { return s.first < k; });
}
std::vector<Resource::Scalar>::const_iterator Resource::Find(ResourceId id) const {
  return std::lower_bound(scalars_.begin(), scalars_.end(), id,
                          [](const Scalar& s, ResourceId k) { return s.first < k; });
}

int64_t Resource::Get(ResourceId id) const {
  if (id == ResourceNames::kCpu) return milli_cpu_;
  if (id == ResourceNames::kMemory) return memory_;
  auto it = Find(id);
  return (it != scalars_.end() && it->first == id) ? it->second : 0;
}

bool Resource::Has(ResourceId id) const {
  if (id == ResourceNames::kCpu || id == ResourceNames::kMemory) return true;
  auto it = Find(id);
  return it != scalars_.end() && it->first == id;
}

void Resource::Set(ResourceId id, int64_t value) {
  if (id == ResourceNames::kCpu) {
    milli_cpu_ = value;
    return;
  }
  if (id == ResourceNames::kMemory) {
    memory_ = value;
    return;
  }
  auto it = Find(id);
  if (it != scalars_.end() && it->first == id) {
    it->second = value;
  } else {
    scalars_.insert(it, {id, value});
  }
}

void Resource::Erase(ResourceId id) {
  if (id == ResourceNames::kCpu) {
    milli_cpu_ = 0;
    return;
  }
  if (id == ResourceNames::kMemory) {
    memory_ = 0;
    return;
  }
  auto it = Find(id);
  if (it != scalars_.end() && it->first == id) scalars_.erase(it);
}

// Merges `o` into this with `op` over the union of scalar dimensions.
template <typename Op>
static void MergeInto(std::vector<Resource::Scalar>& mine,
                      const std::vector<Resource::Scalar>& other, Op op) {
  if (other.empty()) return;
  // Fast path: identical dimension lists (the common case for tasks of a cluster).
  if (mine.size() == other.size()) {
    bool same = true;
    for (size_t i = 0; i < mine.size(); ++i) {
      if (mine[i].first != other[i].first) {
        same = false;
        break;
      }
    }
    if (same) {
      for (size_t i = 0; i < mine.size(); ++i) mine[i].second = op(mine[i].second, other[i].second);
      return;
    }
  }
  std::vector<Resource::Scalar> out;
  out.reserve(mine.size() + other.size());
  size_t i = 0, j = 0;
  while (i < mine.size() || j < other.size()) {
    if (j == other.size() || (i < mine.size() && mine[i].first < other[j].first)) {
      out.push_back(mine[i++]);
    } else if (i == mine.size() || other[j].first < mine[i].first) {
      out.push_back({other[j].first, op(0, other[j].second)});
      ++j;
    } else {
      out.push_back({mine[i].first, op(mine[i].second, other[j].second)});
      ++i, ++j;
    }
  }
  mine.swap(out);
}

Resource& Resource::operator+=(const Resource& o) {
  milli_cpu_ = SatAdd(milli_cpu_, o.milli_cpu_);
  memory_ = SatAdd(memory_, o.memory_);
  MergeInto(scalars_, o.scalars_, [](int64_t a, int64_t b) { return SatAdd(a, b); });
  return *this;
}

Resource& Resource::operator-=(const Resource& o) {
  milli_cpu_ = SatSub(milli_cpu_, o.milli_cpu_);
  memory_ = SatSub(memory_, o.memory_);
  MergeInto(scalars_, o.scalars_, [](int64_t a, int64_t b) { return SatSub(a, b); });
  return *this;
}

Resource Resource::Scaled(double factor) const {
  Resource r = *this;
  auto scale = [factor](int64_t v) -> int64_t {
    // Factors come from decimal text (1.2) that binary floating point cannot hold
    // exactly: 10000 * 1.2 is 11999.99...; a relative nudge of 1e-9 before the
    // floor gives the decimal answer (12000) without rounding real fractions up.
    long double prod = static_cast<long double>(v) * factor;
    long double x = std::floor(prod + std::fabs(prod) * 1e-9L);
    if (std::isnan(x)) return 0;
    // 2^63 is exactly representable; converting anything at or beyond it is UB.
    constexpr long double kLimit = 9223372036854775808.0L;
    if (x >= kLimit) return std::numeric_limits<int64_t>::max();
    if (x < -kLimit) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(x);
  };
  r.milli_cpu_ = scale(r.milli_cpu_);
  r.memory_ = scale(r.memory_);
  for (auto& s : r.scalars_) s.second = scale(s.second);
  return r;
}

bool Resource::IsEmptyIgnoringPods() const {
  if (milli_cpu_ > 0 || memory_ > 0) return false;
  for (const auto& s : scalars_) {
    if (s.first != ResourceNames::kPods && s.second > 0) return false;
  }
  return true;
}

bool Resource::IsZero() const {
  if (milli_cpu_ != 0 || memory_ != 0) return false;
  for (const auto& s : scalars_) {
    if (s.second != 0) return false;
  }
  return true;
}

bool LessEqual(const Resource& a, const Resource& b) {
  if (a.milli_cpu_ > b.milli_cpu_ || a.memory_ > b.memory_) return false;
  size_t i = 0, j = 0;
  const auto& x = a.scalars_;
  const auto& y = b.scalars_;
  while (i < x.size() || j < y.size()) {
    if (j == y.size() || (i < x.size() && x[i].first < y[j].first)) {
      if (x[i].second > 0) return false;  // absent in b = 0
      ++i;
    } else if (i == x.size() || y[j].first < x[i].first) {
      ++j;  // a scalar `a` does not name is not compared, even when `b` is negative there
    } else {
      if (x[i].second > y[j].second) return false;
      ++i, ++j;
    }
  }
  return true;
}

bool LessEqualUnlimited(const Resource& a, const Resource& b) {
  if (a.milli_cpu_ > b.milli_cpu_ || a.memory_ > b.memory_) return false;
  size_t i = 0, j = 0;
  const auto& x = a.scalars_;
  const auto& y = b.scalars_;
  while (i < x.size() || j < y.size()) {
    if (j == y.size() || (i < x.size() && x[i].first < y[j].first)) {
      ++i;  // absent in b: unlimited
    } else if (i == x.size() || y[j].first < x[i].first) {
      return false;  // absent in a: unlimited on the left
    } else {
      if (x[i].second > y[j].second) return false;
      ++i, ++j;
    }
  }
  return true;
}

bool LessEqualOnRequested(const Resource& a, const Resource& b, const Resource& request) {
  if (request.milli_cpu_ > 0 && a.milli_cpu_ > b.milli_cpu_) return false;
  if (request.memory_ > 0 && a.memory_ > b.memory_) return false;
  for (const auto& [id, v] : request.scalars_) {
    if (id == ResourceNames::kPods || v <= 0) continue;
    if (a.Get(id) > b.Get(id)) return false;
  }
  return true;
}

bool LessEqualAnyUnlimited(const Resource& a, const Resource& b) {
  if (a.milli_cpu_ <= b.milli_cpu_ || a.memory_ <= b.memory_) return true;
  for (const auto& [id, v] : a.scalars_) {
    if (!b.Has(id) || v <= b.Get(id)) return true;
  }
  // A scalar only `b` names is unlimited on the left: never <=.
  return false;
}

Resource ExceededPart(const Resource& a, const Resource& b) {
  Resource r;
  r.milli_cpu_ = std::max<int64_t>(SatSub(a.milli_cpu_, b.milli_cpu_), 0);
  r.memory_ = std::max<int64_t>(SatSub(a.memory_, b.memory_), 0);
  for (const auto& [id, v] : a.scalars_) {
    int64_t d = SatSub(v, b.Get(id));
    if (d > 0) r.scalars_.push_back({id, d});  // sorted: `a.scalars_` is
  }
  return r;
}

Resource MinUnlimited(const Resource& a, const Resource& b) {
  Resource r = a;
  r.milli_cpu_ = std::min(a.milli_cpu_, b.milli_cpu_);
  r.memory_ = std::min(a.memory_, b.memory_);
  for (auto& [id, v] : r.scalars_) {
    if (b.Has(id)) v = std::min(v, b.Get(id));
  }
  return r;
}

Resource MinZero(const Resource& a, const Resource& b) {
  Resource r = a;
  r.milli_cpu_ = std::min(a.milli_cpu_, b.milli_cpu_);
  r.memory_ = std::min(a.memory_, b.memory_);
  for (auto& [id, v] : r.scalars_) v = b.Has(id) ? std::min(v, b.Get(id)) : 0;
  return r;
}

Resource Max(const Resource& a, const Resource& b) {
  Resource r = a;
  r.milli_cpu_ = std::max(a.milli_cpu_, b.milli_cpu_);
  r.memory_ = std::max(a.memory_, b.memory_);
  for (const auto& [id, v] : b.scalars_) {
    if (!r.Has(id) || r.Get(id) < v) r.Set(id, v);
  }
  return r;
}

Resource Resource::ClampedAtZero() const {
  Resource r = *this;
  r.milli_cpu_ = std::max<int64_t>(r.milli_cpu_, 0);
  r.memory_ = std::max<int64_t>(r.memory_, 0);
  for (auto& s : r.scalars_) s.second = std::max<int64_t>(s.second, 0);
  return r;
}

std::string FormatDimension(ResourceId id, int64_t v) {
  if (id == ResourceNames::kMemory) return FormatBinaryBytes(v);
  if (id == ResourceNames::kPods) return std::to_string(v);
  return FormatMilliDecimal(v);
}

std::string Resource::ToString() const {
  std::ostringstream os;
  os << "cpu " << FormatDimension(ResourceNames::kCpu, milli_cpu_) << ", memory "
     << FormatDimension(ResourceNames::kMemory, memory_);
  for (const auto& [id, v] : scalars_)
    os << ", " << ResourceNames::Name(id) << " " << FormatDimension(id, v);
  return os.str();
}

Result<Resource> Resource::Parse(std::string_view text) {
  Resource r;
  std::set<std::string, std::less<>> seen;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item =
        Trim(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos));
    pos = comma == std::string_view::npos ? text.size() : comma + 1;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument("resource item \"" + std::string(item) +
                                     "\" lacks '=' (want name=quantity)");
    }
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view qty = Trim(item.substr(eq + 1));
    if (name.empty())
      return Status::InvalidArgument("resource item \"" + std::string(item) + "\" has no name");
    if (!seen.emplace(name).second) {
      return Status::InvalidArgument("resource \"" + std::string(name) + "\" given twice");
    }
    ResourceId id = ResourceNames::Intern(name);
    Result<int64_t> v = id == ResourceNames::kMemory || id == ResourceNames::kPods
                            ? ParseQuantityUnits(qty)
                            : ParseQuantityMilli(qty);
    if (!v.ok()) return v.status().WithContext(name);
    if (*v > kMaxResourceValue || *v < -kMaxResourceValue) {
      return Status::InvalidArgument(std::string(name) + ": quantity \"" + std::string(qty) +
                                     "\" is too large (the limit is " +
                                     FormatDimension(id, kMaxResourceValue) + ")");
    }
    r.Set(id, *v);
  }
  return r;
}

}  // namespace basalt
