#include "api/object_rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "api/decode.h"
#include "api/job_plugin_args.h"
#include "api/log.h"

namespace basalt {
namespace {

// ---- names (k8s.io/apimachinery/pkg/util/validation) ----

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

constexpr char kLabelMessage[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
constexpr char kSubdomainMessage[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com')";

// One dot-free segment of a label or subdomain: [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool IsLabelShape(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// ---- unknown fields: the schema of the parts basalt knows, per kind ----

using FieldSet = std::set<std::string_view>;

const FieldSet& MetadataFields() {
  static const FieldSet k = {"name",
                             "generateName",
                             "namespace",
                             "selfLink",
                             "uid",
                             "resourceVersion",
                             "generation",
                             "creationTimestamp",
                             "deletionTimestamp",
                             "labels",
                             "annotations",
                             "deletionGracePeriodSeconds",
                             "finalizers",
                             "ownerReferences",
                             "managedFields"};
  return k;
}

const FieldSet& ObjectFields() {
  static const FieldSet k = {"apiVersion", "kind", "metadata", "spec", "status"};
  return k;
}

// core/v1 PodSpec, every field of the current API.
const FieldSet& PodSpecFields() {
  static const FieldSet k = {"volumes",
                             "initContainers",
                             "containers",
                             "ephemeralContainers",
                             "restartPolicy",
                             "terminationGracePeriodSeconds",
                             "activeDeadlineSeconds",
                             "dnsPolicy",
                             "nodeSelector",
                             "serviceAccountName",
                             "serviceAccount",
                             "automountServiceAccountToken",
                             "nodeName",
                             "hostNetwork",
                             "hostPID",
                             "hostIPC",
                             "shareProcessNamespace",
                             "securityContext",
                             "imagePullSecrets",
                             "hostname",
                             "hostnameOverride",
                             "subdomain",
                             "affinity",
                             "schedulerName",
                             "tolerations",
                             "hostAliases",
                             "priorityClassName",
                             "priority",
                             "dnsConfig",
                             "readinessGates",
                             "runtimeClassName",
                             "enableServiceLinks",
                             "preemptionPolicy",
                             "overhead",
                             "topologySpreadConstraints",
                             "setHostnameAsFQDN",
                             "os",
                             "hostUsers",
                             "schedulingGates",
                             "resourceClaims",
                             "resources",
                             "workloadRef"};
  return k;
}

// core/v1 Container (ephemeral containers add targetContainerName).
const FieldSet& ContainerFields() {
  static const FieldSet k = {"name",
                             "image",
                             "command",
                             "args",
                             "workingDir",
                             "ports",
                             "envFrom",
                             "env",
                             "resources",
                             "resizePolicy",
                             "restartPolicy",
                             "restartPolicyRules",
                             "volumeMounts",
                             "volumeDevices",
                             "livenessProbe",
                             "readinessProbe",
                             "startupProbe",
                             "lifecycle",
                             "terminationMessagePath",
                             "terminationMessagePolicy",
                             "imagePullPolicy",
                             "securityContext",
                             "stdin",
                             "stdinOnce",
                             "tty",
                             "targetContainerName"};
  return k;
}

const FieldSet& ResourcesFields() {
  static const FieldSet k = {"limits", "requests", "claims"};
  return k;
}

const FieldSet& NodeSpecFields() {
  static const FieldSet k = {"podCIDR", "podCIDRs",     "providerID", "unschedulable",
                             "taints",  "configSource", "externalID"};
  return k;
}

// scheduling.volcano.sh/v1beta1 QueueSpec and PodGroupSpec.
const FieldSet& QueueSpecFields() {
  static const FieldSet k = {"weight",    "capability", "reclaimable",    "extendClusters",
                             "guarantee", "affinity",   "type",           "parent",
                             "deserved",  "priority",   "dequeueStrategy"};
  return k;
}

const FieldSet& PodGroupSpecFields() {
  static const FieldSet k = {"minMember",         "minTaskMember", "queue",
                             "priorityClassName", "minResources",  "networkTopology",
                             "subGroupPolicy"};
  return k;
}

// batch.volcano.sh/v1alpha1 JobSpec and TaskSpec.
const FieldSet& JobSpecFields() {
  static const FieldSet k = {"schedulerName",     "minAvailable",
                             "volumes",           "tasks",
                             "policies",          "plugins",
                             "runningEstimate",   "queue",
                             "maxRetry",          "ttlSecondsAfterFinished",
                             "priorityClassName", "minSuccess",
                             "networkTopology"};
  return k;
}

const FieldSet& TaskSpecFields() {
  static const FieldSet k = {"name",     "replicas",       "template",
                             "policies", "topologyPolicy", "minAvailable",
                             "maxRetry", "dependsOn",      "partitionPolicy"};
  return k;
}

const FieldSet& PodTemplateFields() {
  static const FieldSet k = {"metadata", "spec"};
  return k;
}

// Top-level fields of the kinds whose fields are not all under spec/status.
const FieldSet& TopFields(const std::string& kind) {
  static const FieldSet kPriorityClass = {"apiVersion",      "kind",          "metadata",
                                          "value",           "globalDefault", "description",
                                          "preemptionPolicy"};
  static const FieldSet kCommand = {"apiVersion", "kind",   "metadata", "action",
                                    "target",     "reason", "message"};
  static const FieldSet kList = {"apiVersion", "kind", "metadata", "items"};
  if (kind == "PriorityClass") return kPriorityClass;
  if (kind == "Command") return kCommand;
  if (kind == "List") return kList;
  return ObjectFields();
}

// Collects the findings of one document.
class DocReport {
 public:
  DocReport(std::vector<RuleFinding>* out, const std::string& source, const std::string& label)
      : out_(out), source_(source), label_(label) {}
  void Add(std::string field, std::string message, RuleSeverity in_validate, RuleSeverity in_run) {
    out_->push_back({source_, label_, std::move(field), std::move(message), in_validate, in_run});
  }

 private:
  std::vector<RuleFinding>* out_;
  const std::string& source_;
  const std::string& label_;
};

std::string Child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string Item(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Warns about every key of the mapping `node` not in `known`.
void UnknownKeys(const YAML::Node& node, const std::string& path, const FieldSet& known,
                 DocReport& r) {
  if (!node || !node.IsMap()) return;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) continue;
    const std::string& key = kv.first.Scalar();
    if (known.count(key)) continue;
    const std::string field = Child(path, key);
    r.Add(field, "unknown field \"" + field + "\"", RuleSeverity::kWarning, RuleSeverity::kWarning);
  }
}

// A resource name Kubernetes calls extended: a domain-prefixed name outside
// the kubernetes.io domains (and not a quota "requests." name).
bool IsExtendedResource(const std::string& name) {
  return name.find('/') != std::string::npos && name.find("kubernetes.io/") == std::string::npos &&
         name.rfind("requests.", 0) != 0;
}

std::string ScalarText(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : ""; }

// Extended resources count whole devices: Kubernetes refuses "0.5".
void CheckWholeExtended(const YAML::Node& list, const std::string& path, DocReport& r) {
  if (!list || !list.IsMap()) return;
  for (const auto& kv : list) {
    const std::string name = ScalarText(kv.first);
    if (!IsExtendedResource(name)) continue;
    YAML::Node one;
    one[name] = kv.second;
    auto decoded = DecodeResourceList(one, path);
    if (!decoded.ok()) continue;
    for (const auto& [id, milli] : decoded->scalars()) {
      if (milli % 1000 == 0) continue;
      r.Add(path + "[" + name + "]",
            "Invalid value: \"" + ScalarText(kv.second) + "\": must be an integer",
            RuleSeverity::kError, RuleSeverity::kError);
    }
  }
}

// A container's requests must not exceed its limits, resource by resource.
void CheckRequestsWithinLimits(const YAML::Node& resources, const std::string& path, DocReport& r) {
  const YAML::Node requests = resources["requests"], limits = resources["limits"];
  if (!requests || !limits || !requests.IsMap() || !limits.IsMap()) return;
  for (const auto& kv : requests) {
    const std::string name = ScalarText(kv.first);
    const YAML::Node limit = limits[name];
    if (!limit) continue;
    YAML::Node req_one, lim_one;
    req_one[name] = kv.second;
    lim_one[name] = limit;
    auto req = DecodeResourceList(req_one, path);
    auto lim = DecodeResourceList(lim_one, path);
    if (!req.ok() || !lim.ok()) continue;
    const bool over = req->milli_cpu() > lim->milli_cpu() || req->memory() > lim->memory() ||
                      std::any_of(req->scalars().begin(), req->scalars().end(),
                                  [&](const auto& s) { return s.second > lim->Get(s.first); });
    if (!over) continue;
    r.Add(Child(path, "requests") + "[" + name + "]",
          "Invalid value: \"" + ScalarText(kv.second) + "\": must be less than or equal to " +
              name + " limit of " + ScalarText(limit),
          RuleSeverity::kError, RuleSeverity::kError);
  }
}

void CheckContainers(const YAML::Node& spec, const char* key, const std::string& path,
                     DocReport& r) {
  const YAML::Node list = spec[key];
  if (!list || !list.IsSequence()) return;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string cpath = Item(Child(path, key), i);
    const YAML::Node c = list[i];
    if (!c.IsMap()) continue;
    UnknownKeys(c, cpath, ContainerFields(), r);
    const YAML::Node res = c["resources"];
    if (!res || !res.IsMap()) continue;
    const std::string rpath = Child(cpath, "resources");
    UnknownKeys(res, rpath, ResourcesFields(), r);
    CheckWholeExtended(res["requests"], Child(rpath, "requests"), r);
    CheckWholeExtended(res["limits"], Child(rpath, "limits"), r);
    CheckRequestsWithinLimits(res, rpath, r);
  }
}

// Placement rules of the pod spec that basalt's predicates do not enforce
// yet: a warning, never silence, because the pod may be placed against them.
void WarnUnenforcedPlacementRules(const YAML::Node& spec, const std::string& path, DocReport& r) {
  const YAML::Node affinity = spec["affinity"];
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    if (!affinity || !affinity.IsMap() || !affinity[kind] || !affinity[kind].IsMap()) continue;
    const YAML::Node required = affinity[kind]["requiredDuringSchedulingIgnoredDuringExecution"];
    if (!required || !required.IsSequence() || required.size() == 0) continue;
    r.Add(Child(Child(Child(path, "affinity"), kind),
                "requiredDuringSchedulingIgnoredDuringExecution"),
          "basalt does not enforce inter-pod affinity yet: the pod may be placed against it",
          RuleSeverity::kWarning, RuleSeverity::kWarning);
  }
  const YAML::Node spread = spec["topologySpreadConstraints"];
  if (!spread || !spread.IsSequence()) return;
  for (size_t i = 0; i < spread.size(); ++i) {
    const YAML::Node when = spread[i].IsMap() ? spread[i]["whenUnsatisfiable"] : YAML::Node();
    if (!when || !when.IsScalar() || when.Scalar() != "DoNotSchedule") continue;
    r.Add(Child(path, "topologySpreadConstraints") + "[" + std::to_string(i) + "]",
          "basalt does not enforce topology spread constraints yet: the pod may be placed "
          "against it",
          RuleSeverity::kWarning, RuleSeverity::kWarning);
  }
}

void CheckPodSpec(const YAML::Node& spec, const std::string& path, DocReport& r) {
  if (!spec || !spec.IsMap()) {
    r.Add(Child(path, "containers"), "Required value", RuleSeverity::kError, RuleSeverity::kError);
    return;
  }
  UnknownKeys(spec, path, PodSpecFields(), r);
  const YAML::Node containers = spec["containers"];
  if (!containers || !containers.IsSequence() || containers.size() == 0) {
    r.Add(Child(path, "containers"), "Required value", RuleSeverity::kError, RuleSeverity::kError);
  }
  CheckContainers(spec, "initContainers", path, r);
  CheckContainers(spec, "containers", path, r);
  WarnUnenforcedPlacementRules(spec, path, r);
}

// Job plugin arguments Volcano would only log (api/job_plugin_args.h): a
// warning everywhere, as the job runs on Volcano all the same.
void CheckJobPluginArguments(const YAML::Node& plugins, DocReport& r) {
  if (!plugins || !plugins.IsMap()) return;
  std::map<std::string, std::vector<std::string>> args;
  for (const auto& kv : plugins) {
    if (!kv.first.IsScalar()) continue;
    std::vector<std::string>& list = args[kv.first.Scalar()];
    if (!kv.second.IsSequence()) continue;
    for (const YAML::Node& item : kv.second) {
      if (item.IsScalar()) list.push_back(item.Scalar());
    }
  }
  for (const JobPluginArgProblem& p : JobPluginArgumentProblems(args))
    r.Add(p.field, p.message, RuleSeverity::kWarning, RuleSeverity::kWarning);
}

void CheckVcJob(const YAML::Node& doc, DocReport& r) {
  const YAML::Node spec = doc["spec"];
  if (!spec || !spec.IsMap()) return;
  UnknownKeys(spec, "spec", JobSpecFields(), r);
  CheckJobPluginArguments(spec["plugins"], r);
  const YAML::Node tasks = spec["tasks"];
  if (!tasks || !tasks.IsSequence()) return;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string tpath = Item("spec.tasks", i);
    const YAML::Node t = tasks[i];
    UnknownKeys(t, tpath, TaskSpecFields(), r);
    const YAML::Node tmpl = t["template"];
    if (!tmpl || !tmpl.IsMap()) continue;
    const std::string ppath = Child(tpath, "template");
    UnknownKeys(tmpl, ppath, PodTemplateFields(), r);
    UnknownKeys(tmpl["metadata"], Child(ppath, "metadata"), MetadataFields(), r);
    // Volcano's job webhook validates each template as a pod template.
    CheckPodSpec(tmpl["spec"], Child(ppath, "spec"), r);
  }
}

// ---- object rules ----

class ObjectReport {
 public:
  explicit ObjectReport(std::vector<RuleFinding>* out) : out_(out) {}
  void Add(const std::string& source, const std::string& object, std::string field,
           std::string message, RuleSeverity in_validate, RuleSeverity in_run) {
    out_->push_back({source, object, std::move(field), std::move(message), in_validate, in_run});
  }

 private:
  std::vector<RuleFinding>* out_;
};

std::string JoinErrors(const std::vector<std::string>& errs) {
  std::string out;
  for (const std::string& e : errs) out += (out.empty() ? "" : "; ") + e;
  return out;
}

// A name as Kubernetes quotes it in a message: printable ASCII as is, other
// bytes escaped, and long names cut (a 10,000-byte name is no use on a line).
std::string Printable(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size() && i < 80; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 80) out += "...(" + std::to_string(s.size()) + " bytes)";
  return "\"" + out + "\"";
}

std::string ObjectLabel(const std::string& kind, const ObjectMeta& meta) {
  const std::string key = Printable(meta.Key());
  return kind + " " + key.substr(1, key.size() - 2);
}

// metadata.name (a subdomain or, for namespaces, a label) and
// metadata.namespace (always a label) of one object.
enum class NameRule { kSubdomain, kLabel, kCheckedElsewhere };

void CheckNames(const std::string& kind, const ObjectMeta& meta, NameRule rule, ObjectReport& r) {
  const std::string object = ObjectLabel(kind, meta);
  std::vector<std::string> errs;
  if (rule == NameRule::kSubdomain) errs = Dns1123SubdomainErrors(meta.name);
  if (rule == NameRule::kLabel) errs = Dns1123LabelErrors(meta.name);
  if (!errs.empty()) {
    r.Add(meta.source, object, "metadata.name",
          "Invalid value: " + Printable(meta.name) + ": " + JoinErrors(errs), RuleSeverity::kError,
          RuleSeverity::kError);
  }
  if (meta.namespace_.empty()) return;
  errs = Dns1123LabelErrors(meta.namespace_);
  if (!errs.empty()) {
    r.Add(meta.source, object, "metadata.namespace",
          "Invalid value: " + Printable(meta.namespace_) + ": " + JoinErrors(errs),
          RuleSeverity::kError, RuleSeverity::kError);
  }
}

template <typename T>
void CheckAllNames(const std::vector<T>& objects, const std::string& kind, ObjectReport& r,
                   NameRule rule = NameRule::kSubdomain) {
  for (const T& o : objects) CheckNames(kind, o.meta, rule, r);
}

// The names of every object, by the rule of its kind.
void CheckAllObjectNames(const ClusterObjects& objects, ObjectReport& r) {
  CheckAllNames(objects.nodes, "Node", r);
  CheckAllNames(objects.pods, "Pod", r);
  CheckAllNames(objects.priority_classes, "PriorityClass", r);
  CheckAllNames(objects.queues, "Queue", r);
  CheckAllNames(objects.podgroups, "PodGroup", r);
  CheckAllNames(objects.hypernodes, "HyperNode", r);
  // Volcano's job webhook checks a Job's name with its own message (admission).
  CheckAllNames(objects.jobs, "Job", r, NameRule::kCheckedElsewhere);
  // Namespaces are DNS labels: at most 63 characters, no dots.
  for (const ObjectMeta& ns : objects.namespaces) CheckNames("Namespace", ns, NameRule::kLabel, r);
}

// The same name twice: the API server answers AlreadyExists for the second.
// `basalt schedule` already refuses this when it loads the objects.
template <typename T>
void CheckDuplicates(const std::vector<T>& objects, const std::string& kind, ObjectReport& r) {
  std::map<std::string, const T*> seen;
  for (const T& o : objects) {
    auto [it, fresh] = seen.emplace(o.meta.Key(), &o);
    if (fresh) continue;
    r.Add(o.meta.source, ObjectLabel(kind, o.meta), "metadata.name",
          "duplicate " + kind + " " + Printable(o.meta.Key()) + ": already defined at " +
              it->second->meta.source,
          RuleSeverity::kError, RuleSeverity::kError);
  }
}

// The classes the API server always has (the Priority admission plugin makes them).
bool IsSystemPriorityClass(const std::string& name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

void CheckPodReferences(const ClusterObjects& objects, ObjectReport& r) {
  std::set<std::string> classes, nodes;
  for (const PriorityClass& pc : objects.priority_classes) classes.insert(pc.meta.name);
  for (const Node& n : objects.nodes) nodes.insert(n.meta.name);
  for (const Pod& pod : objects.pods) {
    const std::string& pc = pod.spec.priority_class_name;
    if (!pc.empty() && !classes.count(pc) && !IsSystemPriorityClass(pc)) {
      r.Add(pod.meta.source, ObjectLabel("Pod", pod.meta), "spec.priorityClassName",
            "no PriorityClass with name " + pc +
                " was found (the API server's Priority "
                "admission refuses the pod)",
            RuleSeverity::kError, RuleSeverity::kError);
    }
    const std::string& node = pod.spec.node_name;
    if (!node.empty() && !nodes.count(node)) {
      r.Add(pod.meta.source, ObjectLabel("Pod", pod.meta), "spec.nodeName",
            "node " + Printable(node) +
                " does not exist: no kubelet runs this pod, so it holds no node's resources "
                "(its recorded phase is kept, and its gang counts it, as in Volcano)",
            RuleSeverity::kWarning, RuleSeverity::kWarning);
    }
  }
}

}  // namespace

std::pair<std::string, int64_t> SplitSourceLine(const std::string& source) {
  size_t colon = source.rfind(':');
  if (colon == std::string::npos || colon + 1 == source.size() || source.size() - colon > 12)
    return {source, -1};
  int64_t line = 0;
  for (size_t i = colon + 1; i < source.size(); ++i) {
    if (source[i] < '0' || source[i] > '9') return {source, -1};
    line = line * 10 + (source[i] - '0');
  }
  return {source.substr(0, colon), line};
}

std::vector<std::string> Dns1123LabelErrors(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back("must be no more than 63 characters");
  if (!IsLabelShape(s)) errs.push_back(kLabelMessage);
  return errs;
}

std::vector<std::string> Dns1123SubdomainErrors(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 253) errs.push_back("must be no more than 253 characters");
  bool shape = !s.empty();
  size_t start = 0;
  while (shape) {
    size_t dot = s.find('.', start);
    shape = IsLabelShape(
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!shape) errs.push_back(kSubdomainMessage);
  return errs;
}

void CheckDocument(const YAML::Node& doc, const std::string& kind, const std::string& source,
                   const std::string& label, std::vector<RuleFinding>* out) {
  if (!doc.IsMap()) return;
  DocReport r(out, source, label);
  UnknownKeys(doc, "", TopFields(kind), r);
  UnknownKeys(doc["metadata"], "metadata", MetadataFields(), r);
  const std::string api_version = ScalarText(doc["apiVersion"]);
  if (kind == "Pod") {
    CheckPodSpec(doc["spec"], "spec", r);
  } else if (kind == "Node") {
    UnknownKeys(doc["spec"], "spec", NodeSpecFields(), r);
  } else if (kind == "Queue") {
    UnknownKeys(doc["spec"], "spec", QueueSpecFields(), r);
  } else if (kind == "PodGroup") {
    UnknownKeys(doc["spec"], "spec", PodGroupSpecFields(), r);
  } else if (kind == "Job" && api_version == "batch.volcano.sh/v1alpha1") {
    CheckVcJob(doc, r);
  }
}

std::vector<RuleFinding> CheckObjectRules(const ClusterObjects& objects, RuleScope scope) {
  std::vector<RuleFinding> out;
  for (const RuleFinding& f : objects.findings) {
    // Unknown fields never reach a webhook: the API server prunes them.
    if (scope.whole_cluster || f.in_validate == RuleSeverity::kError) out.push_back(f);
  }
  ObjectReport r(&out);
  // A webhook sees names the API server has checked (or not generated yet).
  if (scope.whole_cluster) CheckAllObjectNames(objects, r);
  if (scope.whole_cluster && scope.duplicates) {
    CheckDuplicates(objects.nodes, "Node", r);
    CheckDuplicates(objects.priority_classes, "PriorityClass", r);
  }
  if (scope.whole_cluster) CheckPodReferences(objects, r);
  std::stable_sort(out.begin(), out.end(), [](const RuleFinding& a, const RuleFinding& b) {
    auto sa = SplitSourceLine(a.source), sb = SplitSourceLine(b.source);
    if (sa != sb) return sa < sb;
    return a.object < b.object;
  });
  return out;
}

std::vector<std::string> RunErrorsAfterWarnings(const ClusterObjects& objects) {
  std::vector<std::string> errors;
  // The store refuses duplicates itself, with its own message.
  for (const RuleFinding& f :
       CheckObjectRules(objects, {.whole_cluster = true, .duplicates = false})) {
    if (f.in_run == RuleSeverity::kError) {
      errors.push_back(f.ToString());
    } else {
      CliLog().warn("warning: {}", f.ToString());
    }
  }
  return errors;
}

}  // namespace basalt
