#include "admission/admission.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "admission/cronjob_rules.h"
#include "admission/queue_index.h"
#include "admission/queue_rules.h"
#include "api/card_annotations.h"
#include "api/object_rules.h"
#include "api/text.h"

namespace basalt {
namespace {

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string AnnotationField(const std::string& prefix, const std::string& key) {
  return prefix + "annotations[" + key + "]";
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// ---- Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation) ----

std::vector<std::string> LabelErrors(std::string_view s) { return Dns1123LabelErrors(s); }
std::vector<std::string> SubdomainErrors(std::string_view s) { return Dns1123SubdomainErrors(s); }

// Collects the problems of one object.
class Report {
 public:
  Report(std::vector<AdmissionProblem>* out, std::string object, std::string source)
      : out_(out), object_(std::move(object)), source_(std::move(source)) {}
  void Add(std::string field, std::string message) {
    out_->push_back({object_, source_, std::move(field), std::move(message)});
  }

 private:
  std::vector<AdmissionProblem>* out_;
  std::string object_;
  std::string source_;
};

// A card annotation, if present, parsed by the same functions the
// capacity-card plugin uses.
void CheckCardAnnotation(const std::map<std::string, std::string>& annotations, const char* key,
                         const std::string& meta_prefix, Report& r) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return;
  Status st;
  if (std::string_view(key) == kCardQuotaAnnotation) {
    st = ParseCardQuota(it->second).status();
  } else if (std::string_view(key) == kCardRequestAnnotation) {
    st = ParseCardRequest(it->second).status();
  } else {
    st = ParseCardName(it->second).status();
  }
  if (!st.ok()) r.Add(AnnotationField(meta_prefix, key), st.message());
}

// ---- vcjob lifecycle policies (Volcano's validatePolicies) ----

const std::set<std::string>& ValidEvents() {
  static const std::set<std::string> kEvents = {"*",          "JobUpdated", "PodEvicted",
                                                "PodFailed",  "PodPending", "TaskCompleted",
                                                "TaskFailed", "Unknown"};
  return kEvents;
}

const std::set<std::string>& ValidActions() {
  static const std::set<std::string> kActions = {"AbortJob",    "CompleteJob", "RestartJob",
                                                 "RestartPod",  "RestartTask", "ResumeJob",
                                                 "TerminateJob"};
  return kActions;
}

std::string JoinSet(const std::set<std::string>& s) {
  return Join(std::vector<std::string>(s.begin(), s.end()), ", ");
}

// The decoder merges `event` and `events` into one list, so a policy naming a
// single event is reported at `.event` and one naming several at `.events`.
std::string EventField(const std::string& policy_path, const LifecyclePolicy& p) {
  return policy_path + (p.events.size() == 1 ? ".event" : ".events");
}

// Validates one list of policies (the job's, or one task's). Volcano stops at
// the first problem of a list; every problem is reported here.
void ValidatePolicies(const std::vector<LifecyclePolicy>& policies, const std::string& path,
                      Report& r) {
  std::map<std::string, size_t> event_owner;  // valid event -> first policy naming it
  std::map<int32_t, size_t> code_owner;       // exit code -> first policy naming it
  std::optional<size_t> any_event_at;         // first policy naming `*`
  for (size_t k = 0; k < policies.size(); ++k) {
    const LifecyclePolicy& p = policies[k];
    const std::string pp = path + "[" + std::to_string(k) + "]";
    // Repeating an event inside one policy is harmless (Volcano de-duplicates it).
    std::vector<std::string> events;
    std::set<std::string> seen;
    for (const std::string& e : p.events) {
      if (seen.insert(e).second) events.push_back(e);
    }
    if (!events.empty() && p.exit_code.has_value()) {
      r.Add(pp, "must not specify event and exitCode simultaneously");
    } else if (events.empty() && !p.exit_code.has_value()) {
      r.Add(pp, "either event and exitCode should be specified");
    }
    for (const std::string& e : events) {
      if (!ValidEvents().count(e)) {
        r.Add(EventField(pp, p), "invalid policy event " + Quote(e) +
                                     " (valid events: " + JoinSet(ValidEvents()) + ")");
        continue;
      }
      auto [it, fresh] = event_owner.emplace(e, k);
      if (!fresh) {
        r.Add(EventField(pp, p), "duplicate event " + e + " across different policies (also in " +
                                     path + "[" + std::to_string(it->second) + "])");
      }
      if (e == "*" && !any_event_at) any_event_at = k;
    }
    // Volcano only checks the action of event policies; an exitCode policy with
    // an unknown action would be accepted and then do nothing, so it is checked too.
    if (!ValidActions().count(p.action)) {
      r.Add(pp + ".action", "invalid policy action " + Quote(p.action) +
                                (p.action.empty() ? " (missing)" : "") +
                                " (valid actions: " + JoinSet(ValidActions()) + ")");
    }
    if (p.exit_code.has_value()) {
      if (*p.exit_code == 0) {
        r.Add(pp + ".exitCode", "0 is not a valid error code");
      } else if (auto [it, fresh] = code_owner.emplace(*p.exit_code, k); !fresh) {
        r.Add(pp + ".exitCode", "duplicate exitCode " + std::to_string(*p.exit_code) +
                                    " (also in " + path + "[" + std::to_string(it->second) + "])");
      }
    }
  }
  if (any_event_at && event_owner.size() > 1) {
    r.Add(EventField(path + "[" + std::to_string(*any_event_at) + "]", policies[*any_event_at]),
          "if there's * here, no other policy should be here");
  }
}

// ---- Job (batch.volcano.sh/v1alpha1) ----

void CheckJobQueue(const std::string& queue, const QueueIndex& queues, Report& r) {
  const std::string name = queue.empty() ? "default" : queue;
  if (!queues.Exists(name)) {
    r.Add("spec.queue",
          "unable to find job queue: queue.scheduling.volcano.sh " + Quote(name) + " not found");
    return;
  }
  const std::string& state = queues.State(name);
  if (state != "Open") {
    r.Add("spec.queue", "can only submit job to queue with state `Open`, queue `" + name +
                            "` status is `" + state + "`");
  }
  if (name == "root") {
    r.Add("spec.queue", "can not submit job to root queue");
    return;
  }
  const std::vector<const Queue*>& children = queues.Children(name);
  if (!children.empty()) {
    r.Add("spec.queue", "can only submit job to leaf queue, queue `" + name + "` has " +
                            std::to_string(children.size()) + " child queues");
  }
}

// spec.volumes as Volcano's webhook checks them: a mount path, unique in the
// job; an existing claim by name or a claim to create, not both; a claim name
// that is a valid PersistentVolumeClaim name.
void CheckJobVolumes(const std::vector<JobVolume>& volumes, Report& r) {
  std::set<std::string> mount_paths;
  for (size_t i = 0; i < volumes.size(); ++i) {
    const JobVolume& v = volumes[i];
    const std::string vp = "spec.volumes[" + std::to_string(i) + "]";
    if (v.mount_path.empty()) {
      r.Add(vp + ".mountPath", "mountPath is required");
      continue;
    }
    if (!mount_paths.insert(v.mount_path).second) {
      r.Add(vp + ".mountPath", "duplicated mountPath: " + v.mount_path);
      continue;
    }
    if (!v.has_claim_spec && v.claim_name.empty()) {
      r.Add(vp, "either VolumeClaim or VolumeClaimName must be specified");
      continue;
    }
    if (v.claim_name.empty()) continue;
    if (v.has_claim_spec) {
      r.Add(vp + ".volumeClaimName",
            "conflict: If you want to use an existing PVC, just specify VolumeClaimName."
            "If you want to create a new PVC, you do not need to specify VolumeClaimName");
      continue;
    }
    std::vector<std::string> name_errs = SubdomainErrors(v.claim_name);
    if (!name_errs.empty()) {
      r.Add(vp + ".volumeClaimName",
            "invalid VolumeClaimName " + v.claim_name + " : " + Join(name_errs, "; "));
    }
  }
}

void ValidateJob(const VcJob& job, const QueueIndex& queues, std::vector<AdmissionProblem>* out) {
  Report r(out, "Job " + job.meta.Key(), job.meta.source);
  const std::string& jname = job.meta.name;

  // Kubernetes requires a DNS-1123 subdomain; Volcano's webhook also requires a
  // qualified name, which caps the length at 63.
  std::vector<std::string> name_errs = SubdomainErrors(jname);
  if (name_errs.empty() && jname.size() > 63)
    name_errs.push_back("must be no more than 63 characters");
  const bool job_name_ok = name_errs.empty();
  if (!job_name_ok) {
    r.Add("metadata.name",
          "create job with name " + jname + " validate failed: " + Join(name_errs, "; "));
  }

  if (job.min_available < 0) r.Add("spec.minAvailable", "job 'minAvailable' must be >= 0.");
  if (job.max_retry < 0) r.Add("spec.maxRetry", "'maxRetry' cannot be less than zero.");
  if (job.tasks.empty()) r.Add("spec.tasks", "No task specified in job spec");
  CheckJobVolumes(job.volumes, r);

  int64_t total_replicas = 0;
  std::map<std::string, size_t> task_at;  // (defaulted) name -> first task with it
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    const JobTask& t = job.tasks[i];
    const std::string tp = "spec.tasks[" + std::to_string(i) + "]";
    // Volcano's mutating webhook names an unnamed task `default<i>` before
    // validation, so an empty name is not an error; later checks see the default.
    const std::string tname = t.name.empty() ? "default" + std::to_string(i) : t.name;

    if (t.replicas < 0)
      r.Add(tp + ".replicas", "'replicas' < 0 in task: " + tname + ", job: " + jname);
    if (t.min_available.has_value()) {
      if (*t.min_available < 0) {
        r.Add(tp + ".minAvailable", "'minAvailable' < 0 in task: " + tname + ", job: " + jname);
      } else if (*t.min_available > t.replicas) {
        r.Add(tp + ".minAvailable",
              "'minAvailable' is greater than 'replicas' in task: " + tname + ", job: " + jname);
      }
    }
    total_replicas += t.replicas;

    std::vector<std::string> label_errs = LabelErrors(tname);
    if (!label_errs.empty())
      r.Add(tp + ".name", "task name " + Quote(tname) + ": " + Join(label_errs, "; "));
    if (auto [it, fresh] = task_at.emplace(tname, i); !fresh) {
      r.Add(tp + ".name", "duplicated task name " + tname);
    }

    ValidatePolicies(t.policies, tp + ".policies", r);
    if (t.partition_policy) {
      // As Volcano's webhook: the partitions cover the replicas exactly, and an
      // explicit task minAvailable is minPartitions whole partitions.
      const PartitionPolicy& pp = *t.partition_policy;
      const int64_t covered = int64_t{pp.total_partitions} * pp.partition_size;
      if (covered != t.replicas) {
        r.Add(tp + ".partitionPolicy",
              "'Replicas' are not equal to TotalPartitions*PartitionSize in task: " + tname +
                  ", job: " + jname);
      }
      const int64_t min_pods = int64_t{pp.min_partitions} * pp.partition_size;
      if (t.min_available && *t.min_available != min_pods) {
        r.Add(tp + ".minAvailable",
              "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: " + tname +
                  ", job: " + jname);
      }
    }

    // The longest pod name the controller will make for this task. Checked only
    // when both parts are valid: otherwise the part's own problem says it all.
    if (job_name_ok && label_errs.empty()) {
      const std::string pod =
          jname + "-" + tname + "-" + std::to_string(std::max(t.replicas - 1, 0));
      std::vector<std::string> pod_errs = SubdomainErrors(pod);
      if (pod_errs.empty() && pod.size() > 63)
        pod_errs.push_back("must be no more than 63 characters");
      if (!pod_errs.empty()) {
        r.Add(tp + ".name",
              "create pod with name " + pod + " validate failed: " + Join(pod_errs, "; "));
      }
    }
    CheckCardAnnotation(t.template_meta.annotations, kCardNameAnnotation,
                        tp + ".template.metadata.", r);
  }

  if (total_replicas < job.min_available) {
    r.Add("spec.minAvailable",
          "job 'minAvailable' should not be greater than total replicas in tasks");
  }
  ValidatePolicies(job.policies, "spec.policies", r);
  CheckCardAnnotation(job.meta.annotations, kCardRequestAnnotation, "metadata.", r);
  CheckJobQueue(job.queue, queues, r);
}

// ---- PodGroup and Pod ----

void ValidatePodGroup(const PodGroup& pg, const QueueIndex& queues,
                      std::vector<AdmissionProblem>* out) {
  Report r(out, "PodGroup " + pg.meta.Key(), pg.meta.source);
  if (pg.min_member < 0) r.Add("spec.minMember", "'minMember' must be >= 0");
  for (const auto& [role, n] : pg.min_task_member) {
    if (n < 0) r.Add("spec.minTaskMember." + role, "must be >= 0");
  }
  CheckCardAnnotation(pg.meta.annotations, kCardRequestAnnotation, "metadata.", r);
  // As Volcano's PodGroup webhook: an empty queue is left to the scheduler's default.
  if (pg.queue.empty()) return;
  if (!queues.Exists(pg.queue)) {
    r.Add("spec.queue",
          "unable to find queue: queue.scheduling.volcano.sh " + Quote(pg.queue) + " not found");
    return;
  }
  const std::string& state = queues.State(pg.queue);
  if (state != "Open") {
    r.Add("spec.queue", "can only submit PodGroup to queue with state `Open`, queue `" + pg.queue +
                            "` status is `" + state + "`");
  }
}

constexpr char kJdbMinAvailable[] = "volcano.sh/jdb-min-available";
constexpr char kJdbMaxUnavailable[] = "volcano.sh/jdb-max-unavailable";

// Go's strconv.Atoi on the common forms: an optional sign, then digits.
std::optional<int64_t> ParseGoInt(std::string_view v) {
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  if (v.empty() || v.front() == '+') return std::nullopt;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return n;
}

// A disruption-budget annotation, read as Volcano's pod webhook reads it
// (intstr): an integer must be positive; anything else has its '%' signs
// removed and must then be a percentage from 1 to 99.
void CheckBudgetValue(const std::string& key, const std::string& value, Report& r) {
  const std::string field = AnnotationField("metadata.", key);
  if (std::optional<int64_t> n = ParseGoInt(value)) {
    if (*n <= 0)
      r.Add(field,
            "invalid value " + Quote(value) + " for " + key + ", it must be a positive integer");
    return;
  }
  std::string digits = value;
  digits.erase(std::remove(digits.begin(), digits.end(), '%'), digits.end());
  std::optional<int64_t> pct = ParseGoInt(digits);
  if (!pct) {
    r.Add(field, "invalid value " + Quote(value) + " for " + key +
                     ": neither an integer nor a percentage");
  } else if (*pct <= 0 || *pct >= 100) {
    r.Add(field, "invalid value " + Quote(value) + " for " + key +
                     ", it must be a valid percentage which between 1% ~ 99%");
  }
}

void CheckBudgetAnnotations(const std::map<std::string, std::string>& annotations, Report& r) {
  auto min_available = annotations.find(kJdbMinAvailable);
  auto max_unavailable = annotations.find(kJdbMaxUnavailable);
  if (min_available != annotations.end())
    CheckBudgetValue(min_available->first, min_available->second, r);
  if (max_unavailable != annotations.end())
    CheckBudgetValue(max_unavailable->first, max_unavailable->second, r);
  if (min_available != annotations.end() && max_unavailable != annotations.end()) {
    r.Add("metadata.annotations", std::string("not allow configure multiple annotations <[") +
                                      kJdbMinAvailable + " " + kJdbMaxUnavailable +
                                      "]> at same time");
  }
}

void ValidatePod(const Pod& pod, std::vector<AdmissionProblem>* out) {
  Report r(out, "Pod " + pod.meta.Key(), pod.meta.source);
  CheckCardAnnotation(pod.meta.annotations, kCardNameAnnotation, "metadata.", r);
  CheckBudgetAnnotations(pod.meta.annotations, r);
}

// ---- HyperNode (topology.volcano.sh/v1alpha1) ----

// The decoder has applied the member and selector rules; Volcano's webhook
// also refuses a HyperNode without members (the CRD only bounds a list given).
void ValidateHyperNode(const HyperNode& h, std::vector<AdmissionProblem>* out) {
  Report r(out, "HyperNode " + h.meta.name, h.meta.source);
  if (h.members.empty()) r.Add("spec.members", "member must have at least one member");
}

// Reports every object whose kind and key an earlier object already has.
template <typename T>
void CheckDuplicates(const std::vector<T>& objects, const char* kind,
                     std::vector<AdmissionProblem>* out) {
  std::map<std::string, const T*> seen;
  for (const T& o : objects) {
    auto [it, fresh] = seen.emplace(o.meta.Key(), &o);
    if (!fresh) {
      out->push_back({std::string(kind) + " " + o.meta.Key(), o.meta.source, "metadata.name",
                      "duplicate " + std::string(kind) + " " + Quote(o.meta.Key()) +
                          ": already defined at " + it->second->meta.source});
    }
  }
}

}  // namespace

std::vector<std::string> ObjectNameErrors(std::string_view name) { return SubdomainErrors(name); }

std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects) {
  return ValidateObjects(objects, RuleScope{});
}

std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects, RuleScope scope) {
  std::vector<AdmissionProblem> out;
  // The API server's own rules first: what it refuses to store never reaches a webhook.
  for (const RuleFinding& f : CheckObjectRules(objects, scope)) {
    if (f.in_validate == RuleSeverity::kError)
      out.push_back({f.object, f.source, f.field, f.message});
  }
  QueueIndex queues(objects.queues);
  ValidateQueues(objects.queues, queues, &out);
  CheckDuplicates(objects.jobs, "Job", &out);
  for (const VcJob& job : objects.jobs) ValidateJob(job, queues, &out);
  CheckDuplicates(objects.podgroups, "PodGroup", &out);
  for (const PodGroup& pg : objects.podgroups) ValidatePodGroup(pg, queues, &out);
  CheckDuplicates(objects.pods, "Pod", &out);
  for (const Pod& pod : objects.pods) ValidatePod(pod, &out);
  for (const HyperNode& h : objects.hypernodes) ValidateHyperNode(h, &out);
  for (const CronJob& cj : objects.cron_jobs) ValidateCronJob(cj, &out);

  std::stable_sort(out.begin(), out.end(),
                   [](const AdmissionProblem& a, const AdmissionProblem& b) {
                     auto sa = SplitSourceLine(a.source), sb = SplitSourceLine(b.source);
                     if (sa != sb) return sa < sb;
                     return a.object < b.object;
                   });
  return out;
}

std::vector<AdmissionProblem> ValidationWarnings(const ClusterObjects& objects, RuleScope scope) {
  std::vector<AdmissionProblem> out;
  for (const RuleFinding& f : CheckObjectRules(objects, scope)) {
    if (f.in_validate == RuleSeverity::kWarning)
      out.push_back({f.object, f.source, f.field, f.message});
  }
  return out;
}

}  // namespace basalt
