#include "api/decode.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "api/quantity.h"

namespace basalt {
namespace {

Status FieldError(const std::string& field, const std::string& problem) {
  return Status::InvalidArgument(field + ": " + problem);
}

std::string Join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string Index(const std::string& parent, size_t i) { return parent + "[" + std::to_string(i) + "]"; }

std::string KindOf(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: return "an object";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "null";
    default: return "nothing";
  }
}

// Typed accessors: an absent or null field is "unset"; a wrong type is an error.
Status ExpectMap(const YAML::Node& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsMap()) return FieldError(field, "expected an object, got " + KindOf(n));
  return Status::Ok();
}
Status ExpectList(const YAML::Node& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsSequence()) return FieldError(field, "expected a list, got " + KindOf(n));
  return Status::Ok();
}
bool Present(const YAML::Node& n) { return n && !n.IsNull(); }

Result<std::string> GetString(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) return FieldError(field, "expected a string, got " + KindOf(n));
  return n.Scalar();
}

Status ReadString(const YAML::Node& parent, const char* key, const std::string& path, std::string* out) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetString(n, Join(path, key)));
  return Status::Ok();
}

Result<int64_t> GetInt(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) {
  if (!n.IsScalar()) return FieldError(field, "expected an integer, got " + KindOf(n));
  const std::string& s = n.Scalar();
  if (s.empty()) return FieldError(field, "expected an integer, got \"\"");
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return FieldError(field, "expected an integer, got \"" + s + "\"");
  for (size_t k = i; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return FieldError(field, "expected an integer, got \"" + s + "\"");
  }
  if (s.size() - i > 18) return FieldError(field, "integer out of range: " + s);
  int64_t v = std::stoll(s);
  if (v < lo || v > hi) {
    return FieldError(field, "value " + s + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

template <typename T>
Status ReadInt(const YAML::Node& parent, const char* key, const std::string& path, T* out,
               int64_t lo = INT32_MIN, int64_t hi = INT32_MAX) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(int64_t v, GetInt(n, Join(path, key), lo, hi));
  *out = static_cast<T>(v);
  return Status::Ok();
}

Result<bool> GetBool(const YAML::Node& n, const std::string& field) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  return FieldError(field, "expected true or false, got " +
                               (n.IsScalar() ? "\"" + n.Scalar() + "\"" : KindOf(n)));
}

Status ReadBool(const YAML::Node& parent, const char* key, const std::string& path, bool* out) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetBool(n, Join(path, key)));
  return Status::Ok();
}

Status ReadStringMap(const YAML::Node& n, const std::string& field, std::map<std::string, std::string>* out) {
  if (!Present(n)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ExpectMap(n, field));
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (!Present(kv.second)) {
      (*out)[key] = "";
      continue;
    }
    BASALT_ASSIGN_OR_RETURN(std::string v, GetString(kv.second, field + "." + key));
    (*out)[key] = v;
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ReadStringList(const YAML::Node& n, const std::string& field) {
  std::vector<std::string> out;
  if (!Present(n)) return out;
  BASALT_RETURN_IF_ERROR(ExpectList(n, field));
  for (size_t i = 0; i < n.size(); ++i) {
    BASALT_ASSIGN_OR_RETURN(std::string v, GetString(n[i], Index(field, i)));
    out.push_back(v);
  }
  return out;
}

Status DecodeMeta(const YAML::Node& doc, bool namespaced, ObjectMeta* meta) {
  YAML::Node m = doc["metadata"];
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
  BASALT_RETURN_IF_ERROR(ReadStringMap(m["annotations"], "metadata.annotations", &meta->annotations));
  if (Present(m["creationTimestamp"])) {
    BASALT_ASSIGN_OR_RETURN(std::string ts, GetString(m["creationTimestamp"], "metadata.creationTimestamp"));
    Result<int64_t> t = ParseTimestamp(ts);
    if (!t.ok()) return t.status().WithContext("metadata.creationTimestamp");
    meta->creation_timestamp = *t;
  }
  meta->deleting = Present(m["deletionTimestamp"]);
  YAML::Node owners = m["ownerReferences"];
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

Status DecodeSelectorTerm(const YAML::Node& n, const std::string& path, NodeSelectorTerm* term) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  static const std::set<std::string> kOps = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  for (const char* which : {"matchExpressions", "matchFields"}) {
    YAML::Node list = n[which];
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
        return FieldError(Join(rpath, "operator"), "unknown operator \"" + req.op +
                                                       "\" (want In, NotIn, Exists, DoesNotExist, Gt or Lt)");
      }
      BASALT_ASSIGN_OR_RETURN(req.values, ReadStringList(list[i]["values"], Join(rpath, "values")));
      if ((req.op == "Gt" || req.op == "Lt")) {
        if (req.values.size() != 1) return FieldError(Join(rpath, "values"), "Gt and Lt take exactly one value");
        Result<int64_t> v = GetInt(list[i]["values"][0], Join(rpath, "values[0]"), INT64_MIN / 2, INT64_MAX / 2);
        if (!v.ok()) return v.status();
      }
      (std::string(which) == "matchFields" ? term->match_fields : term->match_expressions).push_back(req);
    }
  }
  return Status::Ok();
}

Status DecodeAffinity(const YAML::Node& aff, const std::string& path, PodSpec* spec) {
  BASALT_RETURN_IF_ERROR(ExpectMap(aff, path));
  if (!Present(aff)) return Status::Ok();
  YAML::Node na = aff["nodeAffinity"];
  std::string napath = Join(path, "nodeAffinity");
  BASALT_RETURN_IF_ERROR(ExpectMap(na, napath));
  if (!Present(na)) return Status::Ok();
  YAML::Node req = na["requiredDuringSchedulingIgnoredDuringExecution"];
  std::string rpath = Join(napath, "requiredDuringSchedulingIgnoredDuringExecution");
  BASALT_RETURN_IF_ERROR(ExpectMap(req, rpath));
  if (Present(req)) {
    YAML::Node terms = req["nodeSelectorTerms"];
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
  YAML::Node pref = na["preferredDuringSchedulingIgnoredDuringExecution"];
  std::string ppath = Join(napath, "preferredDuringSchedulingIgnoredDuringExecution");
  BASALT_RETURN_IF_ERROR(ExpectList(pref, ppath));
  if (Present(pref)) {
    for (size_t i = 0; i < pref.size(); ++i) {
      std::string ip = Index(ppath, i);
      BASALT_RETURN_IF_ERROR(ExpectMap(pref[i], ip));
      PreferredSchedulingTerm t;
      BASALT_RETURN_IF_ERROR(ReadInt(pref[i], "weight", ip, &t.weight, 1, 100));
      BASALT_RETURN_IF_ERROR(DecodeSelectorTerm(pref[i]["preference"], Join(ip, "preference"), &t.preference));
      spec->preferred_node_affinity.push_back(std::move(t));
    }
  }
  return Status::Ok();
}

// The effective request of one container: requests, falling back to limits per
// resource (the API server defaults requests from limits).
Result<Resource> ContainerRequest(const YAML::Node& c, const std::string& path) {
  YAML::Node res = c["resources"];
  std::string rpath = Join(path, "resources");
  BASALT_RETURN_IF_ERROR(ExpectMap(res, rpath));
  Resource out;
  if (!Present(res)) return out;
  BASALT_ASSIGN_OR_RETURN(Resource limits, DecodeResourceList(res["limits"], Join(rpath, "limits")));
  BASALT_ASSIGN_OR_RETURN(Resource requests, DecodeResourceList(res["requests"], Join(rpath, "requests")));
  out = requests;
  YAML::Node req_node = res["requests"];
  auto requested = [&](const char* name) { return Present(req_node) && Present(req_node[name]); };
  if (!requested("cpu")) out.set_milli_cpu(limits.milli_cpu());
  if (!requested("memory")) out.set_memory(limits.memory());
  for (const auto& [id, v] : limits.scalars()) {
    if (!requests.Has(id)) out.Set(id, v);
  }
  return out;
}

Status DecodeContainers(const YAML::Node& spec, const char* key, const std::string& path,
                        std::vector<std::pair<Resource, bool>>* out, std::vector<HostPort>* ports) {
  YAML::Node list = spec[key];
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
    YAML::Node cports = list[i]["ports"];
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

Result<int64_t> ParseTimestamp(const std::string& text) {
  std::tm tm{};
  int y, mo, d, h, mi, s;
  char tail[32] = {0};
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%31s", &y, &mo, &d, &h, &mi, &s, tail) < 6) {
    return Status::InvalidArgument("invalid time \"" + text + "\" (want RFC 3339, e.g. 2024-05-01T10:00:00Z)");
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    return Status::InvalidArgument("invalid time \"" + text + "\": field out of range");
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  int64_t t = static_cast<int64_t>(timegm(&tm));
  // Fractional seconds and offsets ("+02:00") are accepted; offsets shift the time.
  std::string rest(tail);
  size_t k = 0;
  if (k < rest.size() && rest[k] == '.') {
    ++k;
    while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k]))) ++k;
  }
  std::string zone = rest.substr(k);
  if (zone == "Z" || zone == "z" || zone.empty()) return t;
  int zh = 0, zm = 0;
  if ((zone[0] == '+' || zone[0] == '-') && std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) == 2) {
    int64_t off = zh * 3600 + zm * 60;
    return zone[0] == '+' ? t - off : t + off;
  }
  return Status::InvalidArgument("invalid time \"" + text + "\": bad zone \"" + zone + "\"");
}

Result<Resource> DecodeResourceList(const YAML::Node& node, const std::string& field) {
  Resource r;
  if (!Present(node)) return r;
  BASALT_RETURN_IF_ERROR(ExpectMap(node, field));
  for (const auto& kv : node) {
    std::string name = kv.first.Scalar();
    std::string path = field + "." + name;
    if (!kv.second.IsScalar()) return FieldError(path, "expected a quantity, got " + KindOf(kv.second));
    ResourceId id = ResourceNames::Intern(name);
    bool units = id == ResourceNames::kMemory || id == ResourceNames::kPods;
    Result<int64_t> v = units ? ParseQuantityUnits(kv.second.Scalar()) : ParseQuantityMilli(kv.second.Scalar());
    if (!v.ok()) return v.status().WithContext(path);
    if (*v < 0) return FieldError(path, "negative quantity \"" + kv.second.Scalar() + "\"");
    r.Set(id, *v);
  }
  return r;
}

namespace {

Status DecodePodSpec(const YAML::Node& spec, const std::string& path, PodSpec* out) {
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
  Resource req = Max(sum + sidecars, peak_init);
  BASALT_ASSIGN_OR_RETURN(Resource overhead, DecodeResourceList(spec["overhead"], Join(path, "overhead")));
  req += overhead;
  req.Set(ResourceNames::kPods, 1);
  out->request = req;
  if (Present(spec["priority"])) {
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "priority", path, &out->priority));
    out->has_priority = true;
  }
  BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", path, &out->priority_class_name));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "nodeName", path, &out->node_name));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "schedulerName", path, &out->scheduler_name));
  if (out->scheduler_name.empty()) out->scheduler_name = "default-scheduler";
  BASALT_RETURN_IF_ERROR(ReadStringMap(spec["nodeSelector"], Join(path, "nodeSelector"), &out->node_selector));
  BASALT_RETURN_IF_ERROR(DecodeAffinity(spec["affinity"], Join(path, "affinity"), out));
  YAML::Node tols = spec["tolerations"];
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
        return FieldError(Join(ip, "operator"), "unknown operator \"" + t.op + "\" (want Equal or Exists)");
      }
      if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
        return FieldError(Join(ip, "effect"), "unknown effect \"" + t.effect + "\"");
      }
      out->tolerations.push_back(t);
    }
  }
  if (Present(spec["preemptionPolicy"])) {
    std::string pp;
    BASALT_RETURN_IF_ERROR(ReadString(spec, "preemptionPolicy", path, &pp));
    if (pp != "Never" && pp != "PreemptLowerPriority") {
      return FieldError(Join(path, "preemptionPolicy"), "want Never or PreemptLowerPriority, got \"" + pp + "\"");
    }
    out->preemption_policy = pp;
  }
  YAML::Node gates = spec["schedulingGates"];
  BASALT_RETURN_IF_ERROR(ExpectList(gates, Join(path, "schedulingGates")));
  if (Present(gates)) out->scheduling_gates = static_cast<int>(gates.size());
  return Status::Ok();
}

Status DecodePod(const YAML::Node& doc, Pod* pod) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &pod->meta));
  BASALT_RETURN_IF_ERROR(DecodePodSpec(doc["spec"], "spec", &pod->spec));
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) {
    BASALT_RETURN_IF_ERROR(ReadString(st, "phase", "status", &pod->phase));
    BASALT_RETURN_IF_ERROR(ReadString(st, "nominatedNodeName", "status", &pod->nominated_node_name));
  }
  static const std::set<std::string> kPhases = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
  if (pod->phase.empty()) pod->phase = "Pending";
  if (!kPhases.count(pod->phase)) {
    return FieldError("status.phase", "unknown phase \"" + pod->phase +
                                          "\" (want Pending, Running, Succeeded, Failed or Unknown)");
  }
  if (pod->phase == "Running" && pod->spec.node_name.empty()) {
    return FieldError("spec.nodeName", "a Running pod must name its node");
  }
  return Status::Ok();
}

Status DecodeNode(const YAML::Node& doc, Node* node) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, false, &node->meta));
  YAML::Node spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec)) {
    BASALT_RETURN_IF_ERROR(ReadBool(spec, "unschedulable", "spec", &node->unschedulable));
    YAML::Node taints = spec["taints"];
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
          return FieldError(Join(ip, "effect"), "want NoSchedule, PreferNoSchedule or NoExecute, got \"" + t.effect + "\"");
        }
        node->taints.push_back(t);
      }
    }
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (!Present(st) || (!Present(st["allocatable"]) && !Present(st["capacity"]))) {
    return FieldError("status.allocatable", "missing (a node needs allocatable or capacity)");
  }
  BASALT_ASSIGN_OR_RETURN(node->capacity, DecodeResourceList(st["capacity"], "status.capacity"));
  if (Present(st["allocatable"])) {
    BASALT_ASSIGN_OR_RETURN(node->allocatable, DecodeResourceList(st["allocatable"], "status.allocatable"));
  } else {
    node->allocatable = node->capacity;
  }
  YAML::Node conds = st["conditions"];
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

Status DecodePriorityClass(const YAML::Node& doc, PriorityClass* pc) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, false, &pc->meta));
  if (!Present(doc["value"])) return FieldError("value", "missing");
  BASALT_RETURN_IF_ERROR(ReadInt(doc, "value", "", &pc->value, -2147483648LL, 2000001000LL));
  BASALT_RETURN_IF_ERROR(ReadBool(doc, "globalDefault", "", &pc->global_default));
  BASALT_RETURN_IF_ERROR(ReadString(doc, "preemptionPolicy", "", &pc->preemption_policy));
  if (pc->preemption_policy != "Never" && pc->preemption_policy != "PreemptLowerPriority") {
    return FieldError("preemptionPolicy", "want Never or PreemptLowerPriority, got \"" + pc->preemption_policy + "\"");
  }
  return Status::Ok();
}

Status DecodeQueue(const YAML::Node& doc, Queue* q) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, false, &q->meta));
  YAML::Node spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec)) {
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "weight", "spec", &q->weight, 0, INT32_MAX));
    if (q->weight == 0) q->weight = 1;  // Volcano's mutating webhook turns 0 into 1
    if (Present(spec["capability"])) {
      BASALT_ASSIGN_OR_RETURN(q->capability, DecodeResourceList(spec["capability"], "spec.capability"));
    }
    if (Present(spec["deserved"])) {
      BASALT_ASSIGN_OR_RETURN(q->deserved, DecodeResourceList(spec["deserved"], "spec.deserved"));
    }
    YAML::Node g = spec["guarantee"];
    BASALT_RETURN_IF_ERROR(ExpectMap(g, "spec.guarantee"));
    if (Present(g) && Present(g["resource"])) {
      BASALT_ASSIGN_OR_RETURN(q->guarantee, DecodeResourceList(g["resource"], "spec.guarantee.resource"));
    }
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "priority", "spec", &q->priority));
    if (Present(spec["reclaimable"])) {
      BASALT_ASSIGN_OR_RETURN(bool r, GetBool(spec["reclaimable"], "spec.reclaimable"));
      q->reclaimable = r;
    }
    BASALT_RETURN_IF_ERROR(ReadString(spec, "parent", "spec", &q->parent));
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) BASALT_RETURN_IF_ERROR(ReadString(st, "state", "status", &q->state));
  if (q->state.empty()) q->state = "Open";
  static const std::set<std::string> kStates = {"Open", "Closed", "Closing", "Unknown"};
  if (!kStates.count(q->state)) {
    return FieldError("status.state", "unknown state \"" + q->state + "\" (want Open, Closed, Closing or Unknown)");
  }
  return Status::Ok();
}

Status DecodePodGroup(const YAML::Node& doc, PodGroup* pg) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &pg->meta));
  YAML::Node spec = doc["spec"];
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (Present(spec)) {
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "minMember", "spec", &pg->min_member, 0, INT32_MAX));
    YAML::Node mtm = spec["minTaskMember"];
    BASALT_RETURN_IF_ERROR(ExpectMap(mtm, "spec.minTaskMember"));
    if (Present(mtm)) {
      for (const auto& kv : mtm) {
        std::string role = kv.first.Scalar();
        BASALT_ASSIGN_OR_RETURN(int64_t v, GetInt(kv.second, "spec.minTaskMember." + role, 0, INT32_MAX));
        pg->min_task_member[role] = static_cast<int32_t>(v);
      }
    }
    BASALT_RETURN_IF_ERROR(ReadString(spec, "queue", "spec", &pg->queue));
    BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", "spec", &pg->priority_class_name));
    if (Present(spec["minResources"])) {
      BASALT_ASSIGN_OR_RETURN(pg->min_resources, DecodeResourceList(spec["minResources"], "spec.minResources"));
    }
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) BASALT_RETURN_IF_ERROR(ReadString(st, "phase", "status", &pg->phase));
  static const std::set<std::string> kPhases = {"", "Pending", "Inqueue", "Running", "Unknown", "Completed"};
  if (!kPhases.count(pg->phase)) {
    return FieldError("status.phase", "unknown phase \"" + pg->phase +
                                          "\" (want Pending, Inqueue, Running, Unknown or Completed)");
  }
  return Status::Ok();
}

Status DecodePolicies(const YAML::Node& n, const std::string& path, std::vector<LifecyclePolicy>* out) {
  BASALT_RETURN_IF_ERROR(ExpectList(n, path));
  if (!Present(n)) return Status::Ok();
  for (size_t i = 0; i < n.size(); ++i) {
    std::string ip = Index(path, i);
    BASALT_RETURN_IF_ERROR(ExpectMap(n[i], ip));
    LifecyclePolicy p;
    std::string event;
    BASALT_RETURN_IF_ERROR(ReadString(n[i], "event", ip, &event));
    if (!event.empty()) p.events.push_back(event);
    BASALT_ASSIGN_OR_RETURN(std::vector<std::string> events, ReadStringList(n[i]["events"], Join(ip, "events")));
    p.events.insert(p.events.end(), events.begin(), events.end());
    BASALT_RETURN_IF_ERROR(ReadString(n[i], "action", ip, &p.action));
    if (Present(n[i]["exitCode"])) {
      int32_t code = 0;
      BASALT_RETURN_IF_ERROR(ReadInt(n[i], "exitCode", ip, &code));
      p.exit_code = code;
    }
    if (Present(n[i]["timeout"])) {
      std::string t;
      BASALT_RETURN_IF_ERROR(ReadString(n[i], "timeout", ip, &t));
      p.timeout = t;
    }
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

Status DecodeVcJob(const YAML::Node& doc, VcJob* job) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &job->meta));
  YAML::Node spec = doc["spec"];
  if (!Present(spec)) return FieldError("spec", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  BASALT_RETURN_IF_ERROR(ReadInt(spec, "minAvailable", "spec", &job->min_available, INT32_MIN, INT32_MAX));
  if (Present(spec["minSuccess"])) {
    int32_t ms = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "minSuccess", "spec", &ms));
    job->min_success = ms;
  }
  BASALT_RETURN_IF_ERROR(ReadString(spec, "queue", "spec", &job->queue));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "schedulerName", "spec", &job->scheduler_name));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", "spec", &job->priority_class_name));
  BASALT_RETURN_IF_ERROR(ReadInt(spec, "maxRetry", "spec", &job->max_retry, INT32_MIN, INT32_MAX));
  BASALT_RETURN_IF_ERROR(DecodePolicies(spec["policies"], "spec.policies", &job->policies));
  YAML::Node tasks = spec["tasks"];
  BASALT_RETURN_IF_ERROR(ExpectList(tasks, "spec.tasks"));
  if (!Present(tasks) || tasks.size() == 0) return FieldError("spec.tasks", "missing (a job needs at least one task)");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string ip = Index("spec.tasks", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(tasks[i], ip));
    JobTask t;
    BASALT_RETURN_IF_ERROR(ReadString(tasks[i], "name", ip, &t.name));
    BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "replicas", ip, &t.replicas, INT32_MIN, INT32_MAX));
    if (Present(tasks[i]["minAvailable"])) {
      int32_t ma = 0;
      BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "minAvailable", ip, &ma, INT32_MIN, INT32_MAX));
      t.min_available = ma;
    }
    BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "maxRetry", ip, &t.max_retry, INT32_MIN, INT32_MAX));
    BASALT_RETURN_IF_ERROR(DecodePolicies(tasks[i]["policies"], Join(ip, "policies"), &t.policies));
    YAML::Node tmpl = tasks[i]["template"];
    std::string tpath = Join(ip, "template");
    if (!Present(tmpl)) return FieldError(tpath, "missing");
    BASALT_RETURN_IF_ERROR(ExpectMap(tmpl, tpath));
    YAML::Node tm = tmpl["metadata"];
    BASALT_RETURN_IF_ERROR(ExpectMap(tm, Join(tpath, "metadata")));
    if (Present(tm)) {
      BASALT_RETURN_IF_ERROR(ReadStringMap(tm["labels"], Join(tpath, "metadata.labels"), &t.template_meta.labels));
      BASALT_RETURN_IF_ERROR(
          ReadStringMap(tm["annotations"], Join(tpath, "metadata.annotations"), &t.template_meta.annotations));
    }
    BASALT_RETURN_IF_ERROR(DecodePodSpec(tmpl["spec"], Join(tpath, "spec"), &t.template_spec));
    job->tasks.push_back(std::move(t));
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) {
    YAML::Node state = st["state"];
    BASALT_RETURN_IF_ERROR(ExpectMap(state, "status.state"));
    if (Present(state)) BASALT_RETURN_IF_ERROR(ReadString(state, "phase", "status.state", &job->phase));
    BASALT_RETURN_IF_ERROR(ReadInt(st, "retryCount", "status", &job->retry_count, 0, INT32_MAX));
    BASALT_RETURN_IF_ERROR(ReadInt(st, "version", "status", &job->version, 0, INT32_MAX));
  }
  if (job->phase.empty()) job->phase = "Pending";
  return Status::Ok();
}

bool IsOwnerKind(const std::string& api_version, const std::string& kind) {
  if (api_version == "apps/v1") {
    return kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet";
  }
  if (api_version == "batch/v1") return kind == "Job" || kind == "CronJob";
  return false;
}

std::string DocLabel(const YAML::Node& doc, const std::string& kind) {
  YAML::Node m = doc["metadata"];
  std::string label = kind;
  if (m && m.IsMap()) {
    std::string ns, name;
    if (m["namespace"] && m["namespace"].IsScalar()) ns = m["namespace"].Scalar();
    if (m["name"] && m["name"].IsScalar()) name = m["name"].Scalar();
    if (!name.empty()) label += " " + (ns.empty() ? name : ns + "/" + name);
  }
  return label;
}

}  // namespace

Status DecodeObject(const YAML::Node& doc, const std::string& source, ClusterObjects* out) {
  if (!doc.IsMap()) return Status::InvalidArgument(source + ": expected an object, got " + KindOf(doc));
  std::string kind, api_version;
  if (doc["kind"] && doc["kind"].IsScalar()) kind = doc["kind"].Scalar();
  if (doc["apiVersion"] && doc["apiVersion"].IsScalar()) api_version = doc["apiVersion"].Scalar();
  if (kind.empty()) return Status::InvalidArgument(source + ": kind: missing");
  if (kind == "List") {
    YAML::Node items = doc["items"];
    if (items && !items.IsNull() && !items.IsSequence()) {
      return Status::InvalidArgument(source + ": List: items: expected a list, got " + KindOf(items));
    }
    if (!items || items.IsNull()) return Status::Ok();
    for (size_t i = 0; i < items.size(); ++i) {
      BASALT_RETURN_IF_ERROR(DecodeObject(items[i], source + " items[" + std::to_string(i) + "]", out));
    }
    return Status::Ok();
  }
  std::string context = source + ": " + DocLabel(doc, kind);
  auto expect_group = [&](std::initializer_list<const char*> versions) -> Status {
    for (const char* v : versions) {
      if (api_version == v) return Status::Ok();
    }
    std::string want;
    for (const char* v : versions) want += std::string(want.empty() ? "" : " or ") + v;
    return Status::InvalidArgument(context + ": apiVersion: \"" + api_version + "\" is not supported for " +
                                   kind + " (want " + want + ")");
  };
  Status st;
  if (kind == "Pod") {
    BASALT_RETURN_IF_ERROR(expect_group({"v1"}));
    Pod pod;
    pod.meta.source = source;
    st = DecodePod(doc, &pod);
    if (st.ok()) out->pods.push_back(std::move(pod));
  } else if (kind == "Node") {
    BASALT_RETURN_IF_ERROR(expect_group({"v1"}));
    Node node;
    node.meta.source = source;
    st = DecodeNode(doc, &node);
    if (st.ok()) out->nodes.push_back(std::move(node));
  } else if (kind == "PriorityClass") {
    BASALT_RETURN_IF_ERROR(expect_group({"scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1"}));
    PriorityClass pc;
    pc.meta.source = source;
    st = DecodePriorityClass(doc, &pc);
    if (st.ok()) out->priority_classes.push_back(std::move(pc));
  } else if (kind == "Queue") {
    BASALT_RETURN_IF_ERROR(expect_group({"scheduling.volcano.sh/v1beta1"}));
    Queue q;
    q.meta.source = source;
    st = DecodeQueue(doc, &q);
    if (st.ok()) out->queues.push_back(std::move(q));
  } else if (kind == "PodGroup") {
    BASALT_RETURN_IF_ERROR(expect_group({"scheduling.volcano.sh/v1beta1"}));
    PodGroup pg;
    pg.meta.source = source;
    st = DecodePodGroup(doc, &pg);
    if (st.ok()) out->podgroups.push_back(std::move(pg));
  } else if (kind == "Job" && api_version == "batch.volcano.sh/v1alpha1") {
    VcJob job;
    job.meta.source = source;
    st = DecodeVcJob(doc, &job);
    if (st.ok()) out->jobs.push_back(std::move(job));
  } else if (IsOwnerKind(api_version, kind)) {
    OwnerObject o;
    o.api_version = api_version;
    o.kind = kind;
    o.meta.source = source;
    st = DecodeMeta(doc, true, &o.meta);
    if (st.ok()) out->owners.push_back(std::move(o));
  } else if (kind == "Namespace" && api_version == "v1") {
    ObjectMeta meta;
    meta.source = source;
    st = DecodeMeta(doc, false, &meta);
    if (st.ok()) out->namespaces.push_back(std::move(meta));
  } else {
    return Status::InvalidArgument(
        context + ": kind: unsupported kind \"" + kind + "\" with apiVersion \"" + api_version +
        "\" (supported: v1 Node, Pod, Namespace; scheduling.k8s.io/v1 PriorityClass; "
        "scheduling.volcano.sh/v1beta1 Queue, PodGroup; batch.volcano.sh/v1alpha1 Job; "
        "apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job, CronJob)");
  }
  return st.WithContext(context);
}

Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) + ": malformed YAML/JSON: " + e.msg);
  }
  for (size_t i = 0; i < docs.size(); ++i) {
    const YAML::Node& d = docs[i];
    if (!d || d.IsNull()) continue;  // empty documents ("---" at the end)
    std::string source = file + ":" + std::to_string(d.Mark().line + 1);
    try {
      BASALT_RETURN_IF_ERROR(DecodeObject(d, source, out));
    } catch (const YAML::Exception& e) {
      return Status::InvalidArgument(source + ": malformed document: " + e.msg);
    }
  }
  return Status::Ok();
}

Status LoadPath(const std::string& path, ClusterObjects* out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status fst = fs::status(path, ec);
  if (ec || !fs::exists(fst)) return Status::NotFound(path + ": no such file or folder");
  std::vector<std::string> files;
  if (fs::is_directory(fst)) {
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      std::string ext = it->path().extension().string();
      if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(it->path().string());
    }
    if (ec) return Status::InvalidArgument(path + ": cannot list folder: " + ec.message());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) return Status::NotFound(f + ": cannot read file");
    std::stringstream ss;
    ss << in.rdbuf();
    BASALT_RETURN_IF_ERROR(DecodeText(ss.str(), f, out));
  }
  return Status::Ok();
}

}  // namespace basalt
