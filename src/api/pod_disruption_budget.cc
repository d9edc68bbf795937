#include "api/pod_disruption_budget.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "api/decode_fields.h"
#include "api/decode_objects.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

bool RequirementHolds(const NodeSelectorRequirement& r,
                      const std::map<std::string, std::string>& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const bool listed =
      has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  if (r.op == "In") return listed;
  if (r.op == "NotIn") return !listed;
  if (r.op == "Exists") return has;
  return !has;  // DoesNotExist (the decoder admits no other operator)
}

Status DecodeRequirement(const YAML::Node& n, const std::string& path,
                         NodeSelectorRequirement* req) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  BASALT_RETURN_IF_ERROR(ReadString(n, "key", path, &req->key));
  BASALT_RETURN_IF_ERROR(ReadString(n, "operator", path, &req->op));
  if (req->key.empty()) return FieldError(Join(path, "key"), "missing");
  BASALT_ASSIGN_OR_RETURN(req->values, ReadStringList(n["values"], Join(path, "values")));
  if (req->op == "In" || req->op == "NotIn") {
    if (req->values.empty())
      return FieldError(Join(path, "values"), "must be non-empty for In and NotIn");
  } else if (req->op == "Exists" || req->op == "DoesNotExist") {
    if (!req->values.empty())
      return FieldError(Join(path, "values"), "must be empty for Exists and DoesNotExist");
  } else {
    return FieldError(Join(path, "operator"), "unknown operator \"" + req->op +
                                                  "\" (want In, NotIn, Exists or DoesNotExist)");
  }
  return Status::Ok();
}

Status DecodeSelector(const YAML::Node& n, const std::string& path, PodLabelSelector* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  BASALT_RETURN_IF_ERROR(
      ReadStringMap(n["matchLabels"], Join(path, "matchLabels"), &out->match_labels));
  const std::string lpath = Join(path, "matchExpressions");
  const YAML::Node list = n["matchExpressions"];
  BASALT_RETURN_IF_ERROR(ExpectList(list, lpath));
  if (!Present(list)) return Status::Ok();
  for (size_t i = 0; i < list.size(); ++i) {
    NodeSelectorRequirement req;
    BASALT_RETURN_IF_ERROR(DecodeRequirement(list[i], Index(lpath, i), &req));
    out->match_expressions.push_back(std::move(req));
  }
  return Status::Ok();
}

// An IntOrString: a non-negative integer, or "N%" with N in [0, 100].
Status DecodeIntOrPercent(const YAML::Node& n, const std::string& field,
                          std::optional<IntOrPercent>* out) {
  if (!Present(n)) return Status::Ok();
  if (!n.IsScalar())
    return FieldError(field, "expected an integer or a percentage, got " + KindOf(n));
  const std::string text = n.Scalar();
  IntOrPercent v;
  v.percent = !text.empty() && text.back() == '%';
  const std::string digits = v.percent ? text.substr(0, text.size() - 1) : text;
  auto parsed = ParseIntField(digits, field, 0, v.percent ? 100 : INT32_MAX);
  if (!parsed.ok()) {
    return FieldError(
        field,
        "expected a non-negative integer or a percentage such as \"50%\", got \"" + text + "\"");
  }
  v.value = static_cast<int32_t>(*parsed);
  *out = v;
  return Status::Ok();
}

Status DecodeStatus(const YAML::Node& status, PodDisruptionBudget* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(status, "status"));
  if (!Present(status)) return Status::Ok();
  if (Present(status["disruptionsAllowed"])) {
    out->has_status = true;
    BASALT_RETURN_IF_ERROR(
        ReadInt(status, "disruptionsAllowed", "status", &out->disruptions_allowed, 0, INT32_MAX));
  }
  std::map<std::string, std::string> disrupted;  // pod name -> time the eviction was asked
  BASALT_RETURN_IF_ERROR(
      ReadStringMap(status["disruptedPods"], "status.disruptedPods", &disrupted));
  for (const auto& [pod, when] : disrupted) out->disrupted_pods.insert(pod);
  return Status::Ok();
}

}  // namespace

bool PodLabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const NodeSelectorRequirement& r : match_expressions) {
    if (!RequirementHolds(r, labels)) return false;
  }
  return true;
}

int64_t IntOrPercent::Of(int64_t total) const {
  if (!percent) return value;
  return (total * value + 99) / 100;
}

bool PodDisruptionBudget::Selects(const Pod& pod) const {
  if (pod.meta.namespace_ != meta.namespace_) return false;
  if (!selector || selector->Empty()) return false;
  return selector->Matches(pod.meta.labels);
}

Status DecodePodDisruptionBudget(const YAML::Node& doc, PodDisruptionBudget* out) {
  BASALT_RETURN_IF_ERROR(decode_internal::DecodeMeta(doc, true, &out->meta));
  const YAML::Node spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec)) {
    if (Present(spec["selector"])) {
      PodLabelSelector sel;
      BASALT_RETURN_IF_ERROR(DecodeSelector(spec["selector"], "spec.selector", &sel));
      out->selector = std::move(sel);
    }
    BASALT_RETURN_IF_ERROR(
        DecodeIntOrPercent(spec["minAvailable"], "spec.minAvailable", &out->min_available));
    BASALT_RETURN_IF_ERROR(
        DecodeIntOrPercent(spec["maxUnavailable"], "spec.maxUnavailable", &out->max_unavailable));
    if (out->min_available && out->max_unavailable) {
      return FieldError("spec", "minAvailable and maxUnavailable cannot be both set");
    }
  }
  return DecodeStatus(doc["status"], out);
}

int32_t DisruptionsAllowedFromSpec(const PodDisruptionBudget& pdb,
                                   const std::vector<const Pod*>& selected) {
  const int64_t expected = static_cast<int64_t>(selected.size());
  int64_t healthy = 0;
  for (const Pod* pod : selected) {
    if (pod->phase == "Running" && !pod->meta.deleting) ++healthy;
  }
  int64_t desired = 0;
  if (pdb.max_unavailable) {
    desired = std::max<int64_t>(0, expected - pdb.max_unavailable->Of(expected));
  } else if (pdb.min_available) {
    desired = pdb.min_available->Of(expected);
  } else {
    return 0;  // neither: the controller finds no expected count
  }
  const int64_t allowed = healthy - desired;
  if (expected <= 0 || allowed <= 0) return 0;
  return static_cast<int32_t>(std::min<int64_t>(allowed, INT32_MAX));
}

}  // namespace basalt
