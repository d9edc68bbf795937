// Deriving tasks and jobs from store objects (framework/snapshot_builder.h).
#include "framework/snapshot_builder.h"

#include <charconv>
#include <cstdlib>

#include "api/well_known.h"

namespace basalt {
namespace {

bool ParseBoolLenient(const std::string& v, bool* out) {
  if (v == "true" || v == "True" || v == "TRUE" || v == "1") {
    *out = true;
    return true;
  }
  if (v == "false" || v == "False" || v == "FALSE" || v == "0") {
    *out = false;
    return true;
  }
  return false;
}

const std::string* FindKey(const std::map<std::string, std::string>& m, const std::string& key) {
  if (m.empty()) return nullptr;
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// The metadata keys the snapshot reads, built once: looking a literal up in a
// std::map<std::string, ...> would build a temporary string per pod.
const std::string& GroupNameKey() { return kGroupNameAnnotation; }
const std::string& PreemptableKey() {
  static const std::string k = "volcano.sh/preemptable";
  return k;
}
const std::string& TaskPriorityKey() {
  static const std::string k = "volcano.sh/task-priority";
  return k;
}
const std::string& TaskSpecKey() {
  static const std::string k = "volcano.sh/task-spec";
  return k;
}

// Appends the number in decimal (no locale, no stream).
void AppendNumber(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// The scheduling-relevant inputs of a pod, as text: equal text, equal predicate
// answers. Built for every pending pod of every cycle, so it appends into one
// buffer instead of concatenating temporaries.
std::string SpecSignature(const Pod& pod) {
  static const std::string kCardName = "volcano.sh/card.name";
  const PodSpec& s = pod.spec;
  std::string sig;
  sig.reserve(128);
  sig.append(pod.meta.namespace_).push_back('|');
  AppendNumber(sig, s.request.milli_cpu());
  sig.push_back(',');
  AppendNumber(sig, s.request.memory());
  for (const auto& [id, value] : s.request.scalars()) {
    sig.push_back(',');
    AppendNumber(sig, id);
    sig.push_back('=');
    AppendNumber(sig, value);
  }
  sig.push_back('|');
  sig.append(s.priority_class_name).push_back('|');
  for (const auto& [k, v] : s.node_selector) sig.append(k).append("=").append(v).push_back(',');
  sig.push_back('|');
  auto term = [&sig](const NodeSelectorTerm& t) {
    for (const auto* list : {&t.match_expressions, &t.match_fields}) {
      for (const auto& r : *list) {
        sig.append(r.key).append(" ").append(r.op);
        for (const auto& v : r.values) sig.append(" ").append(v);
        sig.push_back(';');
      }
      sig.push_back('/');
    }
  };
  for (const auto& t : s.required_node_affinity) term(t);
  sig.push_back('|');
  for (const auto& p : s.preferred_node_affinity) {
    AppendNumber(sig, p.weight);
    sig.push_back(':');
    term(p.preference);
  }
  sig.push_back('|');
  for (const auto& t : s.tolerations) {
    sig.append(t.key)
        .append(" ")
        .append(t.op)
        .append(" ")
        .append(t.value)
        .append(" ")
        .append(t.effect)
        .push_back(';');
  }
  sig.push_back('|');
  for (const auto& p : s.host_ports) {
    AppendNumber(sig, p.port);
    sig.append("/").append(p.protocol).append("@").append(p.host_ip).push_back(';');
  }
  // capacity-card scores nodes by the pod's card models (volcano.sh/card.name).
  if (const std::string* card = FindKey(pod.meta.annotations, kCardName))
    sig.append("|").append(*card);
  return sig;
}

int64_t NameIndex(const std::string& name) {
  size_t parts = std::count(name.begin(), name.end(), '-') + 1;
  if (parts < 3) return -1;
  std::string last = name.substr(name.rfind('-') + 1);
  if (last.empty() || last.size() > 18) return -1;
  for (char c : last) {
    if (c < '0' || c > '9') return -1;
  }
  return std::stoll(last);
}

std::optional<int32_t> PriorityClassValue(const ClusterState& state, const std::string& name) {
  auto it = state.priority_classes().find(name);
  if (it == state.priority_classes().end()) return std::nullopt;
  return it->second.value;
}

}  // namespace

void DropPerCardResources(Resource* r) {
  static const ResourceId kIds[] = {ResourceNames::Intern("volcano.sh/vgpu-memory"),
                                    ResourceNames::Intern("volcano.sh/vgpu-memory-percentage"),
                                    ResourceNames::Intern("volcano.sh/vgpu-cores")};
  for (ResourceId id : kIds) {
    if (r->Has(id)) r->Erase(id);
  }
}

void ReadQueue(const Queue& q, QueueInfo* info) {
  info->queue = &q;
  info->weight = q.weight;
  info->priority = q.priority;
  info->reclaimable = q.IsReclaimable();
  info->state = q.state;
  info->parent = q.parent;
  info->creation = q.meta.creation_timestamp;
}

SnapshotBuilder::SnapshotBuilder(const ClusterState& state, const SnapshotScope& scope,
                                 Snapshot& snapshot)
    : state_(state), scope_(scope), snap_(snapshot) {
  for (const auto& [name, pc] : state_.priority_classes()) {
    if (pc.global_default) default_priority_ = pc.value;
  }
}

std::optional<int32_t> SnapshotBuilder::ClassValue(const std::string& name) {
  if (!last_class_name_ || *last_class_name_ != name) {
    last_class_name_ = &name;
    last_class_value_ = PriorityClassValue(state_, name);
  }
  return last_class_value_;
}

bool SnapshotBuilder::DeriveJob(const std::string& key, const PodGroup& pg, JobInfo* job) {
  const std::string& qname = pg.queue.empty() ? scope_.default_queue : pg.queue;
  auto q = snap_.queue_index.find(qname);
  if (q == snap_.queue_index.end()) return false;
  job->podgroup = &pg;
  job->key = key;
  job->queue = q->second;
  job->priority = default_priority_;
  if (!pg.priority_class_name.empty()) {
    if (auto v = PriorityClassValue(state_, pg.priority_class_name)) job->priority = *v;
  }
  job->min_member = pg.min_member;
  job->min_task_member = pg.min_task_member;
  job->min_resources = pg.min_resources;
  job->phase = pg.phase;
  job->creation = pg.meta.creation_timestamp;
  const std::string* pre = FindKey(pg.meta.annotations, PreemptableKey());
  if (!pre) pre = FindKey(pg.meta.labels, PreemptableKey());
  if (pre) ParseBoolLenient(*pre, &job->preemptable);
  return true;
}

TaskStatus SnapshotBuilder::StatusOf(const Pod& pod) {
  if (pod.phase == "Running")
    return pod.meta.deleting ? TaskStatus::kReleasing : TaskStatus::kRunning;
  if (pod.phase == "Pending") {
    if (pod.meta.deleting) return TaskStatus::kReleasing;
    return pod.spec.node_name.empty() ? TaskStatus::kPending : TaskStatus::kBound;
  }
  if (pod.phase == "Succeeded") return TaskStatus::kSucceeded;
  if (pod.phase == "Failed") return TaskStatus::kFailed;
  return TaskStatus::kUnknown;
}

// The job of the pod's PodGroup (kNone without one); `orphan` when the pod is
// ours and names a group the snapshot lacks.
JobId SnapshotBuilder::GroupJob(const Pod& pod, bool ours, bool* orphan) {
  *orphan = false;
  const std::string* g = FindKey(pod.meta.annotations, GroupNameKey());
  if (!g) return kNone;
  group_key_.assign(pod.meta.namespace_).append("/").append(*g);
  if (group_key_ != last_group_key_ || last_group_job_ == kNone) {
    last_group_job_ = FindByKey(snap_.jobs, group_key_);
    last_group_key_ = group_key_;
  }
  *orphan = ours && last_group_job_ == kNone;
  return last_group_job_;
}

// Priority as the Priority admission plugin would have set it, then the
// task-priority annotation.
int32_t SnapshotBuilder::PriorityOf(const Pod& pod) {
  int32_t priority = default_priority_;
  if (pod.spec.has_priority) {
    priority = pod.spec.priority;
  } else if (auto v = ClassValue(pod.spec.priority_class_name);
             v && !pod.spec.priority_class_name.empty()) {
    priority = *v;
  }
  if (const std::string* tp = FindKey(pod.meta.annotations, TaskPriorityKey())) {
    char* end = nullptr;
    long v = std::strtol(tp->c_str(), &end, 10);
    if (!tp->empty() && *end == '\0') priority = static_cast<int32_t>(v);
  }
  return priority;
}

bool SnapshotBuilder::PreemptNever(const Pod& pod) const {
  if (pod.spec.preemption_policy) return *pod.spec.preemption_policy == "Never";
  if (pod.spec.priority_class_name.empty()) return false;
  auto it = state_.priority_classes().find(pod.spec.priority_class_name);
  return it != state_.priority_classes().end() && it->second.preemption_policy == "Never";
}

NodeId SnapshotBuilder::NodeOf(const Pod& pod) const {
  if (node_by_name_) {
    auto n = node_by_name_->find(pod.spec.node_name);
    return n != node_by_name_->end() ? n->second : kNone;
  }
  auto n = snap_.node_index.find(pod.spec.node_name);
  return n != snap_.node_index.end() ? n->second : kNone;
}

bool SnapshotBuilder::DeriveTask(const std::string& key, const Pod& pod, TaskInfo* t) {
  const bool ours = scope_.scheduler_names.count(pod.spec.scheduler_name) > 0;
  const TaskStatus status = StatusOf(pod);
  bool orphan = false;
  const JobId job = GroupJob(pod, ours, &orphan);
  if (orphan) {
    snap_.orphans[key] = group_key_;
  } else if (track_orphans_) {
    snap_.orphans.erase(key);
  }
  const bool on_node = !pod.spec.node_name.empty() && IsOnNodeStatus(status);
  // A pending pod that is not ours, or ours without a group, takes no part.
  if (!on_node && (job == kNone || !ours)) return false;
  t->pod = &pod;
  t->key = key;
  t->job = ours ? job : kNone;
  t->status = status;
  t->node = kNone;
  t->request = pod.spec.request;
  DropPerCardResources(&t->request);
  t->best_effort = t->request.IsEmptyIgnoringPods();
  t->gated = pod.spec.scheduling_gates > 0;
  t->has_host_ports = !pod.spec.host_ports.empty();
  t->spec_signature.clear();
  if (status == TaskStatus::kPending) t->spec_signature = SpecSignature(pod);
  t->creation = pod.meta.creation_timestamp;
  t->name_index = NameIndex(pod.meta.name);
  t->equivalence_class = kNone;
  t->nominated_node = pod.nominated_node_name;
  t->nominate_on_pipeline = false;
  t->priority = PriorityOf(pod);
  t->preemptable = true;
  const std::string* pre = FindKey(pod.meta.annotations, PreemptableKey());
  if (!pre) pre = FindKey(pod.meta.labels, PreemptableKey());
  if (pre && !ParseBoolLenient(*pre, &t->preemptable)) t->preemptable = false;
  t->role.clear();
  const std::string* role = FindKey(pod.meta.annotations, TaskSpecKey());
  if (!role) role = FindKey(pod.meta.labels, TaskSpecKey());
  if (role) t->role = *role;
  t->preempt_never = PreemptNever(pod);
  if (on_node) t->node = NodeOf(pod);
  return true;
}

void SnapshotBuilder::NumberEquivalenceClasses() {
  std::unordered_map<std::string_view, int32_t> classes;
  const std::string* last_signature = nullptr;
  int32_t last_class = kNone;
  for (TaskInfo& t : snap_.tasks) {
    t.equivalence_class = kNone;
    if (t.status != TaskStatus::kPending) continue;
    if (!last_signature || t.spec_signature != *last_signature) {
      last_class =
          classes.emplace(t.spec_signature, static_cast<int32_t>(classes.size())).first->second;
      last_signature = &t.spec_signature;
    }
    t.equivalence_class = last_class;
  }
}

}  // namespace basalt
