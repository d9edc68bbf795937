#include "api/resource_quota.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "api/decode_fields.h"
#include "api/decode_objects.h"
#include "api/quantity.h"
#include "api/saturating.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

Status DecodeQuotaList(const YAML::Node& n, const std::string& field, QuotaList* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, field));
  if (!Present(n)) return Status::Ok();
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string name, KeyText(kv.first, field));
    const std::string path = field + "." + name;
    if (!kv.second.IsScalar())
      return FieldError(path, "expected a quantity, got " + KindOf(kv.second));
    auto milli = ParseQuantityMilli(kv.second.Scalar());
    if (!milli.ok()) return FieldError(path, milli.status().message());
    if (*milli < 0) return FieldError(path, "negative quantity \"" + kv.second.Scalar() + "\"");
    (*out)[name] = *milli;
  }
  return Status::Ok();
}

// Whole units as thousandths, clamped (never reached by decoded quantities).
int64_t UnitsToMilli(int64_t units) {
  constexpr int64_t kMax = INT64_MAX / 1000;
  return units > kMax ? INT64_MAX : units < -kMax ? INT64_MIN : units * 1000;
}

// Whether a quota name counts bytes (printed with binary suffixes).
bool CountsBytes(const std::string& name) {
  for (const char* word : {"memory", "storage", "hugepages-"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

Status DecodeResourceQuota(const YAML::Node& doc, ResourceQuota* out) {
  BASALT_RETURN_IF_ERROR(decode_internal::DecodeMeta(doc, true, &out->meta));
  const YAML::Node spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec))
    BASALT_RETURN_IF_ERROR(DecodeQuotaList(spec["hard"], "spec.hard", &out->spec_hard));
  const YAML::Node status = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(status, "status"));
  if (!Present(status)) return Status::Ok();
  out->has_status = Present(status["hard"]);
  BASALT_RETURN_IF_ERROR(DecodeQuotaList(status["hard"], "status.hard", &out->status_hard));
  return DecodeQuotaList(status["used"], "status.used", &out->status_used);
}

QuotaList QuotaUsageOf(const Resource& request) {
  QuotaList out;
  // A resource the request does not ask for stays absent, as a pod without a
  // memory request has no memory usage: the plugin checks only names present.
  auto both = [&out](const std::string& name, int64_t milli) {
    if (milli == 0) return;
    out[name] = SatAdd(out[name], milli);
    out["requests." + name] = SatAdd(out["requests." + name], milli);
  };
  both("cpu", request.milli_cpu());
  both("memory", UnitsToMilli(request.memory()));
  for (const auto& [id, value] : request.scalars()) {
    if (value == 0) continue;
    if (id == ResourceNames::kPods) {
      out["pods"] = UnitsToMilli(value);
      out["count/pods"] = UnitsToMilli(value);
    } else {
      both(ResourceNames::Name(id), value);  // scalars are stored in thousandths
    }
  }
  return out;
}

void AddQuota(QuotaList* a, const QuotaList& b) {
  for (const auto& [name, v] : b) (*a)[name] = SatAdd((*a)[name], v);
}

std::string FormatQuotaList(const QuotaList& list) {
  std::string out = "map[";
  bool first = true;
  for (const auto& [name, milli] : list) {
    const bool bytes = CountsBytes(name) && milli % 1000 == 0;
    out += (first ? "" : " ") + name + ":" +
           (bytes ? FormatBinaryBytes(milli / 1000) : FormatMilliDecimal(milli));
    first = false;
  }
  return out + "]";
}

}  // namespace basalt
