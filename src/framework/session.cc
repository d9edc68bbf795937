#include "framework/session.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "api/check.h"

namespace basalt {

const char* TaskStatusName(TaskStatus s) {
  switch (s) {
    case TaskStatus::kPending: return "Pending";
    case TaskStatus::kAllocated: return "Allocated";
    case TaskStatus::kPipelined: return "Pipelined";
    case TaskStatus::kBinding: return "Binding";
    case TaskStatus::kBound: return "Bound";
    case TaskStatus::kRunning: return "Running";
    case TaskStatus::kReleasing: return "Releasing";
    case TaskStatus::kSucceeded: return "Succeeded";
    case TaskStatus::kFailed: return "Failed";
    case TaskStatus::kUnknown: return "Unknown";
    case TaskStatus::kCount: break;
  }
  return "?";
}

int32_t JobInfo::ReadyTaskNum() const {
  return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
         Count(TaskStatus::kAllocated) + Count(TaskStatus::kSucceeded);
}
int32_t JobInfo::WaitingTaskNum() const { return Count(TaskStatus::kPipelined); }
int32_t JobInfo::ValidTaskNum() const {
  return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
         Count(TaskStatus::kAllocated) + Count(TaskStatus::kSucceeded) + Count(TaskStatus::kPipelined) +
         Count(TaskStatus::kPending);
}

std::string FitErrors::Message(int total_nodes) const {
  if (node_reasons.empty() && !reason_counts) {
    return error.empty() ? "0/" + std::to_string(total_nodes) + " nodes are available" : error;
  }
  std::map<std::string, int64_t> hist;
  if (reason_counts) hist = *reason_counts;
  for (const auto& [node, reasons] : node_reasons) {
    for (const auto& r : reasons) ++hist[r];
  }
  std::vector<std::pair<int64_t, std::string>> items;
  for (const auto& [r, n] : hist) items.push_back({n, r});
  // Most common reason first; ties by text, so the message is deterministic.
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string msg = "0/" + std::to_string(total_nodes) + " nodes are available: ";
  for (size_t i = 0; i < items.size(); ++i) {
    msg += (i ? ", " : "") + std::to_string(items[i].first) + " " + items[i].second;
  }
  return msg + ".";
}

// ---- plugin slots ----

struct Session::Slot {
  int tier = 0;
  const PluginOption* option = nullptr;
  std::unique_ptr<Plugin> plugin;
  JobOrderFn job_order;
  QueueOrderFn queue_order;
  TaskOrderFn task_order;
  VictimQueueOrderFn victim_queue_order;
  PrePredicateFn pre_predicate;
  PredicateFn predicate;
  NodeOrderFn node_order;
  BatchNodeOrderFn batch_node_order;
  bool batch_subset_uniform = false;
  EvictableFn preemptable;
  EvictableFn reclaimable;
  QueueFn overused;
  QueueTaskFn preemptive;
  QueueTaskFn allocatable;
  JobValidFn job_valid;
  JobFn job_ready;
  JobVoteFn job_pipelined;
  JobVoteFn job_enqueueable;
  JobNotifyFn job_enqueued;
  JobFn job_starving;
  VictimTasksFn victim_tasks;
  bool On(Switch s) const { return option->Enabled(s); }
};

Session::Session(const ClusterState& state, const SchedulerConfig& conf, SessionOptions options)
    : state_(state), conf_(conf), options_(std::move(options)) {}

Session::~Session() = default;

Session::Slot& Session::Current() {
  BASALT_CHECK(current_slot_ >= 0) << "extension points may only be registered from OnSessionOpen";
  return *slots_[current_slot_];
}

void Session::AddJobOrderFn(JobOrderFn fn) { Current().job_order = std::move(fn); }
void Session::AddQueueOrderFn(QueueOrderFn fn) { Current().queue_order = std::move(fn); }
void Session::AddTaskOrderFn(TaskOrderFn fn) { Current().task_order = std::move(fn); }
void Session::AddVictimQueueOrderFn(VictimQueueOrderFn fn) { Current().victim_queue_order = std::move(fn); }
void Session::AddPrePredicateFn(PrePredicateFn fn) { Current().pre_predicate = std::move(fn); }
void Session::AddPredicateFn(PredicateFn fn) { Current().predicate = std::move(fn); }
void Session::AddNodeOrderFn(NodeOrderFn fn) { Current().node_order = std::move(fn); }
void Session::AddBatchNodeOrderFn(BatchNodeOrderFn fn, bool subset_uniform) {
  Current().batch_node_order = std::move(fn);
  Current().batch_subset_uniform = subset_uniform;
}
void Session::AddPreemptableFn(EvictableFn fn) { Current().preemptable = std::move(fn); }
void Session::AddReclaimableFn(EvictableFn fn) { Current().reclaimable = std::move(fn); }
void Session::AddOverusedFn(QueueFn fn) { Current().overused = std::move(fn); }
void Session::AddPreemptiveFn(QueueTaskFn fn) { Current().preemptive = std::move(fn); }
void Session::AddAllocatableFn(QueueTaskFn fn) { Current().allocatable = std::move(fn); }
void Session::AddJobValidFn(JobValidFn fn) { Current().job_valid = std::move(fn); }
void Session::AddJobReadyFn(JobFn fn) { Current().job_ready = std::move(fn); }
void Session::AddJobPipelinedFn(JobVoteFn fn) { Current().job_pipelined = std::move(fn); }
void Session::AddJobEnqueueableFn(JobVoteFn fn) { Current().job_enqueueable = std::move(fn); }
void Session::AddJobEnqueuedFn(JobNotifyFn fn) { Current().job_enqueued = std::move(fn); }
void Session::AddJobStarvingFn(JobFn fn) { Current().job_starving = std::move(fn); }
void Session::AddVictimTasksFn(VictimTasksFn fn) { Current().victim_tasks = std::move(fn); }
void Session::AddEventHandler(EventHandler handler) { handlers_.push_back(std::move(handler)); }
void Session::AddBindAnnotationsFn(BindAnnotationsFn fn) { bind_annotation_fns_.push_back(std::move(fn)); }

// ---- snapshot ----

namespace {

bool ParseBoolLenient(const std::string& v, bool* out) {
  if (v == "true" || v == "True" || v == "TRUE" || v == "1") { *out = true; return true; }
  if (v == "false" || v == "False" || v == "FALSE" || v == "0") { *out = false; return true; }
  return false;
}

const std::string* FindKey(const std::map<std::string, std::string>& m, const std::string& key) {
  if (m.empty()) return nullptr;
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// The metadata keys the snapshot reads, built once: looking a literal up in a
// std::map<std::string, ...> would build a temporary string per pod.
const std::string& GroupNameKey() { static const std::string k = "scheduling.k8s.io/group-name"; return k; }
const std::string& PreemptableKey() { static const std::string k = "volcano.sh/preemptable"; return k; }
const std::string& TaskPriorityKey() { static const std::string k = "volcano.sh/task-priority"; return k; }
const std::string& TaskSpecKey() { static const std::string k = "volcano.sh/task-spec"; return k; }

// Per-card vGPU quantities (memory, memory percentage, cores of each card).
// The deviceshare plugin accounts them card by card; node fit and queue shares
// skip them, as Volcano's scheduler does (its "ignored device resources").
// Only vgpu-number, which the device plugin advertises, is node-level.
void DropPerCardResources(Resource* r) {
  static const ResourceId kIds[] = {ResourceNames::Intern("volcano.sh/vgpu-memory"),
                                    ResourceNames::Intern("volcano.sh/vgpu-memory-percentage"),
                                    ResourceNames::Intern("volcano.sh/vgpu-cores")};
  for (ResourceId id : kIds) {
    if (r->Has(id)) r->Erase(id);
  }
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
    sig.append(t.key).append(" ").append(t.op).append(" ").append(t.value).append(" ").append(t.effect).push_back(';');
  }
  sig.push_back('|');
  for (const auto& p : s.host_ports) {
    AppendNumber(sig, p.port);
    sig.append("/").append(p.protocol).append("@").append(p.host_ip).push_back(';');
  }
  // capacity-card scores nodes by the pod's card models (volcano.sh/card.name).
  if (const std::string* card = FindKey(pod.meta.annotations, kCardName)) sig.append("|").append(*card);
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

}  // namespace

std::optional<int32_t> Session::PriorityClassValue(const std::string& name) const {
  auto it = state_.priority_classes().find(name);
  if (it == state_.priority_classes().end()) return std::nullopt;
  return it->second.value;
}

Status Session::BuildSnapshot() {
  int32_t default_priority = 0;
  for (const auto& [name, pc] : state_.priority_classes()) {
    if (pc.global_default) default_priority = pc.value;
  }
  nodes_.reserve(state_.nodes().size());
  queues_.reserve(state_.queues().size());
  jobs_.reserve(state_.podgroups().size());
  tasks_.reserve(state_.pods().size());
  for (const auto& [name, n] : state_.nodes()) {
    NodeInfo info;
    info.id = static_cast<NodeId>(nodes_.size());
    info.node = &n;
    info.name = name;
    info.allocatable = n.allocatable;
    DropPerCardResources(&info.allocatable);
    info.idle_ = info.allocatable;
    total_resource_ += info.allocatable;
    node_index_.emplace_hint(node_index_.end(), name, info.id);  // the store iterates in name order
    nodes_.push_back(std::move(info));
  }
  for (const auto& [name, q] : state_.queues()) {
    QueueInfo info;
    info.id = static_cast<QueueId>(queues_.size());
    info.queue = &q;
    info.name = name;
    info.weight = q.weight;
    info.priority = q.priority;
    info.reclaimable = q.IsReclaimable();
    info.state = q.state;
    info.parent = q.parent;
    info.creation = q.meta.creation_timestamp;
    queue_index_.emplace_hint(queue_index_.end(), name, info.id);
    queues_.push_back(std::move(info));
  }
  // Hash indexes for the per-pod lookups (keys borrowed from the store).
  std::unordered_map<std::string_view, JobId> job_index;
  std::unordered_map<std::string_view, NodeId> node_by_name;
  node_by_name.reserve(nodes_.size());
  for (const NodeInfo& n : nodes_) node_by_name.emplace(n.name, n.id);
  job_index.reserve(state_.podgroups().size());
  std::string group_key;
  // Pods of one group are neighbours in key order and share a spec and a
  // priority class, so each lookup first checks the previous pod's answer.
  std::string last_group_key;
  JobId last_group_job = kNone;
  std::unordered_map<std::string, int32_t> classes;
  std::string last_signature;
  int32_t last_class = kNone;
  const std::string* last_class_name = nullptr;
  std::optional<int32_t> last_class_value;
  auto class_value = [&](const std::string& name) {
    if (!last_class_name || *last_class_name != name) {
      last_class_name = &name;
      last_class_value = PriorityClassValue(name);
    }
    return last_class_value;
  };
  for (const auto& [key, pg] : state_.podgroups()) {
    std::string qname = pg.queue.empty() ? options_.default_queue : pg.queue;
    auto q = queue_index_.find(qname);
    if (q == queue_index_.end()) continue;  // unknown queue: not in the snapshot (as Volcano)
    JobInfo job;
    job.id = static_cast<JobId>(jobs_.size());
    job.podgroup = &pg;
    job.key = key;
    job.queue = q->second;
    job.priority = default_priority;
    if (!pg.priority_class_name.empty()) {
      if (auto v = PriorityClassValue(pg.priority_class_name)) job.priority = *v;
    }
    job.min_member = pg.min_member;
    job.min_task_member = pg.min_task_member;
    job.min_resources = pg.min_resources;
    job.phase = pg.phase;
    job.creation = pg.meta.creation_timestamp;
    const std::string* pre = FindKey(pg.meta.annotations, PreemptableKey());
    if (!pre) pre = FindKey(pg.meta.labels, PreemptableKey());
    if (pre) ParseBoolLenient(*pre, &job.preemptable);
    job_index.emplace(key, job.id);
    jobs_.push_back(std::move(job));
  }
  for (const auto& [key, pod] : state_.pods()) {
    const bool ours = options_.scheduler_names.count(pod.spec.scheduler_name) > 0;
    TaskStatus status;
    if (pod.phase == "Running") {
      status = pod.meta.deleting ? TaskStatus::kReleasing : TaskStatus::kRunning;
    } else if (pod.phase == "Pending") {
      if (pod.meta.deleting) {
        status = TaskStatus::kReleasing;
      } else {
        status = pod.spec.node_name.empty() ? TaskStatus::kPending : TaskStatus::kBound;
      }
    } else if (pod.phase == "Succeeded") {
      status = TaskStatus::kSucceeded;
    } else if (pod.phase == "Failed") {
      status = TaskStatus::kFailed;
    } else {
      status = TaskStatus::kUnknown;
    }
    JobId job = kNone;
    if (const std::string* g = FindKey(pod.meta.annotations, GroupNameKey())) {
      group_key.assign(pod.meta.namespace_).append("/").append(*g);
      if (group_key != last_group_key || last_group_job == kNone) {
        auto it = job_index.find(group_key);
        last_group_job = it != job_index.end() ? it->second : kNone;
        last_group_key = group_key;
      }
      job = last_group_job;
    }
    const bool on_node = !pod.spec.node_name.empty() && IsOnNodeStatus(status);
    // A pending pod that is not ours, or ours without a group, takes no part.
    if (!on_node && (job == kNone || !ours)) continue;
    TaskInfo t;
    t.id = static_cast<TaskId>(tasks_.size());
    t.pod = &pod;
    t.key = key;
    t.job = ours ? job : kNone;
    t.status = status;
    t.request = pod.spec.request;
    DropPerCardResources(&t.request);
    t.best_effort = t.request.IsEmptyIgnoringPods();
    t.gated = pod.spec.scheduling_gates > 0;
    t.creation = pod.meta.creation_timestamp;
    t.name_index = NameIndex(pod.meta.name);
    // Only pending tasks look for nodes; the others need no class.
    t.equivalence_class = kNone;
    if (status == TaskStatus::kPending) {
      std::string signature = SpecSignature(pod);
      if (last_class == kNone || signature != last_signature) {
        last_class = classes.emplace(signature, static_cast<int32_t>(classes.size())).first->second;
        last_signature = std::move(signature);
      }
      t.equivalence_class = last_class;
    }
    t.nominated_node = pod.nominated_node_name;
    // Priority as the Priority admission plugin would have set it.
    if (pod.spec.has_priority) {
      t.priority = pod.spec.priority;
    } else if (auto v = class_value(pod.spec.priority_class_name); v && !pod.spec.priority_class_name.empty()) {
      t.priority = *v;
    } else {
      t.priority = default_priority;
    }
    if (const std::string* tp = FindKey(pod.meta.annotations, TaskPriorityKey())) {
      char* end = nullptr;
      long v = std::strtol(tp->c_str(), &end, 10);
      if (!tp->empty() && *end == '\0') t.priority = static_cast<int32_t>(v);
    }
    const std::string* pre = FindKey(pod.meta.annotations, PreemptableKey());
    if (!pre) pre = FindKey(pod.meta.labels, PreemptableKey());
    if (pre && !ParseBoolLenient(*pre, &t.preemptable)) t.preemptable = false;
    const std::string* role = FindKey(pod.meta.annotations, TaskSpecKey());
    if (!role) role = FindKey(pod.meta.labels, TaskSpecKey());
    if (role) t.role = *role;
    if (pod.spec.preemption_policy) {
      t.preempt_never = *pod.spec.preemption_policy == "Never";
    } else if (!pod.spec.priority_class_name.empty()) {
      auto it = state_.priority_classes().find(pod.spec.priority_class_name);
      t.preempt_never = it != state_.priority_classes().end() && it->second.preemption_policy == "Never";
    }
    tasks_.push_back(std::move(t));
    TaskInfo& task = tasks_.back();
    if (on_node) {
      auto n = node_by_name.find(pod.spec.node_name);
      if (n != node_by_name.end()) {
        task.node = n->second;
        NodeAdd(nodes_[n->second], task);
      }
    }
    if (task.job != kNone) {
      JobInfo& j = jobs_[task.job];
      j.tasks.push_back(task.id);
      ++j.status_count[static_cast<size_t>(task.status)];
      j.total_request += task.request;
      if (IsAllocatedStatus(task.status)) j.allocated += task.request;
    }
  }
  // Caches keyed on node changes start from the snapshot, not from its making.
  node_change_log_.clear();
  return Status::Ok();
}

Result<std::unique_ptr<Session>> Session::Open(const ClusterState& state, const SchedulerConfig& conf,
                                               const PluginRegistry& plugins, const SessionOptions& options) {
  std::unique_ptr<Session> ssn(new Session(state, conf, options));
  BASALT_RETURN_IF_ERROR(ssn->BuildSnapshot());
  for (size_t t = 0; t < conf.tiers.size(); ++t) {
    for (const PluginOption& opt : conf.tiers[t].plugins) {
      auto plugin = plugins.Create(opt.name, opt.arguments);
      if (!plugin.ok()) return plugin.status();
      auto slot = std::make_unique<Slot>();
      slot->tier = static_cast<int>(t);
      slot->option = &opt;
      slot->plugin = std::move(plugin).value();
      ssn->slots_.push_back(std::move(slot));
    }
  }
  for (size_t i = 0; i < ssn->slots_.size(); ++i) {
    ssn->current_slot_ = static_cast<int>(i);
    ssn->slots_[i]->plugin->OnSessionOpen(*ssn);
  }
  ssn->current_slot_ = -1;
  return ssn;
}

std::optional<NodeId> Session::FindNode(const std::string& name) const {
  auto it = node_index_.find(name);
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<QueueId> Session::FindQueue(const std::string& name) const {
  auto it = queue_index_.find(name);
  if (it == queue_index_.end()) return std::nullopt;
  return it->second;
}

// ---- orders ----

bool Session::JobOrderLess(const JobInfo& a, const JobInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->job_order || !s->On(Switch::kJobOrder)) continue;
    int r = s->job_order(a, b);
    if (r != 0) return r < 0;
  }
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.key < b.key;
}

bool Session::QueueOrderLess(const QueueInfo& a, const QueueInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->queue_order || !s->On(Switch::kQueueOrder)) continue;
    int r = s->queue_order(a, b);
    if (r != 0) return r < 0;
  }
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.name < b.name;
}

bool Session::TaskOrderLess(const TaskInfo& a, const TaskInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->task_order || !s->On(Switch::kTaskOrder)) continue;
    int r = s->task_order(a, b);
    if (r != 0) return r < 0;
  }
  if (a.name_index >= 0 && b.name_index >= 0 && a.name_index != b.name_index) return a.name_index < b.name_index;
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.key < b.key;
}

bool Session::VictimQueueOrderLess(const QueueInfo& a, const QueueInfo& b, const QueueInfo& reclaimer) const {
  for (const auto& s : slots_) {
    if (!s->victim_queue_order) continue;  // always on (no switch)
    int r = s->victim_queue_order(a, b, reclaimer);
    if (r != 0) return r < 0;
  }
  if (a.id == b.id) return false;
  return !QueueOrderLess(a, b);
}

// ---- predicates and scores ----

PredicateStatus Session::PrePredicate(const TaskInfo& task) const {
  for (const auto& s : slots_) {
    if (!s->pre_predicate || !s->On(Switch::kPredicate)) continue;
    PredicateStatus st = s->pre_predicate(task);
    if (!st.ok()) return st;
  }
  return PredicateStatus::Success();
}

PredicateStatus Session::Predicate(const TaskInfo& task, const NodeInfo& node) const {
  for (const auto& s : slots_) {
    if (!s->predicate || !s->On(Switch::kPredicate)) continue;
    PredicateStatus st = s->predicate(task, node);
    if (!st.ok()) return st;
  }
  return PredicateStatus::Success();
}

bool Session::HasPredicates() const {
  for (const auto& s : slots_) {
    if (s->predicate && s->On(Switch::kPredicate)) return true;
  }
  return false;
}

double Session::NodeOrderScore(const TaskInfo& task, const NodeInfo& node) const {
  double score = 0;
  for (const auto& s : slots_) {
    if (s->node_order && s->On(Switch::kNodeOrder)) score += s->node_order(task, node);
  }
  return score;
}

std::vector<double> Session::NodeScores(const TaskInfo& task, const std::vector<const NodeInfo*>& nodes) const {
  std::vector<double> scores(nodes.size(), 0.0);
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder)) continue;
    if (s->node_order) {
      for (size_t i = 0; i < nodes.size(); ++i) scores[i] += s->node_order(task, *nodes[i]);
    }
    if (s->batch_node_order) {
      std::vector<double> b = s->batch_node_order(task, nodes);
      for (size_t i = 0; i < nodes.size() && i < b.size(); ++i) scores[i] += b[i];
    }
  }
  return scores;
}

bool Session::UniformBatchScores(const TaskInfo& task, std::vector<double>* constants) const {
  constants->clear();
  std::vector<const NodeInfo*> all;
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder) || !s->batch_node_order) continue;
    if (!s->batch_subset_uniform) return false;
    if (all.empty()) {
      all.reserve(nodes_.size());
      for (const NodeInfo& n : nodes_) all.push_back(&n);
    }
    std::vector<double> b = s->batch_node_order(task, all);
    if (b.size() != all.size()) return false;
    for (double v : b) {
      if (!(v == b.front())) return false;
    }
    constants->push_back(b.empty() ? 0.0 : b.front());
  }
  return true;
}

double Session::NodeScoreWith(const TaskInfo& task, const NodeInfo& node, const std::vector<double>& constants) const {
  // The additions of NodeScores, in the same order.
  double score = 0.0;
  size_t batch = 0;
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder)) continue;
    if (s->node_order) score += s->node_order(task, node);
    if (s->batch_node_order) score += constants[batch++];
  }
  return score;
}

// ---- victims ----

std::vector<const TaskInfo*> Session::VoteVictims(const TaskInfo& t, const std::vector<const TaskInfo*>& cands,
                                                  bool reclaim) const {
  Switch sw = reclaim ? Switch::kReclaimable : Switch::kPreemptable;
  int tier = -1;
  bool have = false;  // "victims is not none" within the current tier
  bool tier_done = false;
  std::vector<const TaskInfo*> victims;
  for (size_t i = 0; i <= slots_.size(); ++i) {
    bool tier_end = i == slots_.size() || slots_[i]->tier != tier;
    if (tier_end && tier != -1) {
      if (have) return victims;
      have = false;
      tier_done = false;
      victims.clear();
    }
    if (i == slots_.size()) break;
    const Slot& s = *slots_[i];
    tier = s.tier;
    if (tier_done) continue;
    const EvictableFn& fn = reclaim ? s.reclaimable : s.preemptable;
    if (!fn || !s.On(sw)) continue;
    auto [got, vote] = fn(t, cands);
    if (vote == Vote::kAbstain) continue;
    if (got.empty()) {  // an empty answer ends this tier (not a veto: the next tier is asked)
      have = false;
      victims.clear();
      tier_done = true;
      continue;
    }
    if (!have) {
      victims = std::move(got);
      have = true;
    } else {
      std::vector<const TaskInfo*> inter;
      for (const TaskInfo* v : victims) {
        if (std::find(got.begin(), got.end(), v) != got.end()) inter.push_back(v);
      }
      victims = std::move(inter);
      have = !victims.empty();  // an empty intersection is "none": the next plugin starts afresh
    }
  }
  return {};
}

std::vector<const TaskInfo*> Session::Preemptable(const TaskInfo& t, const std::vector<const TaskInfo*>& c) const {
  return VoteVictims(t, c, false);
}
std::vector<const TaskInfo*> Session::Reclaimable(const TaskInfo& t, const std::vector<const TaskInfo*>& c) const {
  return VoteVictims(t, c, true);
}

// ---- queue and job votes ----

bool Session::Overused(const QueueInfo& q) const {
  for (const auto& s : slots_) {
    if (s->overused && s->On(Switch::kOverused) && s->overused(q)) return true;
  }
  return false;
}

bool Session::Preemptive(const QueueInfo& q, const TaskInfo& t) const {
  for (const auto& s : slots_) {
    if (s->preemptive && s->On(Switch::kPreemptive) && !s->preemptive(q, t)) return false;
  }
  return true;
}

bool Session::Allocatable(const QueueInfo& q, const TaskInfo& t) const {
  for (const auto& s : slots_) {
    if (s->allocatable && s->On(Switch::kAllocatable) && !s->allocatable(q, t)) return false;
  }
  return true;
}

std::optional<ValidateResult> Session::JobValid(const JobInfo& job) const {
  for (const auto& s : slots_) {
    if (!s->job_valid) continue;  // always on
    if (auto r = s->job_valid(job)) return r;
  }
  return std::nullopt;
}

bool Session::JobReady(const JobInfo& job) const {
  for (const auto& s : slots_) {
    if (s->job_ready && s->On(Switch::kJobReady) && !s->job_ready(job)) return false;
  }
  return true;
}

namespace {
template <typename Slots, typename Get>
bool TierVote(const Slots& slots, Switch sw, Get get, const JobInfo& job) {
  int tier = -1;
  bool permitted = false;
  for (const auto& s : slots) {
    if (s->tier != tier) {
      if (permitted) return true;
      tier = s->tier;
    }
    const JobVoteFn& fn = get(*s);
    if (!fn || !s->On(sw)) continue;
    Vote v = fn(job);
    if (v == Vote::kReject) return false;
    if (v == Vote::kPermit) permitted = true;
  }
  return true;
}
}  // namespace

bool Session::JobPipelined(const JobInfo& job) const {
  return TierVote(slots_, Switch::kJobPipelined, [](const Slot& s) -> const JobVoteFn& { return s.job_pipelined; },
                  job);
}

bool Session::JobEnqueueable(const JobInfo& job) const {
  return TierVote(slots_, Switch::kJobEnqueued,
                  [](const Slot& s) -> const JobVoteFn& { return s.job_enqueueable; }, job);
}

void Session::JobEnqueued(const JobInfo& job) {
  for (const auto& s : slots_) {
    if (s->job_enqueued && s->On(Switch::kJobEnqueued)) s->job_enqueued(job);
  }
}

bool Session::JobStarving(const JobInfo& job) const {
  int tier = -1;
  bool found = false;
  for (const auto& s : slots_) {
    if (s->tier != tier) {
      if (found) return true;  // the tier that had functions said starving
      tier = s->tier;
    }
    if (!s->job_starving || !s->On(Switch::kJobStarving)) continue;
    found = true;
    if (!s->job_starving(job)) return false;
  }
  return found;
}

std::vector<const TaskInfo*> Session::VictimTasks(const std::vector<const TaskInfo*>& running) const {
  int tier = -1;
  std::vector<const TaskInfo*> out;
  for (const auto& s : slots_) {
    if (s->tier != tier) {
      if (!out.empty()) return out;
      tier = s->tier;
    }
    if (!s->victim_tasks || !s->On(Switch::kVictim)) continue;
    for (const TaskInfo* t : s->victim_tasks(running)) {
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  }
  return out;
}

// ---- bookkeeping ----

void Session::NodeAdd(NodeInfo& node, const TaskInfo& task) {
  node_change_log_.push_back(node.id);
  const Resource& r = task.request;
  if (task.status == TaskStatus::kPipelined) {
    node.pipelined_ += r;
  } else if (task.status == TaskStatus::kReleasing) {
    node.idle_ -= r;
    node.used_ += r;
    node.releasing_ += r;
  } else {
    node.idle_ -= r;
    node.used_ += r;
  }
  node.tasks.push_back(task.id);
}

void Session::NodeRemove(NodeInfo& node, const TaskInfo& task) {
  node_change_log_.push_back(node.id);
  auto it = std::find(node.tasks.begin(), node.tasks.end(), task.id);
  BASALT_CHECK(it != node.tasks.end()) << "task " << task.key << " is not on node " << node.name;
  node.tasks.erase(it);
  const Resource& r = task.request;
  if (task.status == TaskStatus::kPipelined) {
    node.pipelined_ -= r;
  } else if (task.status == TaskStatus::kReleasing) {
    node.idle_ += r;
    node.used_ -= r;
    node.releasing_ -= r;
  } else {
    node.idle_ += r;
    node.used_ -= r;
  }
}

void Session::UpdateTaskStatus(TaskInfo& task, TaskStatus status) {
  if (task.status == status) return;
  const bool placed = task.node != kNone;
  if (placed) NodeRemove(nodes_[task.node], task);
  if (task.job != kNone) {
    JobInfo& j = jobs_[task.job];
    --j.status_count[static_cast<size_t>(task.status)];
    ++j.status_count[static_cast<size_t>(status)];
    if (IsAllocatedStatus(task.status)) j.allocated -= task.request;
    if (IsAllocatedStatus(status)) j.allocated += task.request;
  }
  task.status = status;
  if (placed) NodeAdd(nodes_[task.node], task);
}

void Session::PlaceTask(TaskInfo& task, NodeInfo& node, TaskStatus status) {
  BASALT_CHECK(task.node == kNone) << "task " << task.key << " placed twice";
  UpdateTaskStatus(task, status);
  task.node = node.id;
  NodeAdd(node, task);
}

void Session::UnplaceTask(TaskInfo& task) {
  BASALT_CHECK(task.node != kNone) << "task " << task.key << " is not placed";
  NodeRemove(nodes_[task.node], task);
  task.node = kNone;
  task.nominate_on_pipeline = false;
  UpdateTaskStatus(task, TaskStatus::kPending);
}

void Session::FireAllocate(const TaskInfo& task) {
  for (const auto& h : handlers_) {
    if (h.allocate) h.allocate(task);
  }
}

void Session::FireDeallocate(const TaskInfo& task) {
  for (const auto& h : handlers_) {
    if (h.deallocate) h.deallocate(task);
  }
}

void Session::Allocate(TaskInfo& task, NodeInfo& node) {
  PlaceTask(task, node, TaskStatus::kAllocated);
  FireAllocate(task);
  if (task.job != kNone && JobReady(jobs_[task.job])) DispatchJob(jobs_[task.job]);
}

void Session::Pipeline(TaskInfo& task, NodeInfo& node) {
  PlaceTask(task, node, TaskStatus::kPipelined);
  FireAllocate(task);
}

void Session::Evict(TaskInfo& task, const std::string& action, const std::string& reason) {
  UpdateTaskStatus(task, TaskStatus::kReleasing);
  FireDeallocate(task);
  decisions_.evictions.push_back({task.key, action, reason});
}

void Session::DispatchJob(JobInfo& job) {
  for (TaskId id : job.tasks) {
    TaskInfo& t = tasks_[id];
    if (t.status != TaskStatus::kAllocated) continue;
    IssueBind(t);
  }
}

void Session::IssueBind(TaskInfo& task) {
  UpdateTaskStatus(task, TaskStatus::kBinding);
  BindDecision bind{task.key, nodes_[task.node].name, {}};
  for (const BindAnnotationsFn& fn : bind_annotation_fns_) fn(task, &bind.annotations);
  decisions_.binds.push_back(std::move(bind));
}

void Session::RecordEvent(std::string object, std::string type, std::string reason, std::string message) {
  decisions_.events.push_back({std::move(object), std::move(type), std::move(reason), std::move(message)});
}

void Session::Run(Action& action) {
  if (!options_.check_invariants) {
    action.Execute(*this);
    return;
  }
  invariants_.BeforeAction(*this);
  action.Execute(*this);
  Status violation = invariants_.AfterAction(*this, action.Name());
  if (violation.ok()) return;
  BASALT_CHECK(options_.on_invariant_violation) << violation.ToString();
  options_.on_invariant_violation(violation);
}

// ---- close ----

void Session::ComputeClose(Decisions& d) {
  const int total_nodes = static_cast<int>(nodes_.size());
  for (JobInfo& job : jobs_) {
    // PodGroup phase (VOLCANO_SEMANTICS §7).
    if (job.unschedulable && job.Count(TaskStatus::kRunning) > 0) {
      job.phase = "Unknown";
    } else {
      int32_t scheduled = job.Count(TaskStatus::kRunning) + job.Count(TaskStatus::kBound) +
                          job.Count(TaskStatus::kFailed) + job.Count(TaskStatus::kSucceeded);
      int32_t completed = job.Count(TaskStatus::kFailed) + job.Count(TaskStatus::kSucceeded);
      if (scheduled >= job.min_member) {
        job.phase = scheduled == completed ? "Completed" : "Running";
      } else if (job.phase != "Inqueue") {
        job.phase = "Pending";
      }
    }
    d.podgroup_phases[job.key] = job.phase;
    // "Why is it pending": the fit errors of each pending task, on the pod.
    for (TaskId id : job.tasks) {
      const TaskInfo& t = tasks_[id];
      if (t.status != TaskStatus::kPending) continue;
      auto fe = job.fit_errors.find(id);
      if (fe == job.fit_errors.end()) continue;
      d.events.push_back({"Pod/" + t.key, "Warning", "FailedScheduling", fe->second.Message(total_nodes)});
    }
  }
  for (const TaskInfo& t : tasks_) {
    if (t.status == TaskStatus::kPipelined && t.node != kNone) {
      d.pipelined.push_back({t.key, nodes_[t.node].name, t.nominate_on_pipeline});
    }
  }
  for (const QueueInfo& q : queues_) d.queue_allocated[q.name] = Resource();
  for (const JobInfo& job : jobs_) d.queue_allocated[queues_[job.queue].name] += job.allocated;
}

Decisions Session::Close() {
  for (auto& s : slots_) s->plugin->OnSessionClose(*this);
  Decisions d = std::move(decisions_);
  ComputeClose(d);
  return d;
}

}  // namespace basalt
