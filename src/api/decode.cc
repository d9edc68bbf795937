#include "api/decode.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>
#include <set>
#include <streambuf>

#include "api/decode_fields.h"
#include "api/decode_files.h"
#include "api/decode_objects.h"
#include "api/file_text.h"
#include "api/job_plugin_args.h"
#include "api/limits.h"
#include "api/quantity.h"
#include "api/subgroup.h"
#include "api/text.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

using decode_internal::DecodeCommand;
using decode_internal::DecodeMeta;
using decode_internal::DecodePodOrNode;
using decode_internal::DecodeVcJob;
using decode_internal::DocLabel;
using decode_internal::ExpectApiVersion;
using decode_internal::ReadTypeMeta;

// ---- shape checks ----

// Walks a tree once. Paths are rendered only for the error (a stack of
// segments otherwise), and ancestors are tracked by address, so a clean walk
// allocates little: it runs over every node of every manifest.
class TreeChecker {
 public:
  TreeChecker(size_t* budget, int* line) : budget_(budget), line_(line) {}

  Status Walk(const YAML::Node& n, int depth) {
    if (*budget_ == 0)
      return Fail(n, "document too large (aliases expand it beyond the node limit)");
    --*budget_;
    if (!n.IsMap() && !n.IsSequence()) return Status::Ok();
    if (depth > kMaxYamlDepth)
      return Fail(n, "nested more than " + std::to_string(kMaxYamlDepth) + " levels deep");
    for (const YAML::Node* ancestor : ancestors_) {
      if (ancestor->is(n))
        return Fail(n, "an alias refers to its own ancestor (the document is cyclic)");
    }
    ancestors_.push_back(&n);  // `n` outlives the recursion below
    if (n.IsMap()) {
      size_t first_key = key_stack_.size();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          return Fail(kv.first, "keys must be strings, got " + KindOf(kv.first));
        key_stack_.push_back(kv.first);
      }
      // Duplicates: quadratic for the usual handful of keys, sorted beyond.
      size_t count = key_stack_.size() - first_key;
      const YAML::Node* dup = nullptr;
      if (count <= 16) {
        for (size_t i = first_key; i < key_stack_.size() && !dup; ++i) {
          for (size_t j = first_key; j < i; ++j) {
            if (key_stack_[i].Scalar() == key_stack_[j].Scalar()) {
              dup = &key_stack_[i];
              break;
            }
          }
        }
      } else {
        std::vector<const YAML::Node*> sorted;
        for (size_t i = first_key; i < key_stack_.size(); ++i) sorted.push_back(&key_stack_[i]);
        std::stable_sort(
            sorted.begin(), sorted.end(),
            [](const YAML::Node* x, const YAML::Node* y) { return x->Scalar() < y->Scalar(); });
        for (size_t i = 1; i < sorted.size() && !dup; ++i) {
          if (sorted[i]->Scalar() == sorted[i - 1]->Scalar()) dup = sorted[i];
        }
      }
      if (dup != nullptr) {
        segments_.push_back({&dup->Scalar(), 0});
        return Fail(*dup, "duplicate key");
      }
      key_stack_.resize(first_key);
      for (const auto& kv : n) {
        segments_.push_back({&kv.first.Scalar(), 0});
        BASALT_RETURN_IF_ERROR(Walk(kv.second, depth + 1));
        segments_.pop_back();
      }
    } else {
      size_t i = 0;
      for (const auto& item : n) {
        segments_.push_back({nullptr, i++});
        BASALT_RETURN_IF_ERROR(Walk(item, depth + 1));
        segments_.pop_back();
      }
    }
    ancestors_.pop_back();
    return Status::Ok();
  }

 private:
  struct Segment {
    const std::string* key;  // nullptr: a list index
    size_t index;
  };

  // "spec.containers[0].resources" from the segment stack.
  std::string Path() const {
    std::string path;
    for (const Segment& s : segments_) path = s.key ? Join(path, *s.key) : Index(path, s.index);
    return path.empty() ? "(top level)" : path;
  }

  Status Fail(const YAML::Node& at, const std::string& problem) {
    *line_ = at.Mark().line;
    return FieldError(Path(), problem);
  }

  size_t* budget_;
  int* line_;
  std::vector<const YAML::Node*> ancestors_;
  std::vector<YAML::Node> key_stack_;  // keys of the maps being checked
  std::vector<Segment> segments_;
};

}  // namespace

std::optional<bool> ParseYamlBool(std::string_view s) {
  static const std::set<std::string_view> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                                   "y",    "Y",    "on",   "On",  "ON"};
  static const std::set<std::string_view> kFalse = {"false", "False", "FALSE", "no",  "No", "NO",
                                                    "n",     "N",     "off",   "Off", "OFF"};
  if (kTrue.count(s)) return true;
  if (kFalse.count(s)) return false;
  return std::nullopt;
}

Status CheckYamlTree(const YAML::Node& root, size_t* budget, int* line) {
  TreeChecker checker(budget, line);
  return checker.Walk(root, 0);
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil), so no time zone database or timegm() is involved.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

Result<int64_t> ParseTimestamp(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("invalid time \"" + text + "\": " + why +
                                   " (want RFC 3339, e.g. 2024-05-01T10:00:00Z)");
  };
  // Reads `n` digits at `pos` into `*out`.
  auto digits = [&](size_t pos, size_t n, int* out) {
    if (pos + n > text.size()) return false;
    int v = 0;
    for (size_t k = pos; k < pos + n; ++k) {
      if (!IsDigit(text[k])) return false;
      v = v * 10 + (text[k] - '0');
    }
    *out = v;
    return true;
  };
  auto at = [&](size_t pos, std::string_view chars) {
    return pos < text.size() && chars.find(text[pos]) != std::string_view::npos;
  };
  int y, mo, d, h, mi, s;
  if (!digits(0, 4, &y) || !at(4, "-") || !digits(5, 2, &mo) || !at(7, "-") || !digits(8, 2, &d) ||
      !at(10, "Tt") || !digits(11, 2, &h) || !at(13, ":") || !digits(14, 2, &mi) || !at(16, ":") ||
      !digits(17, 2, &s)) {
    return bad("not of the form YYYY-MM-DDTHH:MM:SS");
  }
  if (mo < 1 || mo > 12) return bad("month out of range");
  if (d < 1 || d > DaysInMonth(y, mo)) return bad("day out of range");
  if (h > 23) return bad("hour out of range");
  if (mi > 59) return bad("minute out of range");
  if (s > 59) return bad("second out of range");
  size_t k = 19;
  if (at(k, ".")) {
    size_t first = ++k;
    while (k < text.size() && IsDigit(text[k])) ++k;
    if (k == first) return bad("a decimal point needs digits after it");
  }
  int64_t offset = 0;
  if (at(k, "Zz") && k + 1 == text.size()) {
    // UTC.
  } else if (at(k, "+-")) {
    int zh, zm;
    if (!digits(k + 1, 2, &zh) || !at(k + 3, ":") || !digits(k + 4, 2, &zm) ||
        k + 6 != text.size()) {
      return bad("the zone must be Z or an offset such as +02:00");
    }
    if (zh > 23 || zm > 59) return bad("zone offset out of range");
    offset = (text[k] == '+' ? 1 : -1) * (zh * 3600 + zm * 60);
  } else {
    return bad(k == text.size() ? "missing zone (Z or an offset such as +02:00)"
                                : "the zone must be Z or an offset such as +02:00");
  }
  int64_t t = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  return t - offset;
}

namespace {

Status DecodePriorityClass(const YAML::Node& doc, PriorityClass* pc) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, false, &pc->meta));
  if (!Present(doc["value"])) return FieldError("value", "missing");
  BASALT_RETURN_IF_ERROR(ReadInt(doc, "value", "", &pc->value, -2147483648LL, 2000001000LL));
  BASALT_RETURN_IF_ERROR(ReadBool(doc, "globalDefault", "", &pc->global_default));
  BASALT_RETURN_IF_ERROR(ReadString(doc, "preemptionPolicy", "", &pc->preemption_policy));
  if (pc->preemption_policy != "Never" && pc->preemption_policy != "PreemptLowerPriority") {
    return FieldError("preemptionPolicy",
                      "want Never or PreemptLowerPriority, got \"" + pc->preemption_policy + "\"");
  }
  return Status::Ok();
}

Status DecodeNodeGroupTerms(const YAML::Node& n, const std::string& path,
                            std::optional<NodeGroupTerms>* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  NodeGroupTerms t;
  BASALT_ASSIGN_OR_RETURN(
      t.required, ReadStringList(n["requiredDuringSchedulingIgnoredDuringExecution"],
                                 Join(path, "requiredDuringSchedulingIgnoredDuringExecution")));
  BASALT_ASSIGN_OR_RETURN(
      t.preferred, ReadStringList(n["preferredDuringSchedulingIgnoredDuringExecution"],
                                  Join(path, "preferredDuringSchedulingIgnoredDuringExecution")));
  *out = std::move(t);
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
      BASALT_ASSIGN_OR_RETURN(q->capability,
                              DecodeResourceList(spec["capability"], "spec.capability"));
    }
    if (Present(spec["deserved"])) {
      BASALT_ASSIGN_OR_RETURN(q->deserved, DecodeResourceList(spec["deserved"], "spec.deserved"));
    }
    YAML::Node g = spec["guarantee"];
    BASALT_RETURN_IF_ERROR(ExpectMap(g, "spec.guarantee"));
    if (Present(g) && Present(g["resource"])) {
      BASALT_ASSIGN_OR_RETURN(q->guarantee,
                              DecodeResourceList(g["resource"], "spec.guarantee.resource"));
    }
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "priority", "spec", &q->priority));
    if (Present(spec["reclaimable"])) {
      BASALT_ASSIGN_OR_RETURN(bool r, GetBool(spec["reclaimable"], "spec.reclaimable"));
      q->reclaimable = r;
    }
    BASALT_RETURN_IF_ERROR(ReadString(spec, "parent", "spec", &q->parent));
    YAML::Node aff = spec["affinity"];
    BASALT_RETURN_IF_ERROR(ExpectMap(aff, "spec.affinity"));
    if (Present(aff)) {
      QueueAffinity a;
      BASALT_RETURN_IF_ERROR(DecodeNodeGroupTerms(
          aff["nodeGroupAffinity"], "spec.affinity.nodeGroupAffinity", &a.node_group_affinity));
      BASALT_RETURN_IF_ERROR(DecodeNodeGroupTerms(aff["nodeGroupAntiAffinity"],
                                                  "spec.affinity.nodeGroupAntiAffinity",
                                                  &a.node_group_anti_affinity));
      q->affinity = std::move(a);
    }
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) BASALT_RETURN_IF_ERROR(ReadString(st, "state", "status", &q->state));
  if (q->state.empty()) q->state = "Open";
  static const std::set<std::string> kStates = {"Open", "Closed", "Closing", "Unknown"};
  if (!kStates.count(q->state)) {
    return FieldError("status.state",
                      "unknown state \"" + q->state + "\" (want Open, Closed, Closing or Unknown)");
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
        BASALT_ASSIGN_OR_RETURN(std::string role, KeyText(kv.first, "spec.minTaskMember"));
        BASALT_ASSIGN_OR_RETURN(int64_t v,
                                GetInt(kv.second, "spec.minTaskMember." + role, 0, INT32_MAX));
        pg->min_task_member[role] = static_cast<int32_t>(v);
      }
    }
    BASALT_RETURN_IF_ERROR(ReadString(spec, "queue", "spec", &pg->queue));
    BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", "spec", &pg->priority_class_name));
    if (Present(spec["minResources"])) {
      BASALT_ASSIGN_OR_RETURN(pg->min_resources,
                              DecodeResourceList(spec["minResources"], "spec.minResources"));
    }
    BASALT_RETURN_IF_ERROR(DecodeNetworkTopology(spec["networkTopology"], "spec.networkTopology",
                                                 &pg->network_topology));
    BASALT_RETURN_IF_ERROR(DecodeSubGroupPolicies(spec["subGroupPolicy"], "spec.subGroupPolicy",
                                                  &pg->sub_group_policy));
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  std::string phase;
  if (Present(st)) BASALT_RETURN_IF_ERROR(ReadString(st, "phase", "status", &phase));
  std::optional<PodGroupPhase> known = ParsePodGroupPhase(phase);
  if (!known) {
    return FieldError(
        "status.phase",
        "unknown phase \"" + phase + "\" (want Pending, Inqueue, Running, Unknown or Completed)");
  }
  pg->phase = *known;
  return Status::Ok();
}

bool IsOwnerKind(const std::string& api_version, const std::string& kind) {
  if (api_version == "apps/v1") {
    return kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" ||
           kind == "DaemonSet";
  }
  if (api_version == "batch/v1") return kind == "Job" || kind == "CronJob";
  return false;
}

std::string FileLine(const std::string& file, int line) {
  return file + ":" + std::to_string(line + 1);
}

// Where the documents being decoded come from.
struct DocumentOrigin {
  // Lets List items name their own line ("file:<item line>"); may be empty.
  const std::string& file;
  // Added to the tree's line numbers: a document parsed from its own slice of
  // the file numbers its lines from the slice's first.
  int line_offset = 0;
  // The object count is checked after every object; nullptr: not checked.
  const InputLimits* limits = nullptr;
};

Status DecodeOneObject(const YAML::Node& doc, const std::string& kind,
                       const std::string& api_version, const std::string& source,
                       ClusterObjects* out);

// Decodes one document. `source` prefixes messages and becomes `meta.source`.
Status DecodeDocument(const YAML::Node& doc, const DocumentOrigin& origin,
                      const std::string& source, bool allow_list, ClusterObjects* out) {
  const std::string& file = origin.file;
  std::string kind, api_version;
  BASALT_RETURN_IF_ERROR(ReadTypeMeta(doc, source, &kind, &api_version));
  if (kind == "List") {
    if (!allow_list)
      return Status::InvalidArgument(source + ": kind: a List cannot contain another List");
    YAML::Node items = doc["items"];
    if (Present(items) && !items.IsSequence()) {
      return Status::InvalidArgument(source + ": List: items: expected a list, got " +
                                     KindOf(items));
    }
    if (!Present(items)) return Status::Ok();
    size_t i = 0;
    for (const auto& item : items) {
      // Each item reports its own line; without a file, the List's source and index.
      std::string item_source = file.empty() || item.Mark().line < 0
                                    ? source + " items[" + std::to_string(i) + "]"
                                    : FileLine(file, item.Mark().line + origin.line_offset);
      BASALT_RETURN_IF_ERROR(DecodeDocument(item, origin, item_source, false, out));
      ++i;
    }
    return Status::Ok();
  }
  BASALT_RETURN_IF_ERROR(DecodeOneObject(doc, kind, api_version, source, out));
  // Checked as objects arrive, so a folder far too large stops early.
  if (origin.limits != nullptr && CountDecodedObjects(*out) > origin.limits->max_objects)
    return CheckObjectCount(*out, *origin.limits, source + ": " + DocLabel(doc, kind));
  return Status::Ok();
}

// Decodes one object of a kind other than List.
Status DecodeOneObject(const YAML::Node& doc, const std::string& kind,
                       const std::string& api_version, const std::string& source,
                       ClusterObjects* out) {
  std::string label = DocLabel(doc, kind);
  if (kind == "Pod" || kind == "Node") {
    BASALT_RETURN_IF_ERROR(DecodePodOrNode(doc, kind, api_version, source, out));
    CheckDocument(doc, kind, source, label, &out->findings);
    return Status::Ok();
  }
  std::string context = source + ": " + label;
  auto expect_group = [&](std::initializer_list<const char*> versions) {
    return ExpectApiVersion(context, kind, api_version, versions);
  };
  Status st;
  if (kind == "PriorityClass") {
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
  } else if (kind == "JobTemplate" && api_version == "flow.volcano.sh/v1alpha1") {
    VcJob tmpl;  // a vcjob spec under another kind
    tmpl.meta.source = source;
    st = DecodeVcJob(doc, &tmpl);
    if (st.ok()) out->job_templates.push_back(std::move(tmpl));
  } else if (kind == "JobFlow" && api_version == "flow.volcano.sh/v1alpha1") {
    JobFlow flow;
    flow.meta.source = source;
    st = DecodeMeta(doc, true, &flow.meta);
    if (st.ok()) st = DecodeJobFlowSpec(doc, &flow);
    if (st.ok()) out->job_flows.push_back(std::move(flow));
  } else if (kind == "CronJob" && api_version == "batch.volcano.sh/v1alpha1") {
    CronJob cj;
    cj.meta.source = source;
    st = DecodeCronJob(doc, &cj);
    if (st.ok()) out->cron_jobs.push_back(std::move(cj));
  } else if (kind == "Command" && api_version == "bus.volcano.sh/v1alpha1") {
    Command c;
    c.meta.source = source;
    st = DecodeCommand(doc, &c);
    if (st.ok()) out->commands.push_back(std::move(c));
  } else if (IsOwnerKind(api_version, kind)) {
    OwnerObject o;
    o.api_version = api_version;
    o.kind = kind;
    o.meta.source = source;
    st = DecodeMeta(doc, true, &o.meta);
    const YAML::Node spec = doc["spec"];
    if (st.ok() && (kind == "ReplicaSet" || kind == "StatefulSet") && Present(spec) &&
        spec.IsMap() && Present(spec["replicas"])) {
      int32_t replicas = 0;
      st = ReadInt(spec, "replicas", "spec", &replicas, 0, INT32_MAX);
      o.replicas = replicas;
    }
    if (st.ok()) out->owners.push_back(std::move(o));
  } else if (kind == "Numatopology") {
    BASALT_RETURN_IF_ERROR(expect_group({"nodeinfo.volcano.sh/v1alpha1"}));
    Numatopology topo;
    topo.meta.source = source;
    st = DecodeMeta(doc, false, &topo.meta);
    if (st.ok()) st = DecodeNumatopologySpec(doc["spec"], "spec", &topo);
    if (st.ok()) out->numatopologies.push_back(std::move(topo));
  } else if (kind == "HyperNode") {
    BASALT_RETURN_IF_ERROR(expect_group({"topology.volcano.sh/v1alpha1"}));
    HyperNode h;
    h.meta.source = source;
    st = DecodeHyperNode(doc, &h);
    if (st.ok()) out->hypernodes.push_back(std::move(h));
  } else if (kind == "PodDisruptionBudget") {
    BASALT_RETURN_IF_ERROR(expect_group({"policy/v1"}));
    PodDisruptionBudget pdb;
    pdb.meta.source = source;
    st = DecodePodDisruptionBudget(doc, &pdb);
    if (st.ok()) out->disruption_budgets.push_back(std::move(pdb));
  } else if (kind == "ResourceQuota" && api_version == "v1") {
    ResourceQuota quota;
    quota.meta.source = source;
    st = DecodeResourceQuota(doc, &quota);
    if (st.ok()) out->resource_quotas.push_back(std::move(quota));
  } else if (kind == "Namespace" && api_version == "v1") {
    ObjectMeta meta;
    meta.source = source;
    st = DecodeMeta(doc, false, &meta);
    if (st.ok()) out->namespaces.push_back(std::move(meta));
  } else {
    return Status::InvalidArgument(
        context + ": kind: unsupported kind \"" + kind + "\" with apiVersion \"" + api_version +
        "\" (supported: v1 Node, Pod, Namespace, ResourceQuota; policy/v1 PodDisruptionBudget; "
        "scheduling.k8s.io/v1 PriorityClass; "
        "scheduling.volcano.sh/v1beta1 Queue, PodGroup; batch.volcano.sh/v1alpha1 Job, CronJob; "
        "bus.volcano.sh/v1alpha1 Command; flow.volcano.sh/v1alpha1 JobTemplate, JobFlow; "
        "nodeinfo.volcano.sh/v1alpha1 Numatopology; topology.volcano.sh/v1alpha1 HyperNode; "
        "apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job, CronJob)");
  }
  if (st.ok()) CheckDocument(doc, kind, source, label, &out->findings);
  return st.WithContext(context);
}

// "Kind ns/name" of a document for messages, from whatever it has; "" when it is
// not an object with a kind.
std::string SafeLabel(const YAML::Node& doc) {
  if (!doc.IsMap()) return "";
  YAML::Node kind = doc["kind"];
  if (!kind || !kind.IsScalar() || kind.Scalar().empty()) return "";
  return DocLabel(doc, kind.Scalar());
}

// yaml-cpp 0.7's LoadAll never returns on some malformed streams: after "{},"
// or "[1]\n,", the parser stays at the ',' and reports one more empty document
// there on every call, so LoadAll fills memory forever (found by fuzz_manifest;
// decode_test.cc has the inputs). A first pass that builds nothing notices a
// document starting where the previous one started and stops there. It also
// keeps where each document starts, for decoding them one at a time.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = !starts_.empty() && mark.pos == starts_.back().pos;
    starts_.push_back(mark);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  // A document takes at least one character: more documents than characters
  // means no progress too, whatever the marks say.
  bool stuck(size_t text_size) const { return stuck_ || starts_.size() > text_size + 1; }
  const YAML::Mark& last() const { return starts_.back(); }
  std::vector<YAML::Mark> take() { return std::move(starts_); }

 private:
  std::vector<YAML::Mark> starts_;
  bool stuck_ = false;
};

// An input stream over a string's bytes without copying them (a large file
// would otherwise be in memory twice).
class TextStreamBuf : public std::streambuf {
 public:
  TextStreamBuf(const char* data, size_t size) {
    char* begin = const_cast<char*>(data);  // only read: no put area is set
    setg(begin, begin, begin + size);
  }
};

// Ok, or the position where the YAML parser stops making progress; `*starts`
// gets where each document starts. Throws what YAML::LoadAll would throw for
// the same text.
Status CheckParserProgress(const std::string& text, const std::string& file,
                           std::vector<YAML::Mark>* starts) {
  TextStreamBuf buf(text.data(), text.size());
  std::istream in(&buf);
  YAML::Parser parser(in);
  DocumentStarts seen;
  while (parser.HandleNextDocument(seen)) {
    if (!seen.stuck(text.size())) continue;
    const YAML::Mark& m = seen.last();
    std::string what = "unexpected text";
    if (m.pos >= 0 && static_cast<size_t>(m.pos) < text.size()) {
      const unsigned char c = static_cast<unsigned char>(text[m.pos]);
      if (c > 0x20 && c < 0x7f) what = std::string("unexpected \"") + static_cast<char>(c) + "\"";
    }
    return Status::InvalidArgument(file + ":" + std::to_string(m.line + 1) + ":" +
                                   std::to_string(m.column + 1) + ": malformed YAML/JSON: " + what +
                                   " after the end of a document");
  }
  *starts = seen.take();
  return Status::Ok();
}

// The message for the exception being handled while parsing `file`; a
// document parsed from its own slice adds `line_offset` to the parser's line.
Status MalformedText(const std::string& file, int line_offset) {
  auto at = [&](const YAML::Mark& m) {
    return file + ":" + std::to_string(m.line + line_offset + 1) + ":" +
           std::to_string(m.column + 1) + ": malformed YAML/JSON: ";
  };
  try {
    throw;
  } catch (const YAML::DeepRecursion& e) {
    return Status::InvalidArgument(at(e.mark) + "nested too deeply");
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(at(e.mark) + e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(file + ": malformed YAML/JSON: " + e.what());
  }
}

// Whether each document can be parsed from its own slice of `text` (from its
// first token to the next document's) into the tree the whole text gives it,
// lines offset by the line it starts on. The parser's marks must be byte
// offsets that agree with the text's lines: UTF-8 without a byte-order mark
// (no NUL byte, an ASCII first byte). Each slice must start with an ASCII byte
// (no byte-order mark to mistake) after nothing but spaces on its line, which
// the slice keeps. No directive (%YAML, %TAG) may appear: it would apply to
// the documents after it. Anything else decodes the whole text at once.
bool DocumentsSliceCleanly(const std::string& text, const std::vector<YAML::Mark>& starts) {
  if (text.empty()) return true;
  if (text.find('\0') != std::string::npos || static_cast<unsigned char>(text[0]) >= 0x80 ||
      text[0] == '%' || text.find("\n%") != std::string::npos) {
    return false;
  }
  size_t scanned = 0, line_start = 0;
  int line = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const YAML::Mark& m = starts[i];
    if (m.pos < 0 || static_cast<size_t>(m.pos) > text.size()) return false;
    const size_t pos = static_cast<size_t>(m.pos);
    if (pos < scanned || (i > 0 && pos == scanned)) return false;
    for (size_t k = scanned; k < pos; ++k) {
      if (text[k] == '\n') {
        ++line;
        line_start = k + 1;
      }
    }
    scanned = pos;
    if (m.line != line || m.column != static_cast<int>(pos - line_start)) return false;
    for (size_t k = line_start; k < pos; ++k) {
      if (text[k] != ' ') return false;
    }
    if (pos < text.size() && static_cast<unsigned char>(text[pos]) >= 0x80) return false;
  }
  return true;
}

// Shape-checks and decodes one parsed document (nothing for an empty one).
Status DecodeParsed(const YAML::Node& d, const DocumentOrigin& origin, size_t* budget,
                    ClusterObjects* out) {
  const std::string& file = origin.file;
  int doc_line = 0;
  std::string source = file;
  try {
    if (!d || d.IsNull()) return Status::Ok();  // empty documents ("---" at the end)
    doc_line = d.Mark().line >= 0 ? d.Mark().line + origin.line_offset : 0;
    source = FileLine(file, doc_line);
    int bad_line = -1;
    Status shape = CheckYamlTree(d, budget, &bad_line);
    if (!shape.ok()) {
      // The document line, as every other decode message has it (objects are
      // located by where they start); the offending node's line is appended.
      if (bad_line >= 0) bad_line += origin.line_offset;
      std::string label = SafeLabel(d);
      std::string msg = shape.message();
      if (bad_line >= 0 && bad_line != doc_line)
        msg += " (line " + std::to_string(bad_line + 1) + ")";
      return Status::InvalidArgument(source + ": " + (label.empty() ? "" : label + ": ") + msg);
    }
    return DecodeDocument(d, origin, source, true, out);
  } catch (const std::exception& e) {
    // yaml-cpp throws on a wrong-typed access; every access above is checked
    // first, so reaching this is a bug — but a bad input must still not crash.
    return Status::InvalidArgument(source + ": malformed document: " + e.what());
  }
}

// Every document parsed at once: all their trees are in memory together.
Status DecodeInOnePiece(const std::string& text, DocumentOrigin origin, size_t* budget,
                        ClusterObjects* out) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (...) {
    return MalformedText(origin.file, 0);
  }
  for (const YAML::Node& d : docs) BASALT_RETURN_IF_ERROR(DecodeParsed(d, origin, budget, out));
  return Status::Ok();
}

// One document parsed at a time, from its slice of the text: only one tree is
// in memory, however many documents the file has.
Status DecodeBySlices(const std::string& text, const std::vector<YAML::Mark>& starts,
                      DocumentOrigin origin, size_t* budget, ClusterObjects* out) {
  std::string slice;
  for (size_t i = 0; i < starts.size(); ++i) {
    const YAML::Mark& m = starts[i];
    const size_t begin = static_cast<size_t>(m.pos);
    const size_t end = i + 1 < starts.size() ? static_cast<size_t>(starts[i + 1].pos) : text.size();
    // The spaces before the first token stay, so columns and indentation do.
    slice.assign(static_cast<size_t>(m.column), ' ');
    slice.append(text, begin, end - begin);
    origin.line_offset = m.line;
    YAML::Node d;
    try {
      d = YAML::Load(slice);
    } catch (...) {
      return MalformedText(origin.file, m.line);
    }
    BASALT_RETURN_IF_ERROR(DecodeParsed(d, origin, budget, out));
  }
  return Status::Ok();
}

Status DecodeTextWith(const std::string& text, const std::string& file, ClusterObjects* out,
                      const InputLimits& limits, bool allow_slices) {
  std::vector<YAML::Mark> starts;
  try {
    Status progress = CheckParserProgress(text, file, &starts);
    if (!progress.ok()) return progress;
  } catch (...) {
    return MalformedText(file, 0);
  }
  // Alias expansion is bounded by the size of the text: without aliases a
  // document has fewer nodes than characters.
  size_t budget = 4 * text.size() + 1024;
  DocumentOrigin origin{file, 0, &limits};
  if (allow_slices && DocumentsSliceCleanly(text, starts))
    return DecodeBySlices(text, starts, origin, &budget, out);
  return DecodeInOnePiece(text, origin, &budget, out);
}

}  // namespace

Status DecodeObject(const YAML::Node& doc, const std::string& source, ClusterObjects* out) {
  try {
    return DecodeDocument(doc, DocumentOrigin{""}, source, true, out);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(source + ": malformed document: " + e.what());
  }
}

Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out) {
  return DecodeText(text, file, out, InputLimits());
}

Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out,
                  const InputLimits& limits) {
  return DecodeTextWith(text, file, out, limits, /*allow_slices=*/true);
}

Status DecodeTextInOnePieceForTesting(const std::string& text, const std::string& file,
                                      ClusterObjects* out) {
  return DecodeTextWith(text, file, out, InputLimits(), /*allow_slices=*/false);
}

Status LoadPath(const std::string& path, ClusterObjects* out) {
  return LoadPath(path, out, InputLimits());
}

Status LoadPath(const std::string& path, ClusterObjects* out, const InputLimits& limits) {
  std::vector<Status> errors = LoadPathEveryFile(path, out, limits);
  return errors.empty() ? Status::Ok() : errors.front();
}

std::vector<Status> LoadPathEveryFile(const std::string& path, ClusterObjects* out,
                                      const InputLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status fst = fs::status(path, ec);
  if (ec || !fs::exists(fst)) return {Status::NotFound(path + ": no such file or folder")};
  std::vector<std::string> files;
  if (fs::is_directory(fst)) {
    fs::recursive_directory_iterator it(path, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec) || type_ec) continue;
      std::string ext = it->path().extension().string();
      if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(it->path().string());
    }
    if (ec) return {Status::InvalidArgument(path + ": cannot list folder: " + ec.message())};
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  std::vector<Status> errors;
  for (const std::string& f : files) {
    Result<std::string> text = ReadWholeFile(f);
    if (!text.ok()) {
      errors.push_back(
          Status::InvalidArgument(f + ": cannot read file: " + text.status().message()));
      continue;
    }
    Status decoded = DecodeText(*text, f, out, limits);
    if (!decoded.ok()) errors.push_back(decoded);
    // Past the object limit, every further file would only say so again.
    if (CountDecodedObjects(*out) > limits.max_objects) break;
  }
  return errors;
}

}  // namespace basalt
