#include "live/admission_review.h"

#include <openssl/evp.h>

#include <exception>
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "admission/admission.h"
#include "api/decode.h"

namespace basalt {
namespace {

using Json = nlohmann::json;

// The decoder names the request's object "request:1" (file "request", line 1:
// the JSON is dumped on one line); messages lose that prefix.
constexpr char kSourceFile[] = "request";
// Deeper JSON is refused before anything walks it recursively.
constexpr int kMaxJsonDepth = 200;
constexpr char kQueueNameAnnotation[] = "scheduling.volcano.sh/queue-name";
constexpr int32_t kDefaultMaxRetry = 3;

struct Request {
  std::string api_version;  // echoed in the reply
  std::string uid;
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  std::string name;
  std::string namespace_;
  Json object;      // null for DELETE
  Json old_object;  // null for CREATE
};

// The outcome of one review.
struct Verdict {
  bool allowed = true;
  std::string message;  // why not allowed
  Json patch = Json::array();
  std::vector<std::string> warnings;
};

Verdict Refuse(std::string message) {
  Verdict v;
  v.allowed = false;
  v.message = std::move(message);
  return v;
}

std::string Base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(n);
  return out;
}

// "request:1: Queue q: spec.weight: ..." -> "Queue q: spec.weight: ...".
std::string StripSource(const std::string& message) {
  const std::string prefix = std::string(kSourceFile) + ":";
  if (message.rfind(prefix, 0) != 0) return message;
  size_t i = prefix.size();
  while (i < message.size() &&
         (std::isdigit(static_cast<unsigned char>(message[i])) || message[i] == ':')) {
    ++i;
  }
  while (i < message.size() && message[i] == ' ') ++i;
  return message.substr(i);
}

// ---- the AdmissionReview envelope ----

std::string StringField(const Json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_string() ? it->get<std::string>() : "";
}

Result<Json> ParseJson(const std::string& body) {
  bool too_deep = false;
  Json::parser_callback_t limit_depth = [&too_deep](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  Json j = Json::parse(body, limit_depth, /*allow_exceptions=*/false);
  if (too_deep) {
    return Status::InvalidArgument("malformed AdmissionReview: JSON nested deeper than " +
                                   std::to_string(kMaxJsonDepth) + " levels");
  }
  if (j.is_discarded()) return Status::InvalidArgument("malformed AdmissionReview: not JSON");
  return j;
}

Result<Request> ParseRequest(const std::string& body) {
  BASALT_ASSIGN_OR_RETURN(Json j, ParseJson(body));
  if (!j.is_object()) return Status::InvalidArgument("malformed AdmissionReview: not an object");
  Request r;
  r.api_version = StringField(j, "apiVersion");
  if (r.api_version != "admission.k8s.io/v1" && r.api_version != "admission.k8s.io/v1beta1") {
    return Status::InvalidArgument(
        "malformed AdmissionReview: apiVersion must be admission.k8s.io/v1, got \"" +
        r.api_version + "\"");
  }
  if (StringField(j, "kind") != "AdmissionReview")
    return Status::InvalidArgument("malformed AdmissionReview: kind must be AdmissionReview");
  auto req = j.find("request");
  if (req == j.end() || !req->is_object())
    return Status::InvalidArgument("malformed AdmissionReview: request: missing");
  r.uid = StringField(*req, "uid");
  if (r.uid.empty())
    return Status::InvalidArgument("malformed AdmissionReview: request.uid: missing");
  r.operation = StringField(*req, "operation");
  r.name = StringField(*req, "name");
  r.namespace_ = StringField(*req, "namespace");
  for (auto [key, dest] : {std::pair{"object", &r.object}, {"oldObject", &r.old_object}}) {
    auto it = req->find(key);
    if (it == req->end() || it->is_null()) continue;
    if (!it->is_object()) {
      return Status::InvalidArgument(std::string("malformed AdmissionReview: request.") + key +
                                     ": not an object");
    }
    *dest = *it;
  }
  return r;
}

Json ReplyJson(const Request& req, const Verdict& v) {
  Json response = {{"uid", req.uid}, {"allowed", v.allowed}};
  if (!v.allowed) {
    response["status"] = {
        {"status", "Failure"}, {"code", 400}, {"reason", "BadRequest"}, {"message", v.message}};
  }
  if (!v.patch.empty()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = Base64(v.patch.dump());
  }
  if (!v.warnings.empty()) response["warnings"] = v.warnings;
  return {{"apiVersion", req.api_version}, {"kind", "AdmissionReview"}, {"response", response}};
}

// ---- validation: the rules of `basalt validate` ----

constexpr RuleScope kThisObjectOnly{.whole_cluster = false, .duplicates = false};

// Decodes the request's object; it must be exactly one object of `kind`.
template <typename T>
Result<ClusterObjects> DecodeOne(const Json& object, const char* kind,
                                 std::vector<T> ClusterObjects::*member) {
  if (!object.is_object())
    return Status::InvalidArgument(std::string("request.object: missing (expected a ") + kind +
                                   ")");
  ClusterObjects objs;
  Status s = DecodeText(object.dump(), kSourceFile, &objs);
  if (!s.ok()) return Status::InvalidArgument(StripSource(s.message()));
  if ((objs.*member).size() != 1) {
    return Status::InvalidArgument(std::string("request.object: expected a ") + kind + ", got " +
                                   StringField(object, "apiVersion") + " " +
                                   StringField(object, "kind"));
  }
  return objs;
}

// The problems `basalt validate` finds in the object from `source`, one line
// each, as it prints them minus `file:line: `. `skip_field` leaves fields out.
// The rules that need the rest of the cluster (a pod's PriorityClass and node)
// are the API server's, which has already applied them; unknown fields never
// reach a webhook (the API server prunes them), so nothing is warned about.
std::string ProblemsOf(const ClusterObjects& objs, const std::string& source,
                       const std::function<bool(const std::string&)>& skip_field = nullptr) {
  std::string out;
  for (const AdmissionProblem& p : ValidateObjects(objs, kThisObjectOnly)) {
    if (p.source != source || (skip_field && skip_field(p.field))) continue;
    out += (out.empty() ? "" : "\n") + p.object + ": " + p.field + ": " + p.message;
  }
  return out;
}

Verdict FromProblems(std::string problems) {
  return problems.empty() ? Verdict{} : Refuse(std::move(problems));
}

// The cluster's queues, with `replaced` (the object under review) left out.
Result<std::vector<Queue>> OtherQueues(AdmissionLookup& lookup, const std::string& replaced) {
  auto queues = lookup.Queues();
  if (!queues.ok())
    return Status::Unavailable("cannot read the cluster's queues: " + queues.status().message());
  std::vector<Queue> out;
  for (Queue& q : *queues) {
    if (q.meta.name != replaced) out.push_back(std::move(q));
  }
  return out;
}

// Volcano lets a job update change only the sizes and the priority class.
std::string JobUpdateProblem(const Json& old_object, const Json& object, const std::string& who) {
  auto frozen = [](const Json& obj) {
    Json spec = obj.is_object() && obj.contains("spec") ? obj["spec"] : Json();
    if (!spec.is_object()) return spec;
    spec.erase("minAvailable");
    spec.erase("priorityClassName");
    if (auto t = spec.find("tasks"); t != spec.end() && t->is_array()) {
      for (Json& task : *t) {
        if (!task.is_object()) continue;
        task.erase("replicas");
        task.erase("minAvailable");
      }
    }
    return spec;
  };
  Json old_spec = frozen(old_object), new_spec = frozen(object);
  auto task_count = [](const Json& spec) {
    return spec.is_object() && spec.contains("tasks") && spec["tasks"].is_array()
               ? spec["tasks"].size()
               : 0;
  };
  if (task_count(old_spec) != task_count(new_spec))
    return who + ": spec.tasks: job updates may not add or remove tasks";
  if (old_spec != new_spec) {
    return who +
           ": spec: job updates may not change fields other than `minAvailable`, "
           "`tasks[*].replicas` and `priorityClassName`";
  }
  return "";
}

Verdict ValidateJob(const Request& req, AdmissionLookup& lookup) {
  if (req.operation != "CREATE" && req.operation != "UPDATE") return {};
  auto objs = DecodeOne(req.object, "Job", &ClusterObjects::jobs);
  if (!objs.ok()) return Refuse(objs.status().message());
  auto queues = OtherQueues(lookup, "");
  if (!queues.ok()) return Refuse(queues.status().message());
  objs->queues = std::move(*queues);
  const VcJob& job = objs->jobs[0];
  if (req.operation == "CREATE") return FromProblems(ProblemsOf(*objs, job.meta.source));
  // Volcano checks the queue at creation only: a job in a queue closed since
  // can still be resized.
  std::string problems =
      ProblemsOf(*objs, job.meta.source, [](const std::string& f) { return f == "spec.queue"; });
  std::string frozen = JobUpdateProblem(req.old_object, req.object, "Job " + job.meta.Key());
  if (!frozen.empty()) problems += (problems.empty() ? "" : "\n") + frozen;
  return FromProblems(std::move(problems));
}

Verdict ValidateQueueDelete(const Request& req, AdmissionLookup& lookup) {
  std::string name = req.name;
  if (name.empty() && req.old_object.is_object() && req.old_object.contains("metadata"))
    name = StringField(req.old_object["metadata"], "name");
  if (name == "default" || name == "root")
    return Refuse("Queue " + name + ": `" + name + "` queue can not be deleted");
  auto queues = lookup.Queues();
  if (!queues.ok()) return Refuse("cannot read the cluster's queues: " + queues.status().message());
  std::vector<std::string> children;
  for (const Queue& q : *queues) {
    if (q.parent == name) children.push_back(q.meta.name);
  }
  if (children.empty()) return {};
  std::string list;
  for (const std::string& c : children) list += (list.empty() ? "" : ", ") + c;
  return Refuse("Queue " + name + ": queue " + name + " can not be deleted because it has " +
                std::to_string(children.size()) + " child queues: " + list);
}

// As Volcano on UPDATE: the parent rules run only when spec.parent changed,
// the hierarchical resource rules only when the parent or a resource list
// (capability, deserved, guarantee) changed. Returns the fields to leave out.
std::function<bool(const std::string&)> QueueUpdateSkips(const Json& old_object,
                                                         const Json& object) {
  auto part = [](const Json& q, std::initializer_list<const char*> path) {
    const Json* at = &q;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key)) return Json();
      at = &(*at)[key];
    }
    return *at;
  };
  const bool parent_same = part(old_object, {"spec", "parent"}) == part(object, {"spec", "parent"});
  bool resources_same = parent_same;
  for (auto path : {std::initializer_list<const char*>{"spec", "capability"},
                    std::initializer_list<const char*>{"spec", "deserved"},
                    std::initializer_list<const char*>{"spec", "guarantee", "resource"}}) {
    resources_same = resources_same && part(old_object, path) == part(object, path);
  }
  return [parent_same, resources_same](const std::string& field) {
    if (parent_same && field == "spec.parent") return true;
    return resources_same && (field.rfind("spec.capability.", 0) == 0 || field == "spec.deserved" ||
                              field == "spec.guarantee.resource");
  };
}

Verdict ValidateQueue(const Request& req, AdmissionLookup& lookup) {
  if (req.operation == "DELETE") return ValidateQueueDelete(req, lookup);
  if (req.operation != "CREATE" && req.operation != "UPDATE") return {};
  auto objs = DecodeOne(req.object, "Queue", &ClusterObjects::queues);
  if (!objs.ok()) return Refuse(objs.status().message());
  Queue queue = std::move(objs->queues[0]);
  auto queues = OtherQueues(lookup, queue.meta.name);
  if (!queues.ok()) return Refuse(queues.status().message());
  objs->queues = std::move(*queues);
  const std::string source = queue.meta.source;
  objs->queues.push_back(std::move(queue));
  if (req.operation == "CREATE") return FromProblems(ProblemsOf(*objs, source));
  return FromProblems(ProblemsOf(*objs, source, QueueUpdateSkips(req.old_object, req.object)));
}

Verdict ValidatePodGroup(const Request& req, AdmissionLookup& lookup) {
  if (req.operation != "CREATE") return {};
  auto objs = DecodeOne(req.object, "PodGroup", &ClusterObjects::podgroups);
  if (!objs.ok()) return Refuse(objs.status().message());
  auto queues = OtherQueues(lookup, "");
  if (!queues.ok()) return Refuse(queues.status().message());
  objs->queues = std::move(*queues);
  return FromProblems(ProblemsOf(*objs, objs->podgroups[0].meta.source));
}

std::string PodSchedulerName(const Json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return "default-scheduler";
  std::string name = StringField(*spec, "schedulerName");
  return name.empty() ? "default-scheduler" : name;
}

// Pods are everyone's: one the decoder cannot read is admitted (with a
// warning) rather than refused, and other schedulers' pods are not looked at.
Verdict ValidatePod(const Request& req, const AdmissionOptions& options) {
  if (req.operation != "CREATE" || !req.object.is_object()) return {};
  if (PodSchedulerName(req.object) != options.scheduler_name) return {};
  auto objs = DecodeOne(req.object, "Pod", &ClusterObjects::pods);
  if (!objs.ok()) {
    Verdict v;
    v.warnings.push_back("basalt could not read this pod: " + objs.status().message());
    return v;
  }
  return FromProblems(ProblemsOf(*objs, objs->pods[0].meta.source));
}

// flow.volcano.sh. A JobFlow: the decoder's rules, as `basalt validate`
// applies them (flows named and unique, targets naming its flows, no
// dependency cycle, jobRetainPolicy retain|delete); the templates it names may
// come later, as in Volcano.
Verdict ValidateJobFlow(const Request& req) {
  if (req.operation != "CREATE" && req.operation != "UPDATE") return {};
  auto objs = DecodeOne(req.object, "JobFlow", &ClusterObjects::job_flows);
  return objs.ok() ? Verdict{} : Refuse(objs.status().message());
}

// A JobTemplate at creation, as Volcano checks it: the Job rules but the
// queue's (a template runs nowhere; its jobs are checked when created).
Verdict ValidateJobTemplate(const Request& req) {
  if (req.operation != "CREATE") return {};
  auto objs = DecodeOne(req.object, "JobTemplate", &ClusterObjects::job_templates);
  if (!objs.ok()) return Refuse(objs.status().message());
  objs->jobs = std::move(objs->job_templates);
  objs->job_templates.clear();
  std::string out;
  for (const AdmissionProblem& p : ValidateObjects(*objs, kThisObjectOnly)) {
    if (p.field == "spec.queue") continue;
    std::string object = p.object;
    if (object.rfind("Job ", 0) == 0) object = "JobTemplate " + object.substr(4);
    out += (out.empty() ? "" : "\n") + object + ": " + p.field + ": " + p.message;
  }
  return FromProblems(std::move(out));
}

// topology.volcano.sh. A HyperNode: the decoder's rules (tier, members and
// their selectors: exactly one of exactMatch, regexMatch, labelMatch, a regex
// that compiles), admission's (at least one member), then the tree with the cluster's other
// HyperNodes (one parent, a child's tier below its parent's, no cycle).
Verdict ValidateHyperNode(const Request& req, AdmissionLookup& lookup) {
  if (req.operation != "CREATE" && req.operation != "UPDATE") return {};
  auto objs = DecodeOne(req.object, "HyperNode", &ClusterObjects::hypernodes);
  if (!objs.ok()) return Refuse(objs.status().message());
  if (std::string problems = ProblemsOf(*objs, objs->hypernodes[0].meta.source);
      !problems.empty()) {
    return Refuse(std::move(problems));
  }
  auto others = lookup.HyperNodes();
  if (!others.ok())
    return Refuse("cannot read the cluster's HyperNodes: " + others.status().message());
  std::map<std::string, HyperNode> tree;
  for (HyperNode& h : *others) tree[h.meta.name] = std::move(h);
  HyperNode& reviewed = objs->hypernodes[0];
  tree[reviewed.meta.name] = std::move(reviewed);
  Status st = ValidateHyperNodeTree(tree);
  return st.ok() ? Verdict{} : Refuse(StripSource(st.message()));
}

// batch.volcano.sh CronJobs, on CREATE and UPDATE alike (as Volcano):
// schedule, time zone, name (admission/cronjob_rules.h).
Verdict ValidateCronJob(const Request& req) {
  if (req.operation != "CREATE" && req.operation != "UPDATE") return {};
  auto objs = DecodeOne(req.object, "CronJob", &ClusterObjects::cron_jobs);
  if (!objs.ok()) return Refuse(objs.status().message());
  return FromProblems(ProblemsOf(*objs, objs->cron_jobs[0].meta.source));
}

// ---- mutation: Volcano's defaults as a JSON Patch ----

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string PointerToken(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

Json AddOp(const std::string& path, Json value) {
  return {{"op", "add"}, {"path", path}, {"value", std::move(value)}};
}

bool IsUnset(const Json& parent, const char* key) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return true;
  if (it->is_string()) return it->get<std::string>().empty();
  if (it->is_number()) return it->get<double>() == 0;
  return false;
}

int64_t IntOr(const Json& parent, const char* key, int64_t fallback) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// A task without minAvailable: minPartitions whole partitions when its
// partitionPolicy sets minPartitions, else every replica.
int64_t DefaultTaskMinAvailable(const Json& task) {
  auto pp = task.find("partitionPolicy");
  if (pp != task.end() && pp->is_object()) {
    const int64_t min_partitions = IntOr(*pp, "minPartitions", 0);
    if (min_partitions > 0) return min_partitions * IntOr(*pp, "partitionSize", 0);
  }
  return IntOr(task, "replicas", 0);
}

// Task defaults; returns whether anything changed. Job minAvailable is then
// the sum of the tasks' minAvailable.
bool DefaultTasks(Json& tasks, int64_t* min_available_sum) {
  bool changed = false;
  auto set = [&changed](Json& target, const char* key, Json value) {
    target[key] = std::move(value);
    changed = true;
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    Json& t = tasks[i];
    if (!t.is_object()) continue;
    if (IsUnset(t, "name")) set(t, "name", "default" + std::to_string(i));
    Json* pod_spec = t.contains("template") && t["template"].is_object() &&
                             t["template"].contains("spec") && t["template"]["spec"].is_object()
                         ? &t["template"]["spec"]
                         : nullptr;
    if (pod_spec != nullptr && pod_spec->value("hostNetwork", Json(false)) == Json(true) &&
        IsUnset(*pod_spec, "dnsPolicy")) {
      set(*pod_spec, "dnsPolicy", "ClusterFirstWithHostNet");
    }
    if (!t.contains("minAvailable") || t["minAvailable"].is_null())
      set(t, "minAvailable", DefaultTaskMinAvailable(t));
    if (IsUnset(t, "maxRetry")) set(t, "maxRetry", kDefaultMaxRetry);
    *min_available_sum += IntOr(t, "minAvailable", 0);
  }
  return changed;
}

// The mpi, tensorflow, pytorch and ray plugins need svc; mpi also needs ssh.
std::optional<Json> DefaultPlugins(const Json& spec) {
  auto it = spec.find("plugins");
  if (it == spec.end() || !it->is_object()) return std::nullopt;
  Json plugins = *it;
  if ((plugins.contains("mpi") || plugins.contains("tensorflow") || plugins.contains("pytorch") ||
       plugins.contains("ray")) &&
      !plugins.contains("svc")) {
    plugins["svc"] = Json::array();
  }
  if (plugins.contains("mpi") && !plugins.contains("ssh")) plugins["ssh"] = Json::array();
  if (plugins == *it) return std::nullopt;
  return plugins;
}

Verdict MutateJob(const Request& req, const AdmissionOptions& options) {
  Verdict v;
  if (req.operation != "CREATE" || !req.object.is_object()) return v;
  auto spec_it = req.object.find("spec");
  if (spec_it == req.object.end() || !spec_it->is_object()) return v;
  const Json& spec = *spec_it;
  if (IsUnset(spec, "queue")) v.patch.push_back(AddOp("/spec/queue", "default"));
  if (IsUnset(spec, "schedulerName"))
    v.patch.push_back(AddOp("/spec/schedulerName", options.scheduler_name));
  if (IsUnset(spec, "maxRetry")) v.patch.push_back(AddOp("/spec/maxRetry", kDefaultMaxRetry));
  int64_t min_available_sum = 0;
  if (auto t = spec.find("tasks"); t != spec.end() && t->is_array()) {
    Json tasks = *t;
    if (DefaultTasks(tasks, &min_available_sum))
      v.patch.push_back({{"op", "replace"}, {"path", "/spec/tasks"}, {"value", tasks}});
  }
  if (IsUnset(spec, "minAvailable"))
    v.patch.push_back(AddOp("/spec/minAvailable", min_available_sum));
  if (std::optional<Json> plugins = DefaultPlugins(spec))
    v.patch.push_back({{"op", "replace"}, {"path", "/spec/plugins"}, {"value", *plugins}});
  return v;
}

Verdict MutateQueue(const Request& req) {
  Verdict v;
  if (req.operation != "CREATE" || !req.object.is_object()) return v;
  const Json& q = req.object;
  const Json annotations = q.contains("metadata") && q["metadata"].is_object()
                               ? q["metadata"].value("annotations", Json::object())
                               : Json::object();
  const std::string hierarchy = StringField(annotations, "volcano.sh/hierarchy");
  const std::string weights = StringField(annotations, "volcano.sh/hierarchy-weights");
  if (!hierarchy.empty() && !weights.empty() && hierarchy.rfind("root", 0) != 0) {
    v.patch.push_back(AddOp("/metadata/annotations/" + PointerToken("volcano.sh/hierarchy"),
                            "root/" + hierarchy));
    v.patch.push_back(AddOp("/metadata/annotations/" + PointerToken("volcano.sh/hierarchy-weights"),
                            "1/" + weights));
  }
  const bool has_spec = q.contains("spec") && q["spec"].is_object();
  const Json spec = has_spec ? q["spec"] : Json::object();
  if (!has_spec) v.patch.push_back(AddOp("/spec", Json::object()));
  if (!spec.contains("reclaimable") || spec["reclaimable"].is_null())
    v.patch.push_back(AddOp("/spec/reclaimable", true));
  if (IsUnset(spec, "weight")) v.patch.push_back(AddOp("/spec/weight", 1));
  return v;
}

// A PodGroup without a queue goes to its namespace's queue
// (`scheduling.volcano.sh/queue-name`), else to `default`.
Verdict MutatePodGroup(const Request& req, AdmissionLookup& lookup) {
  Verdict v;
  if (req.operation != "CREATE" || !req.object.is_object()) return v;
  const Json& pg = req.object;
  const bool has_spec = pg.contains("spec") && pg["spec"].is_object();
  // The CRD defaults spec.queue to `default`; Volcano moves a PodGroup in
  // `default` (given or defaulted) to its namespace's queue.
  const bool in_default =
      has_spec && !IsUnset(pg["spec"], "queue") && StringField(pg["spec"], "queue") == "default";
  if (has_spec && !IsUnset(pg["spec"], "queue") && !in_default) return v;
  std::string ns = req.namespace_;
  if (ns.empty() && pg.contains("metadata") && pg["metadata"].is_object())
    ns = StringField(pg["metadata"], "namespace");
  std::string queue = "default";
  if (auto annotations = lookup.NamespaceAnnotations(ns)) {
    auto it = annotations->find(kQueueNameAnnotation);
    if (it != annotations->end() && !it->second.empty()) queue = it->second;
  }
  if (in_default && queue == "default") return v;
  if (!has_spec) v.patch.push_back(AddOp("/spec", Json::object()));
  v.patch.push_back(AddOp("/spec/queue", queue));
  return v;
}

// Any pod at creation: the first resource group it belongs to
// (live/webhook_resource_groups.h).
Verdict MutatePod(const Request& req, const AdmissionOptions& options) {
  Verdict v;
  if (req.operation != "CREATE" || !req.object.is_object() || options.resource_groups.empty())
    return v;
  std::string ns = req.object.contains("metadata") && req.object["metadata"].is_object()
                       ? StringField(req.object["metadata"], "namespace")
                       : "";
  if (ns.empty()) ns = req.namespace_;
  v.patch = ResourceGroupPatch(req.object, ns, options.resource_groups);
  return v;
}

Verdict Dispatch(WebhookEndpoint endpoint, const Request& req, AdmissionLookup& lookup,
                 const AdmissionOptions& options) {
  switch (endpoint) {
    case WebhookEndpoint::kJobsValidate:
      return ValidateJob(req, lookup);
    case WebhookEndpoint::kJobsMutate:
      return MutateJob(req, options);
    case WebhookEndpoint::kQueuesValidate:
      return ValidateQueue(req, lookup);
    case WebhookEndpoint::kQueuesMutate:
      return MutateQueue(req);
    case WebhookEndpoint::kPodGroupsValidate:
      return ValidatePodGroup(req, lookup);
    case WebhookEndpoint::kPodGroupsMutate:
      return MutatePodGroup(req, lookup);
    case WebhookEndpoint::kPodsValidate:
      return ValidatePod(req, options);
    case WebhookEndpoint::kJobFlowsValidate:
      return ValidateJobFlow(req);
    case WebhookEndpoint::kJobTemplatesValidate:
      return ValidateJobTemplate(req);
    case WebhookEndpoint::kHyperNodesValidate:
      return ValidateHyperNode(req, lookup);
    case WebhookEndpoint::kCronJobsValidate:
      return ValidateCronJob(req);
    case WebhookEndpoint::kPodsMutate:
      return MutatePod(req, options);
  }
  return {};
}

}  // namespace

const std::vector<std::pair<std::string, WebhookEndpoint>>& WebhookEndpoints() {
  static const std::vector<std::pair<std::string, WebhookEndpoint>> kEndpoints = {
      {"/jobs/validate", WebhookEndpoint::kJobsValidate},
      {"/jobs/mutate", WebhookEndpoint::kJobsMutate},
      {"/queues/validate", WebhookEndpoint::kQueuesValidate},
      {"/queues/mutate", WebhookEndpoint::kQueuesMutate},
      {"/podgroups/validate", WebhookEndpoint::kPodGroupsValidate},
      {"/podgroups/mutate", WebhookEndpoint::kPodGroupsMutate},
      {"/pods/validate", WebhookEndpoint::kPodsValidate},
      {"/jobflows/validate", WebhookEndpoint::kJobFlowsValidate},
      {"/jobtemplates/validate", WebhookEndpoint::kJobTemplatesValidate},
      {"/hypernodes/validate", WebhookEndpoint::kHyperNodesValidate},
      {"/cronjobs/validate", WebhookEndpoint::kCronJobsValidate},
      {"/pods/mutate", WebhookEndpoint::kPodsMutate},
  };
  return kEndpoints;
}

AdmissionReply ReviewAdmission(WebhookEndpoint endpoint, const std::string& body,
                               AdmissionLookup& lookup, const AdmissionOptions& options) {
  try {
    auto req = ParseRequest(body);
    if (!req.ok()) return {400, "text/plain; charset=utf-8", req.status().message() + "\n"};
    Verdict v = Dispatch(endpoint, *req, lookup, options);
    return {200, "application/json", ReplyJson(*req, v).dump()};
  } catch (const std::exception& e) {
    // Not expected (every field is type-checked); a reply beats a dead worker.
    return {500, "text/plain; charset=utf-8", std::string("cannot review: ") + e.what() + "\n"};
  }
}

}  // namespace basalt
