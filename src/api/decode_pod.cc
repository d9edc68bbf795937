// The rules for the objects a large cluster is made of, Pods and Nodes (with
// the object metadata and resource lists they share with other kinds), written
// once over any node with yaml-cpp's interface and instantiated twice: for
// `YAML::Node` (manifests, decode.cc) and for `JsonField` (objects listed and
// watched from the API server, decode_json.cc), so both mean the same.
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/decode.h"
#include "api/decode_fields.h"
#include "api/decode_objects.h"
#include "api/json_field.h"
#include "api/numatopology.h"
#include "api/quantity.h"
#include "api/text.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

// ---- resource names (Volcano's `NewResource` filter, see decode.h) ----

enum class NameClass { kTracked, kIgnored, kInvalid };

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// RFC 1123 subdomain: dot-separated labels of [a-z0-9-], each starting and ending
// alphanumeric; at most 253 characters.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!((c >= 'a' && c <= 'z') || IsDigit(c) || c == '-')) return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The name part of a qualified name: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63.
bool IsQualifiedNamePart(std::string_view s) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c);
  };
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

NameClass ClassifyResourceName(std::string_view name) {
  if (name == "cpu" || name == "memory" || name == "pods") return NameClass::kTracked;
  if (StartsWith(name, "hugepages-") || StartsWith(name, "attachable-volumes-"))
    return NameClass::kTracked;
  // Quota names (ResourceQuota and Volcano queues may carry them): not resources a pod uses.
  if (StartsWith(name, "requests.") || StartsWith(name, "limits.") || StartsWith(name, "count/")) {
    return NameClass::kIgnored;
  }
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    static const std::set<std::string, std::less<>> kUntracked = {"ephemeral-storage",
                                                                  "storage",
                                                                  "services",
                                                                  "services.nodeports",
                                                                  "services.loadbalancers",
                                                                  "secrets",
                                                                  "configmaps",
                                                                  "resourcequotas",
                                                                  "replicationcontrollers",
                                                                  "persistentvolumeclaims"};
    return kUntracked.count(name) ? NameClass::kIgnored : NameClass::kInvalid;
  }
  // "domain/name": an extended resource, or a "*kubernetes.io/*" native one.
  if (!IsDnsSubdomain(name.substr(0, slash)) || !IsQualifiedNamePart(name.substr(slash + 1))) {
    return NameClass::kInvalid;
  }
  return NameClass::kTracked;
}

// The resource list at `field` (decode.h, DecodeResourceList).
template <typename NodeT>
Result<Resource> DecodeResources(const NodeT& node, const std::string& field) {
  Resource r;
  if (!Present(node)) return r;
  BASALT_RETURN_IF_ERROR(ExpectMap(node, field));
  for (const auto& kv : node) {
    BASALT_ASSIGN_OR_RETURN(std::string name, KeyText(kv.first, field));
    std::string path = field + "." + name;
    switch (ClassifyResourceName(name)) {
      case NameClass::kTracked:
        break;
      case NameClass::kIgnored:
        continue;  // Volcano does not track it either
      case NameClass::kInvalid:
        return FieldError(path,
                          "unknown resource name \"" + name +
                              "\" (extended resources need a domain prefix, e.g. nvidia.com/gpu)");
    }
    if (!kv.second.IsScalar())
      return FieldError(path, "expected a quantity, got " + KindOf(kv.second));
    const std::string& text = kv.second.Scalar();
    ResourceId id = ResourceNames::Intern(name);
    bool units = id == ResourceNames::kMemory || id == ResourceNames::kPods;
    Result<int64_t> v = units ? ParseQuantityUnits(text) : ParseQuantityMilli(text);
    if (!v.ok()) return v.status().WithContext(path);
    if (*v < 0) return FieldError(path, "negative quantity \"" + text + "\"");
    if (*v > kMaxResourceValue) {
      return FieldError(path, "quantity \"" + text + "\" is too large (the limit is " +
                                  FormatDimension(id, kMaxResourceValue) + ")");
    }
    r.Set(id, *v);
  }
  return r;
}

}  // namespace

namespace decode_internal {

template <typename NodeT>
Status DecodeMeta(const NodeT& doc, bool namespaced, ObjectMeta* meta) {
  auto m = doc["metadata"];
  if (!Present(m)) return FieldError("metadata", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(m, "metadata"));
  BASALT_RETURN_IF_ERROR(ReadString(m, "name", "metadata", &meta->name));
  if (meta->name.empty()) return FieldError("metadata.name", "missing");
  if (namespaced) {
    BASALT_RETURN_IF_ERROR(ReadString(m, "namespace", "metadata", &meta->namespace_));
    if (meta->namespace_.empty()) meta->namespace_ = "default";
  }
  BASALT_RETURN_IF_ERROR(ReadString(m, "uid", "metadata", &meta->uid));
  BASALT_RETURN_IF_ERROR(ReadStringMap(m["labels"], "metadata.labels", &meta->labels));
  BASALT_RETURN_IF_ERROR(
      ReadStringMap(m["annotations"], "metadata.annotations", &meta->annotations));
  if (Present(m["creationTimestamp"])) {
    BASALT_ASSIGN_OR_RETURN(std::string ts,
                            GetString(m["creationTimestamp"], "metadata.creationTimestamp"));
    Result<int64_t> t = ParseTimestamp(ts);
    if (!t.ok()) return t.status().WithContext("metadata.creationTimestamp");
    meta->creation_timestamp = *t;
  }
  meta->deleting = Present(m["deletionTimestamp"]);
  auto owners = m["ownerReferences"];
  BASALT_RETURN_IF_ERROR(ExpectList(owners, "metadata.ownerReferences"));
  if (Present(owners)) {
    for (size_t i = 0; i < owners.size(); ++i) {
      std::string path = Index("metadata.ownerReferences", i);
      BASALT_RETURN_IF_ERROR(ExpectMap(owners[i], path));
      OwnerReference ref;
      BASALT_RETURN_IF_ERROR(ReadString(owners[i], "apiVersion", path, &ref.api_version));
      BASALT_RETURN_IF_ERROR(ReadString(owners[i], "kind", path, &ref.kind));
      BASALT_RETURN_IF_ERROR(ReadString(owners[i], "name", path, &ref.name));
      BASALT_RETURN_IF_ERROR(ReadString(owners[i], "uid", path, &ref.uid));
      BASALT_RETURN_IF_ERROR(ReadBool(owners[i], "controller", path, &ref.controller));
      if (ref.kind.empty()) return FieldError(Join(path, "kind"), "missing");
      if (ref.name.empty()) return FieldError(Join(path, "name"), "missing");
      meta->owner_references.push_back(std::move(ref));
    }
  }
  return Status::Ok();
}

}  // namespace decode_internal

namespace {

template <typename NodeT>
Status DecodeSelectorTerm(const NodeT& n, const std::string& path, NodeSelectorTerm* term) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  static const std::set<std::string> kOps = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  for (const char* which : {"matchExpressions", "matchFields"}) {
    auto list = n[which];
    std::string lpath = Join(path, which);
    BASALT_RETURN_IF_ERROR(ExpectList(list, lpath));
    if (!Present(list)) continue;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string rpath = Index(lpath, i);
      BASALT_RETURN_IF_ERROR(ExpectMap(list[i], rpath));
      NodeSelectorRequirement req;
      BASALT_RETURN_IF_ERROR(ReadString(list[i], "key", rpath, &req.key));
      BASALT_RETURN_IF_ERROR(ReadString(list[i], "operator", rpath, &req.op));
      if (req.key.empty()) return FieldError(Join(rpath, "key"), "missing");
      if (!kOps.count(req.op)) {
        return FieldError(
            Join(rpath, "operator"),
            "unknown operator \"" + req.op + "\" (want In, NotIn, Exists, DoesNotExist, Gt or Lt)");
      }
      BASALT_ASSIGN_OR_RETURN(req.values, ReadStringList(list[i]["values"], Join(rpath, "values")));
      if ((req.op == "Gt" || req.op == "Lt")) {
        if (req.values.size() != 1)
          return FieldError(Join(rpath, "values"), "Gt and Lt take exactly one value");
        Result<int64_t> v =
            GetInt(list[i]["values"][0], Join(rpath, "values[0]"), INT64_MIN / 2, INT64_MAX / 2);
        if (!v.ok()) return v.status();
      }
      (std::string(which) == "matchFields" ? term->match_fields : term->match_expressions)
          .push_back(req);
    }
  }
  return Status::Ok();
}

template <typename NodeT>
Status DecodeAffinity(const NodeT& aff, const std::string& path, PodSpec* spec) {
  BASALT_RETURN_IF_ERROR(ExpectMap(aff, path));
  if (!Present(aff)) return Status::Ok();
  auto na = aff["nodeAffinity"];
  std::string napath = Join(path, "nodeAffinity");
  BASALT_RETURN_IF_ERROR(ExpectMap(na, napath));
  if (!Present(na)) return Status::Ok();
  auto req = na["requiredDuringSchedulingIgnoredDuringExecution"];
  std::string rpath = Join(napath, "requiredDuringSchedulingIgnoredDuringExecution");
  BASALT_RETURN_IF_ERROR(ExpectMap(req, rpath));
  if (Present(req)) {
    auto terms = req["nodeSelectorTerms"];
    std::string tpath = Join(rpath, "nodeSelectorTerms");
    BASALT_RETURN_IF_ERROR(ExpectList(terms, tpath));
    if (Present(terms)) {
      for (size_t i = 0; i < terms.size(); ++i) {
        NodeSelectorTerm t;
        BASALT_RETURN_IF_ERROR(DecodeSelectorTerm(terms[i], Index(tpath, i), &t));
        spec->required_node_affinity.push_back(std::move(t));
      }
    }
  }
  auto pref = na["preferredDuringSchedulingIgnoredDuringExecution"];
  std::string ppath = Join(napath, "preferredDuringSchedulingIgnoredDuringExecution");
  BASALT_RETURN_IF_ERROR(ExpectList(pref, ppath));
  if (Present(pref)) {
    for (size_t i = 0; i < pref.size(); ++i) {
      std::string ip = Index(ppath, i);
      BASALT_RETURN_IF_ERROR(ExpectMap(pref[i], ip));
      PreferredSchedulingTerm t;
      BASALT_RETURN_IF_ERROR(ReadInt(pref[i], "weight", ip, &t.weight, 1, 100));
      BASALT_RETURN_IF_ERROR(
          DecodeSelectorTerm(pref[i]["preference"], Join(ip, "preference"), &t.preference));
      spec->preferred_node_affinity.push_back(std::move(t));
    }
  }
  return Status::Ok();
}

// The effective request of one container: requests, falling back to limits per
// resource (the API server defaults requests from limits).
template <typename NodeT>
Result<Resource> ContainerRequest(const NodeT& c, const std::string& path) {
  auto res = c["resources"];
  std::string rpath = Join(path, "resources");
  BASALT_RETURN_IF_ERROR(ExpectMap(res, rpath));
  Resource out;
  if (!Present(res)) return out;
  BASALT_ASSIGN_OR_RETURN(Resource limits, DecodeResources(res["limits"], Join(rpath, "limits")));
  BASALT_ASSIGN_OR_RETURN(Resource requests,
                          DecodeResources(res["requests"], Join(rpath, "requests")));
  out = requests;
  auto req_node = res["requests"];
  auto requested = [&](const char* name) { return Present(req_node) && Present(req_node[name]); };
  if (!requested("cpu")) out.set_milli_cpu(limits.milli_cpu());
  if (!requested("memory")) out.set_memory(limits.memory());
  for (const auto& [id, v] : limits.scalars()) {
    if (!requests.Has(id)) out.Set(id, v);
  }
  return out;
}

template <typename NodeT>
Status DecodeContainers(const NodeT& spec, const char* key, const std::string& path,
                        std::vector<std::pair<Resource, bool>>* out, std::vector<HostPort>* ports) {
  auto list = spec[key];
  std::string lpath = Join(path, key);
  BASALT_RETURN_IF_ERROR(ExpectList(list, lpath));
  if (!Present(list)) return Status::Ok();
  for (size_t i = 0; i < list.size(); ++i) {
    std::string cpath = Index(lpath, i);
    BASALT_RETURN_IF_ERROR(ExpectMap(list[i], cpath));
    BASALT_ASSIGN_OR_RETURN(Resource r, ContainerRequest(list[i], cpath));
    std::string restart;
    BASALT_RETURN_IF_ERROR(ReadString(list[i], "restartPolicy", cpath, &restart));
    out->push_back({r, restart == "Always"});
    auto cports = list[i]["ports"];
    BASALT_RETURN_IF_ERROR(ExpectList(cports, Join(cpath, "ports")));
    if (!Present(cports)) continue;
    for (size_t k = 0; k < cports.size(); ++k) {
      std::string ppath = Index(Join(cpath, "ports"), k);
      BASALT_RETURN_IF_ERROR(ExpectMap(cports[k], ppath));
      HostPort hp;
      BASALT_RETURN_IF_ERROR(ReadInt(cports[k], "hostPort", ppath, &hp.port, 0, 65535));
      BASALT_RETURN_IF_ERROR(ReadString(cports[k], "protocol", ppath, &hp.protocol));
      BASALT_RETURN_IF_ERROR(ReadString(cports[k], "hostIP", ppath, &hp.host_ip));
      if (hp.protocol.empty()) hp.protocol = "TCP";
      if (hp.port > 0) ports->push_back(hp);
    }
  }
  return Status::Ok();
}

}  // namespace

namespace decode_internal {

template <typename NodeT>
Status DecodePodSpec(const NodeT& spec, const std::string& path, PodSpec* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, path));
  if (!Present(spec)) return FieldError(path, "missing");
  std::vector<std::pair<Resource, bool>> containers, inits;
  BASALT_RETURN_IF_ERROR(DecodeContainers(spec, "containers", path, &containers, &out->host_ports));
  BASALT_RETURN_IF_ERROR(DecodeContainers(spec, "initContainers", path, &inits, &out->host_ports));
  Resource sum;
  for (const auto& c : containers) sum += c.first;
  // Init containers run one at a time before the app containers; restartable
  // ("sidecar") init containers keep running and add to everything after them.
  Resource sidecars;
  Resource peak_init;
  for (const auto& [r, sidecar] : inits) {
    if (sidecar) {
      sidecars += r;
      peak_init = Max(peak_init, sidecars);
    } else {
      peak_init = Max(peak_init, sidecars + r);
    }
  }
  // As Volcano's GetPodResourceRequest: the overhead joins the app containers'
  // sum before the max with the init phases (Kubernetes would add it after).
  BASALT_ASSIGN_OR_RETURN(Resource overhead,
                          DecodeResources(spec["overhead"], Join(path, "overhead")));
  Resource req = Max(sum + overhead + sidecars, peak_init);
  req.Set(ResourceNames::kPods, 1);
  out->request = req;
  out->device_request = sum;
  for (const auto& init : inits) out->device_request = Max(out->device_request, init.first);
  DecodeCpuPinningInputs(spec, out);
  if (Present(spec["priority"])) {
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "priority", path, &out->priority));
    out->has_priority = true;
  }
  BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", path, &out->priority_class_name));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "nodeName", path, &out->node_name));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "schedulerName", path, &out->scheduler_name));
  if (out->scheduler_name.empty()) out->scheduler_name = "default-scheduler";
  BASALT_RETURN_IF_ERROR(
      ReadStringMap(spec["nodeSelector"], Join(path, "nodeSelector"), &out->node_selector));
  BASALT_RETURN_IF_ERROR(DecodeAffinity(spec["affinity"], Join(path, "affinity"), out));
  auto tols = spec["tolerations"];
  std::string tpath = Join(path, "tolerations");
  BASALT_RETURN_IF_ERROR(ExpectList(tols, tpath));
  if (Present(tols)) {
    for (size_t i = 0; i < tols.size(); ++i) {
      std::string ip = Index(tpath, i);
      BASALT_RETURN_IF_ERROR(ExpectMap(tols[i], ip));
      Toleration t;
      BASALT_RETURN_IF_ERROR(ReadString(tols[i], "key", ip, &t.key));
      BASALT_RETURN_IF_ERROR(ReadString(tols[i], "operator", ip, &t.op));
      BASALT_RETURN_IF_ERROR(ReadString(tols[i], "value", ip, &t.value));
      BASALT_RETURN_IF_ERROR(ReadString(tols[i], "effect", ip, &t.effect));
      if (t.op.empty()) t.op = "Equal";
      if (t.op != "Equal" && t.op != "Exists") {
        return FieldError(Join(ip, "operator"),
                          "unknown operator \"" + t.op + "\" (want Equal or Exists)");
      }
      if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
          t.effect != "NoExecute") {
        return FieldError(Join(ip, "effect"), "unknown effect \"" + t.effect + "\"");
      }
      out->tolerations.push_back(t);
    }
  }
  if (Present(spec["preemptionPolicy"])) {
    std::string pp;
    BASALT_RETURN_IF_ERROR(ReadString(spec, "preemptionPolicy", path, &pp));
    if (pp != "Never" && pp != "PreemptLowerPriority") {
      return FieldError(Join(path, "preemptionPolicy"),
                        "want Never or PreemptLowerPriority, got \"" + pp + "\"");
    }
    out->preemption_policy = pp;
  }
  auto gates = spec["schedulingGates"];
  BASALT_RETURN_IF_ERROR(ExpectList(gates, Join(path, "schedulingGates")));
  if (Present(gates)) out->scheduling_gates = static_cast<int>(gates.size());
  return Status::Ok();
}

}  // namespace decode_internal

namespace {

using decode_internal::DecodeMeta;
using decode_internal::DecodePodSpec;

// status.conditions: the time of the PodScheduled=True condition, if any.
template <typename NodeT>
Status DecodeScheduledAt(const NodeT& conds, Pod* pod) {
  BASALT_RETURN_IF_ERROR(ExpectList(conds, "status.conditions"));
  if (!Present(conds)) return Status::Ok();
  for (size_t i = 0; i < conds.size(); ++i) {
    const std::string ip = Index("status.conditions", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(conds[i], ip));
    std::string type, status, when;
    BASALT_RETURN_IF_ERROR(ReadString(conds[i], "type", ip, &type));
    BASALT_RETURN_IF_ERROR(ReadString(conds[i], "status", ip, &status));
    if (type != "PodScheduled" || status != "True") continue;
    BASALT_RETURN_IF_ERROR(ReadString(conds[i], "lastTransitionTime", ip, &when));
    if (when.empty()) continue;
    Result<int64_t> t = ParseTimestamp(when);
    if (!t.ok()) return t.status().WithContext(Join(ip, "lastTransitionTime"));
    pod->scheduled_at = *t;
  }
  return Status::Ok();
}

template <typename NodeT>
Status DecodePod(const NodeT& doc, Pod* pod) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &pod->meta));
  BASALT_RETURN_IF_ERROR(DecodePodSpec(doc["spec"], "spec", &pod->spec));
  auto st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) {
    BASALT_RETURN_IF_ERROR(ReadString(st, "phase", "status", &pod->phase));
    BASALT_RETURN_IF_ERROR(
        ReadString(st, "nominatedNodeName", "status", &pod->nominated_node_name));
    // The first container's exit code, for vcjob `exitCode` policies.
    auto cs = st["containerStatuses"];
    BASALT_RETURN_IF_ERROR(ExpectList(cs, "status.containerStatuses"));
    if (Present(cs) && cs.size() > 0) {
      BASALT_RETURN_IF_ERROR(ExpectMap(cs[0], "status.containerStatuses[0]"));
      auto state = Present(cs[0]) ? cs[0]["state"] : NodeT();
      BASALT_RETURN_IF_ERROR(ExpectMap(state, "status.containerStatuses[0].state"));
      auto term = Present(state) ? state["terminated"] : NodeT();
      BASALT_RETURN_IF_ERROR(ExpectMap(term, "status.containerStatuses[0].state.terminated"));
      if (Present(term)) {
        BASALT_RETURN_IF_ERROR(ReadInt(
            term, "exitCode", "status.containerStatuses[0].state.terminated", &pod->exit_code));
      }
    }
    BASALT_RETURN_IF_ERROR(DecodeScheduledAt(st["conditions"], pod));
  }
  static const std::set<std::string> kPhases = {"Pending", "Running", "Succeeded", "Failed",
                                                "Unknown"};
  if (pod->phase.empty()) pod->phase = "Pending";
  if (!kPhases.count(pod->phase)) {
    return FieldError("status.phase",
                      "unknown phase \"" + pod->phase +
                          "\" (want Pending, Running, Succeeded, Failed or Unknown)");
  }
  if (pod->phase == "Running" && pod->spec.node_name.empty()) {
    return FieldError("spec.nodeName", "a Running pod must name its node");
  }
  return Status::Ok();
}

template <typename NodeT>
Status DecodeNode(const NodeT& doc, Node* node) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, false, &node->meta));
  auto spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec)) {
    BASALT_RETURN_IF_ERROR(ReadBool(spec, "unschedulable", "spec", &node->unschedulable));
    auto taints = spec["taints"];
    BASALT_RETURN_IF_ERROR(ExpectList(taints, "spec.taints"));
    if (Present(taints)) {
      for (size_t i = 0; i < taints.size(); ++i) {
        std::string ip = Index("spec.taints", i);
        BASALT_RETURN_IF_ERROR(ExpectMap(taints[i], ip));
        Taint t;
        BASALT_RETURN_IF_ERROR(ReadString(taints[i], "key", ip, &t.key));
        BASALT_RETURN_IF_ERROR(ReadString(taints[i], "value", ip, &t.value));
        BASALT_RETURN_IF_ERROR(ReadString(taints[i], "effect", ip, &t.effect));
        if (t.key.empty()) return FieldError(Join(ip, "key"), "missing");
        if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
          return FieldError(
              Join(ip, "effect"),
              "want NoSchedule, PreferNoSchedule or NoExecute, got \"" + t.effect + "\"");
        }
        node->taints.push_back(t);
      }
    }
  }
  auto st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (!Present(st) || (!Present(st["allocatable"]) && !Present(st["capacity"]))) {
    return FieldError("status.allocatable", "missing (a node needs allocatable or capacity)");
  }
  BASALT_ASSIGN_OR_RETURN(node->capacity, DecodeResources(st["capacity"], "status.capacity"));
  if (Present(st["allocatable"])) {
    BASALT_ASSIGN_OR_RETURN(node->allocatable,
                            DecodeResources(st["allocatable"], "status.allocatable"));
  } else {
    node->allocatable = node->capacity;
  }
  auto conds = st["conditions"];
  BASALT_RETURN_IF_ERROR(ExpectList(conds, "status.conditions"));
  if (Present(conds)) {
    for (size_t i = 0; i < conds.size(); ++i) {
      std::string ip = Index("status.conditions", i);
      BASALT_RETURN_IF_ERROR(ExpectMap(conds[i], ip));
      std::string type, status;
      BASALT_RETURN_IF_ERROR(ReadString(conds[i], "type", ip, &type));
      BASALT_RETURN_IF_ERROR(ReadString(conds[i], "status", ip, &status));
      if (type == "Ready") node->ready = status == "True";
    }
  }
  return Status::Ok();
}

}  // namespace

namespace decode_internal {

template <typename NodeT>
std::string DocLabel(const NodeT& doc, const std::string& kind) {
  auto m = doc["metadata"];
  std::string label = kind;
  if (m && m.IsMap()) {
    std::string ns, name;
    if (m["namespace"] && m["namespace"].IsScalar()) ns = m["namespace"].Scalar();
    if (m["name"] && m["name"].IsScalar()) name = m["name"].Scalar();
    if (!name.empty()) label += " " + (ns.empty() ? name : ns + "/" + name);
  }
  return label;
}

template <typename NodeT>
Status ReadTypeMeta(const NodeT& doc, const std::string& source, std::string* kind,
                    std::string* api_version) {
  if (!doc.IsMap())
    return Status::InvalidArgument(source + ": expected an object, got " + KindOf(doc));
  auto kind_node = doc["kind"];
  auto version_node = doc["apiVersion"];
  if (Present(kind_node) && !kind_node.IsScalar()) {
    return Status::InvalidArgument(source + ": kind: expected a string, got " + KindOf(kind_node));
  }
  if (Present(version_node) && !version_node.IsScalar()) {
    return Status::InvalidArgument(source + ": apiVersion: expected a string, got " +
                                   KindOf(version_node));
  }
  if (Present(kind_node)) *kind = kind_node.Scalar();
  if (Present(version_node)) *api_version = version_node.Scalar();
  if (kind->empty()) return Status::InvalidArgument(source + ": kind: missing");
  return Status::Ok();
}

Status ExpectApiVersion(const std::string& context, const std::string& kind,
                        const std::string& api_version,
                        std::initializer_list<const char*> versions) {
  for (const char* v : versions) {
    if (api_version == v) return Status::Ok();
  }
  std::string want;
  for (const char* v : versions) want += std::string(want.empty() ? "" : " or ") + v;
  return Status::InvalidArgument(context + ": apiVersion: \"" + api_version +
                                 "\" is not supported for " + kind + " (want " + want + ")");
}

template <typename NodeT>
Status DecodePodOrNode(const NodeT& doc, const std::string& kind, const std::string& api_version,
                       const std::string& source, ClusterObjects* out) {
  const std::string context = source + ": " + DocLabel(doc, kind);
  BASALT_RETURN_IF_ERROR(ExpectApiVersion(context, kind, api_version, {"v1"}));
  Status st;
  if (kind == "Pod") {
    Pod pod;
    pod.meta.source = source;
    st = DecodePod(doc, &pod);
    if (st.ok()) out->pods.push_back(std::move(pod));
  } else {
    Node node;
    node.meta.source = source;
    st = DecodeNode(doc, &node);
    if (st.ok()) out->nodes.push_back(std::move(node));
  }
  return st.WithContext(context);
}

// The two readers every rule above is compiled for.
#define BASALT_DECODE_FOR(NodeT)                                                              \
  template Status DecodeMeta(const NodeT&, bool, ObjectMeta*);                                \
  template Status DecodePodSpec(const NodeT&, const std::string&, PodSpec*);                  \
  template std::string DocLabel(const NodeT&, const std::string&);                            \
  template Status ReadTypeMeta(const NodeT&, const std::string&, std::string*, std::string*); \
  template Status DecodePodOrNode(const NodeT&, const std::string&, const std::string&,       \
                                  const std::string&, ClusterObjects*);
BASALT_DECODE_FOR(YAML::Node)
BASALT_DECODE_FOR(JsonField)
#undef BASALT_DECODE_FOR

}  // namespace decode_internal

Result<Resource> DecodeResourceList(const YAML::Node& node, const std::string& field) {
  return DecodeResources(node, field);
}
Result<Resource> DecodeResourceList(const JsonField& node, const std::string& field) {
  return DecodeResources(node, field);
}

}  // namespace basalt
