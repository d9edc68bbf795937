#include "plugins/exact_resource.h"

#include <cstdint>

namespace basalt {
namespace {

bool IsFixed(ResourceId id) { return id == ResourceNames::kCpu || id == ResourceNames::kMemory; }

mpq_class FromInt(int64_t v) {
  mpq_class q;
  mpz_set_si(q.get_num_mpz_t(), v);  // `long` is 64 bits on the platforms basalt builds for
  return q;
}

int64_t Saturated(const mpz_class& z) {
  if (z > mpz_class(INT64_MAX)) return INT64_MAX;
  if (z < mpz_class(INT64_MIN)) return INT64_MIN;
  return z.get_si();
}

int64_t FloorOf(const mpq_class& q) {
  mpz_class z;
  mpz_fdiv_q(z.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
  return Saturated(z);
}

int64_t CeilOf(const mpq_class& q) {
  mpz_class z;
  mpz_cdiv_q(z.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
  return Saturated(z);
}

}  // namespace

ExactResource::ExactResource() {
  values_[ResourceNames::kCpu] = 0;
  values_[ResourceNames::kMemory] = 0;
}

ExactResource::ExactResource(const Resource& r) {
  values_[ResourceNames::kCpu] = FromInt(r.milli_cpu());
  values_[ResourceNames::kMemory] = FromInt(r.memory());
  for (const auto& [id, v] : r.scalars()) values_[id] = FromInt(v);
}

mpq_class ExactResource::Get(ResourceId id) const {
  auto it = values_.find(id);
  return it == values_.end() ? mpq_class(0) : it->second;
}

ExactResource& ExactResource::operator+=(const ExactResource& o) {
  for (const auto& [id, v] : o.values_) values_[id] += v;
  return *this;
}

void ExactResource::MinUnlimited(const Resource& cap) {
  for (auto& [id, v] : values_) {
    if (!IsFixed(id) && !cap.Has(id)) continue;
    const mpq_class c = FromInt(cap.Get(id));
    if (c < v) v = c;
  }
}

void ExactResource::MinZero(const Resource& b) {
  for (auto& [id, v] : values_) {
    if (!IsFixed(id) && !b.Has(id)) {
      v = 0;
      continue;
    }
    const mpq_class c = FromInt(b.Get(id));
    if (c < v) v = c;
  }
}

void ExactResource::Max(const Resource& b) {
  auto raise = [&](ResourceId id, int64_t value) {
    const mpq_class c = FromInt(value);
    auto it = values_.find(id);
    if (it == values_.end()) {
      values_.emplace(id, c);
    } else if (it->second < c) {
      it->second = c;
    }
  };
  raise(ResourceNames::kCpu, b.milli_cpu());
  raise(ResourceNames::kMemory, b.memory());
  for (const auto& [id, v] : b.scalars()) raise(id, v);
}

bool ExactResource::Covers(const Resource& a) const {
  if (FromInt(a.milli_cpu()) > Get(ResourceNames::kCpu)) return false;
  if (FromInt(a.memory()) > Get(ResourceNames::kMemory)) return false;
  for (const auto& [id, v] : a.scalars()) {
    if (FromInt(v) > Get(id)) return false;
  }
  for (const auto& [id, v] : values_) {
    if (!IsFixed(id) && !a.Has(id) && v < 0) return false;  // absent in `a` = 0
  }
  return true;
}

bool ExactResource::SameValues(const ExactResource& o) const {
  for (const auto& [id, v] : values_) {
    if (v != o.Get(id)) return false;
  }
  for (const auto& [id, v] : o.values_) {
    if (v != Get(id)) return false;
  }
  return true;
}

bool ExactResource::NothingPositive() const {
  for (const auto& [id, v] : values_) {
    if (v > 0) return false;
  }
  return true;
}

ExactResource ExceededPart(const ExactResource& a, const ExactResource& b) {
  ExactResource r;
  for (const auto& [id, v] : a.values_) {
    mpq_class d = v - b.Get(id);
    if (d > 0) {
      r.values_[id] = d;
    } else if (IsFixed(id)) {
      r.values_[id] = 0;
    }
  }
  return r;
}

void AddDiff(const ExactResource& now, const ExactResource& before, ExactResource* inc,
             ExactResource* dec) {
  auto one = [&](ResourceId id) {
    const mpq_class d = now.Get(id) - before.Get(id);
    if (d > 0) inc->values_[id] += d;
    if (d < 0) dec->values_[id] -= d;
  };
  for (const auto& [id, v] : now.values_) one(id);
  for (const auto& [id, v] : before.values_) {
    if (now.values_.count(id) == 0) one(id);
  }
}

Resource ExactResource::Floor() const {
  Resource r;
  for (const auto& [id, v] : values_) r.Set(id, FloorOf(v));
  return r;
}

Resource ExactResource::Ceil() const {
  Resource r;
  for (const auto& [id, v] : values_) r.Set(id, CeilOf(v));
  return r;
}

mpq_class DominantShare(const Resource& used, const ExactResource& base) {
  mpq_class best = 0;
  for (const auto& [id, b] : base.values()) {
    if (b <= 0) continue;
    mpq_class f = FromInt(used.Get(id)) / b;
    if (f > best) best = f;
  }
  return best;
}

}  // namespace basalt
