#include "api/subgroup.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "api/decode_fields.h"
#include "api/hypernode.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

// A Kubernetes LabelSelector: matchLabels and matchExpressions (In, NotIn,
// Exists, DoesNotExist), checked as the API server's validation does.
Status DecodeLabelSelector(const YAML::Node& n, const std::string& path, SubGroupPolicy* p) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  p->has_label_selector = true;
  BASALT_RETURN_IF_ERROR(
      ReadStringMap(n["matchLabels"], Join(path, "matchLabels"), &p->match_labels));
  const std::string lpath = Join(path, "matchExpressions");
  YAML::Node list = n["matchExpressions"];
  BASALT_RETURN_IF_ERROR(ExpectList(list, lpath));
  if (!Present(list)) return Status::Ok();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string rpath = Index(lpath, i);
    BASALT_RETURN_IF_ERROR(ExpectMap(list[i], rpath));
    NodeSelectorRequirement req;
    BASALT_RETURN_IF_ERROR(ReadString(list[i], "key", rpath, &req.key));
    BASALT_RETURN_IF_ERROR(ReadString(list[i], "operator", rpath, &req.op));
    if (req.key.empty()) return FieldError(Join(rpath, "key"), "missing");
    BASALT_ASSIGN_OR_RETURN(req.values, ReadStringList(list[i]["values"], Join(rpath, "values")));
    if (req.op == "In" || req.op == "NotIn") {
      if (req.values.empty())
        return FieldError(Join(rpath, "values"), "must be non-empty for In and NotIn");
    } else if (req.op == "Exists" || req.op == "DoesNotExist") {
      if (!req.values.empty())
        return FieldError(Join(rpath, "values"), "must be empty for Exists and DoesNotExist");
    } else {
      return FieldError(Join(rpath, "operator"), "unknown operator \"" + req.op +
                                                     "\" (want In, NotIn, Exists or DoesNotExist)");
    }
    p->match_expressions.push_back(std::move(req));
  }
  return Status::Ok();
}

Status DecodeOne(const YAML::Node& n, const std::string& path, SubGroupPolicy* p) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  BASALT_RETURN_IF_ERROR(ReadString(n, "name", path, &p->name));
  if (Present(n["subGroupSize"])) {
    int32_t size = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(n, "subGroupSize", path, &size, 1, INT32_MAX));
    p->sub_group_size = size;
  }
  if (Present(n["minSubGroups"])) {
    int32_t min = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(n, "minSubGroups", path, &min, 0, INT32_MAX));
    p->min_sub_groups = min;
  }
  BASALT_RETURN_IF_ERROR(DecodeNetworkTopology(n["networkTopology"], Join(path, "networkTopology"),
                                               &p->network_topology));
  BASALT_RETURN_IF_ERROR(DecodeLabelSelector(n["labelSelector"], Join(path, "labelSelector"), p));
  const std::string kpath = Join(path, "matchLabelKeys");
  BASALT_ASSIGN_OR_RETURN(p->match_label_keys, ReadStringList(n["matchLabelKeys"], kpath));
  std::set<std::string> seen;
  for (size_t i = 0; i < p->match_label_keys.size(); ++i) {
    const std::string& key = p->match_label_keys[i];
    if (key.empty()) return FieldError(Index(kpath, i), "missing");
    if (!seen.insert(key).second)
      return FieldError(Index(kpath, i), "duplicated label key \"" + key + "\"");
  }
  return Status::Ok();
}

bool RequirementHolds(const NodeSelectorRequirement& r,
                      const std::map<std::string, std::string>& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  auto listed = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") return listed();
  if (r.op == "NotIn") return !listed();
  if (r.op == "Exists") return has;
  return !has;  // DoesNotExist
}

bool SelectorMatches(const SubGroupPolicy& p, const std::map<std::string, std::string>& labels) {
  if (!p.has_label_selector) return true;
  for (const auto& [k, v] : p.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const NodeSelectorRequirement& r : p.match_expressions) {
    if (!RequirementHolds(r, labels)) return false;
  }
  return true;
}

}  // namespace

Status DecodeSubGroupPolicies(const YAML::Node& node, const std::string& path,
                              std::vector<SubGroupPolicy>* out) {
  BASALT_RETURN_IF_ERROR(ExpectList(node, path));
  if (!Present(node)) return Status::Ok();
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    SubGroupPolicy p;
    const std::string ipath = Index(path, i);
    BASALT_RETURN_IF_ERROR(DecodeOne(node[i], ipath, &p));
    if (!p.name.empty() && !names.insert(p.name).second)
      return FieldError(Join(ipath, "name"), "duplicated policy name \"" + p.name + "\"");
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

Status DecodePartitionPolicy(const YAML::Node& node, const std::string& path,
                             std::optional<PartitionPolicy>* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(node, path));
  if (!Present(node)) return Status::Ok();
  PartitionPolicy p;
  for (auto [key, field] :
       {std::pair{"totalPartitions", &p.total_partitions}, {"partitionSize", &p.partition_size}}) {
    if (!Present(node[key])) return FieldError(Join(path, key), "missing");
    BASALT_RETURN_IF_ERROR(ReadInt(node, key, path, field, 1, INT32_MAX));
  }
  BASALT_RETURN_IF_ERROR(ReadInt(node, "minPartitions", path, &p.min_partitions, 0, INT32_MAX));
  if (p.min_partitions > p.total_partitions) {
    return FieldError(Join(path, "minPartitions"), "must not be greater than totalPartitions (" +
                                                       std::to_string(p.min_partitions) + " > " +
                                                       std::to_string(p.total_partitions) + ")");
  }
  BASALT_RETURN_IF_ERROR(DecodeNetworkTopology(node["networkTopology"],
                                               Join(path, "networkTopology"), &p.network_topology));
  *out = std::move(p);
  return Status::Ok();
}

std::optional<SubGroupKey> SubGroupOf(const std::vector<SubGroupPolicy>& policies,
                                      const std::map<std::string, std::string>& labels) {
  for (size_t i = 0; i < policies.size(); ++i) {
    const SubGroupPolicy& p = policies[i];
    // Without matchLabelKeys a policy has no value to name a SubGroup by, and
    // takes no pod (v1.15.1 puts those pods in the job's default SubJob).
    if (p.match_label_keys.empty() || !SelectorMatches(p, labels)) continue;
    SubGroupKey key{static_cast<int32_t>(i), PolicyLabel(policies, static_cast<int32_t>(i))};
    bool complete = true;
    for (const std::string& k : p.match_label_keys) {
      auto it = labels.find(k);
      if (it == labels.end() || it->second.empty()) {
        complete = false;
        break;
      }
      key.name += "-" + it->second;
    }
    if (complete) return key;
  }
  return std::nullopt;
}

SubGroupPolicy PolicyOfPartitions(const std::string& task, const PartitionPolicy& p) {
  SubGroupPolicy out;
  out.name = task;
  out.sub_group_size = p.partition_size;
  out.min_sub_groups = p.min_partitions;
  out.network_topology = p.network_topology;
  out.has_label_selector = true;
  out.match_labels["volcano.sh/task-spec"] = task;
  out.match_label_keys = {kPartitionIdLabel};
  return out;
}

std::string PolicyLabel(const std::vector<SubGroupPolicy>& policies, int32_t index) {
  const std::string& name = policies[index].name;
  return name.empty() ? "subGroupPolicy[" + std::to_string(index) + "]" : name;
}

}  // namespace basalt
