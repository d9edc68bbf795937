// The session's snapshot: built in full from the store, or patched from the
// snapshot of the previous session (framework/snapshot_cache.h). Both paths
// derive tasks and jobs with one SnapshotBuilder, so they agree by
// construction; sessions with check_invariants also compare them.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "api/check.h"
#include "api/well_known.h"
#include "framework/session.h"
#include "framework/snapshot_cache.h"

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

// Tasks and jobs are in key order (the store's), so a key is found by bisection.
template <typename Info>
int32_t FindByKey(const std::vector<Info>& v, const std::string& key) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const Info& i, const std::string& k) { return i.key < k; });
  return it != v.end() && it->key == key ? static_cast<int32_t>(it - v.begin()) : kNone;
}

// A queue's fields as the snapshot reads them (all but id and name).
void ReadQueue(const Queue& q, QueueInfo* info) {
  info->queue = &q;
  info->weight = q.weight;
  info->priority = q.priority;
  info->reclaimable = q.IsReclaimable();
  info->state = q.state;
  info->parent = q.parent;
  info->creation = q.meta.creation_timestamp;
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

// Derives tasks and jobs from store objects. Pods of one group are neighbours
// in key order and share a priority class, so lookups first check the
// previous pod's answer.
struct Session::SnapshotBuilder {
  explicit SnapshotBuilder(Session& session) : ssn(session) {
    for (const auto& [name, pc] : ssn.state_.priority_classes()) {
      if (pc.global_default) default_priority = pc.value;
    }
  }

  JobId FindJob(const std::string& key) const { return FindByKey(ssn.jobs_, key); }

  std::optional<int32_t> ClassValue(const std::string& name) {
    if (!last_class_name || *last_class_name != name) {
      last_class_name = &name;
      last_class_value = ssn.PriorityClassValue(name);
    }
    return last_class_value;
  }

  // False when the PodGroup takes no part (its queue does not exist, as in Volcano).
  bool DeriveJob(const std::string& key, const PodGroup& pg, JobInfo* job) {
    const std::string& qname = pg.queue.empty() ? ssn.options_.default_queue : pg.queue;
    auto q = ssn.queue_index_.find(qname);
    if (q == ssn.queue_index_.end()) return false;
    job->podgroup = &pg;
    job->key = key;
    job->queue = q->second;
    job->priority = default_priority;
    if (!pg.priority_class_name.empty()) {
      if (auto v = ssn.PriorityClassValue(pg.priority_class_name)) job->priority = *v;
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

  // False when the pod takes no part. Sets the task's node and job (not their
  // totals) and keeps `orphans_` current; the equivalence class is left to the caller.
  bool DeriveTask(const std::string& key, const Pod& pod, TaskInfo* t) {
    const bool ours = ssn.options_.scheduler_names.count(pod.spec.scheduler_name) > 0;
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
    bool orphan = false;
    if (const std::string* g = FindKey(pod.meta.annotations, GroupNameKey())) {
      group_key.assign(pod.meta.namespace_).append("/").append(*g);
      if (group_key != last_group_key || last_group_job == kNone) {
        last_group_job = FindJob(group_key);
        last_group_key = group_key;
      }
      job = last_group_job;
      orphan = ours && job == kNone;
    }
    if (orphan) {
      ssn.orphans_[key] = group_key;
    } else if (track_orphans) {
      ssn.orphans_.erase(key);
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
    // Priority as the Priority admission plugin would have set it.
    if (pod.spec.has_priority) {
      t->priority = pod.spec.priority;
    } else if (auto v = ClassValue(pod.spec.priority_class_name);
               v && !pod.spec.priority_class_name.empty()) {
      t->priority = *v;
    } else {
      t->priority = default_priority;
    }
    if (const std::string* tp = FindKey(pod.meta.annotations, TaskPriorityKey())) {
      char* end = nullptr;
      long v = std::strtol(tp->c_str(), &end, 10);
      if (!tp->empty() && *end == '\0') t->priority = static_cast<int32_t>(v);
    }
    t->preemptable = true;
    const std::string* pre = FindKey(pod.meta.annotations, PreemptableKey());
    if (!pre) pre = FindKey(pod.meta.labels, PreemptableKey());
    if (pre && !ParseBoolLenient(*pre, &t->preemptable)) t->preemptable = false;
    t->role.clear();
    const std::string* role = FindKey(pod.meta.annotations, TaskSpecKey());
    if (!role) role = FindKey(pod.meta.labels, TaskSpecKey());
    if (role) t->role = *role;
    t->preempt_never = false;
    if (pod.spec.preemption_policy) {
      t->preempt_never = *pod.spec.preemption_policy == "Never";
    } else if (!pod.spec.priority_class_name.empty()) {
      auto it = ssn.state_.priority_classes().find(pod.spec.priority_class_name);
      t->preempt_never =
          it != ssn.state_.priority_classes().end() && it->second.preemption_policy == "Never";
    }
    if (on_node) {
      if (node_by_name) {
        auto n = node_by_name->find(pod.spec.node_name);
        if (n != node_by_name->end()) t->node = n->second;
      } else {
        auto n = ssn.node_index_.find(pod.spec.node_name);
        if (n != ssn.node_index_.end()) t->node = n->second;
      }
    }
    return true;
  }

  // Numbers the pending tasks' equivalence classes in task order (first
  // appearance of a signature gets the next number) and clears the others'.
  void NumberEquivalenceClasses() {
    std::unordered_map<std::string_view, int32_t> classes;
    const std::string* last_signature = nullptr;
    int32_t last_class = kNone;
    for (TaskInfo& t : ssn.tasks_) {
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

  Session& ssn;
  int32_t default_priority = 0;
  // Full builds look node names up in a hash index; patches use node_index_.
  const std::unordered_map<std::string_view, NodeId>* node_by_name = nullptr;
  // Patches erase the orphan entry of a pod that found its group.
  bool track_orphans = false;
  std::string group_key;
  std::string last_group_key;
  JobId last_group_job = kNone;
  const std::string* last_class_name = nullptr;
  std::optional<int32_t> last_class_value;
};

namespace {

void AddToJobTotals(JobInfo& j, const TaskInfo& task) {
  ++j.status_count[static_cast<size_t>(task.status)];
  j.total_request += task.request;
  if (IsAllocatedStatus(task.status)) j.allocated += task.request;
}

// Keys sorted, duplicates removed.
void SortUnique(std::vector<std::string>& keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

}  // namespace

Status Session::BuildSnapshot() {
  SnapshotCache* cache = options_.snapshot_cache;
  if (!cache || cache->lent_) return BuildFullSnapshot();
  cache_ = cache;
  cache->lent_ = true;
  if (TakeCachedSnapshot()) {
    PatchSnapshot();
    ++cache->patched_builds_;
    if (options_.check_invariants || options_.verify_snapshot_cache) {
      Status diff = VerifyPatchedSnapshot();
      if (!diff.ok()) {
        BASALT_CHECK(options_.on_invariant_violation) << diff.ToString();
        options_.on_invariant_violation(diff);
      }
    }
  } else {
    BASALT_RETURN_IF_ERROR(BuildFullSnapshot());
    ++cache->full_builds_;
  }
  cache->journal_.MoveToEnd(state_);
  cache->scheduler_names_ = options_.scheduler_names;
  cache->default_queue_ = options_.default_queue;
  return Status::Ok();
}

Status Session::BuildFullSnapshot() {
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
    info.name = name;
    ReadQueue(q, &info);
    queue_index_.emplace_hint(queue_index_.end(), name, info.id);
    queues_.push_back(std::move(info));
  }
  SnapshotBuilder builder(*this);
  std::unordered_map<std::string_view, NodeId> node_by_name;
  node_by_name.reserve(nodes_.size());
  for (const NodeInfo& n : nodes_) node_by_name.emplace(n.name, n.id);
  builder.node_by_name = &node_by_name;
  for (const auto& [key, pg] : state_.podgroups()) {
    JobInfo job;
    if (!builder.DeriveJob(key, pg, &job)) continue;
    job.id = static_cast<JobId>(jobs_.size());
    jobs_.push_back(std::move(job));
  }
  for (const auto& [key, pod] : state_.pods()) {
    TaskInfo t;
    if (!builder.DeriveTask(key, pod, &t)) continue;
    t.id = static_cast<TaskId>(tasks_.size());
    tasks_.push_back(std::move(t));
    TaskInfo& task = tasks_.back();
    if (task.node != kNone) {
      NodeInfo& node = nodes_[task.node];
      AddToNodeTotals(node, task);
      node.tasks.push_back(task.id);
    }
    if (task.job != kNone) {
      JobInfo& j = jobs_[task.job];
      j.tasks.push_back(task.id);
      AddToJobTotals(j, task);
    }
  }
  builder.NumberEquivalenceClasses();
  return Status::Ok();
}

bool Session::TakeCachedSnapshot() {
  SnapshotCache& c = *cache_;
  bool usable =
      c.valid_ && c.journal_.Intact(state_) && c.scheduler_names_ == options_.scheduler_names &&
      c.default_queue_ == options_.default_queue && c.queues_.size() == state_.queues().size() &&
      // Past a quarter of the pods changed, a full build is cheaper.
      c.journal_.Pending(state_) <= std::max<size_t>(1024, state_.pods().size() / 4);
  if (usable) {
    size_t i = 0;
    for (const auto& [name, q] : state_.queues()) usable = usable && c.queues_[i++].name == name;
  }
  c.valid_ = false;
  if (!usable) {
    // Free the stale snapshot before building a new one.
    c.tasks_ = {};
    c.spare_tasks_ = {};
    c.jobs_ = {};
    c.nodes_ = {};
    c.queues_ = {};
    c.node_index_.clear();
    c.queue_index_.clear();
    c.orphans_.clear();
    c.touched_tasks_.clear();
    c.touched_nodes_.clear();
    return false;
  }
  tasks_ = std::move(c.tasks_);
  jobs_ = std::move(c.jobs_);
  nodes_ = std::move(c.nodes_);
  queues_ = std::move(c.queues_);
  node_index_ = std::move(c.node_index_);
  queue_index_ = std::move(c.queue_index_);
  total_resource_ = std::move(c.total_resource_);
  orphans_ = std::move(c.orphans_);
  return true;
}

void Session::PatchSnapshot() {
  SnapshotCache& c = *cache_;
  SnapshotBuilder builder(*this);
  builder.track_orphans = true;
  // Queues are few: read again, in the same order (TakeCachedSnapshot checked the names).
  size_t queue_index = 0;
  for (const auto& [name, q] : state_.queues()) ReadQueue(q, &queues_[queue_index++]);
  std::vector<std::string> pod_keys;
  std::vector<std::string> group_keys;
  c.journal_.ForEachSince(state_, [&](const ClusterState::Change& change) {
    if (change.kind == ClusterState::Change::Kind::kPod) pod_keys.push_back(change.key);
    if (change.kind == ClusterState::Change::Kind::kPodGroup) group_keys.push_back(change.key);
  });
  for (TaskId id : c.touched_tasks_) pod_keys.push_back(tasks_[id].key);
  std::vector<char> node_dirty(nodes_.size(), 0);
  for (NodeId id : c.touched_nodes_) node_dirty[id] = 1;
  c.touched_tasks_.clear();
  c.touched_nodes_.clear();
  SortUnique(group_keys);

  // ---- jobs ----
  std::vector<JobInfo> new_jobs;  // in key order
  std::vector<char> job_removed(jobs_.size(), 0);
  for (const std::string& key : group_keys) {
    const JobId old = FindByKey(jobs_, key);
    const PodGroup* pg = state_.FindPodGroup(key);
    JobInfo fresh;
    const bool present = pg && builder.DeriveJob(key, *pg, &fresh);
    if (old != kNone && present) {
      JobInfo& j = jobs_[old];
      fresh.id = j.id;
      fresh.tasks = std::move(j.tasks);
      fresh.status_count = j.status_count;
      fresh.allocated = std::move(j.allocated);
      fresh.total_request = std::move(j.total_request);
      j = std::move(fresh);
    } else if (old != kNone) {
      job_removed[old] = 1;
      for (TaskId id : jobs_[old].tasks) pod_keys.push_back(tasks_[id].key);
    } else if (present) {
      for (const auto& [pod_key, group] : orphans_) {
        if (group == key) pod_keys.push_back(pod_key);
      }
      new_jobs.push_back(std::move(fresh));
    }
  }
  if (!new_jobs.empty() ||
      std::find(job_removed.begin(), job_removed.end(), 1) != job_removed.end()) {
    std::vector<JobId> remap(jobs_.size(), kNone);
    std::vector<JobInfo> merged;
    merged.reserve(jobs_.size() + new_jobs.size());
    size_t n = 0;
    for (size_t o = 0; o < jobs_.size(); ++o) {
      while (n < new_jobs.size() && new_jobs[n].key < jobs_[o].key)
        merged.push_back(std::move(new_jobs[n++]));
      if (job_removed[o]) continue;
      remap[o] = static_cast<JobId>(merged.size());
      merged.push_back(std::move(jobs_[o]));
    }
    while (n < new_jobs.size()) merged.push_back(std::move(new_jobs[n++]));
    jobs_ = std::move(merged);
    for (size_t j = 0; j < jobs_.size(); ++j) jobs_[j].id = static_cast<JobId>(j);
    for (TaskInfo& t : tasks_) {
      if (t.job != kNone) t.job = remap[t.job];
    }
  }

  // ---- tasks ----
  SortUnique(pod_keys);
  std::vector<char> job_dirty(jobs_.size(), 0);
  std::vector<TaskInfo> new_tasks;  // in key order
  std::vector<char> task_removed(tasks_.size(), 0);
  bool removed_any = false;
  std::vector<TaskId> changed;  // tasks re-derived in place
  auto mark = [&](const TaskInfo& t) {
    if (t.node != kNone) node_dirty[t.node] = 1;
    if (t.job != kNone) job_dirty[t.job] = 1;
  };
  for (const std::string& key : pod_keys) {
    const TaskId old = FindByKey(tasks_, key);
    if (old != kNone) mark(tasks_[old]);
    const Pod* pod = state_.FindPod(key);
    TaskInfo fresh;
    bool present = false;
    if (pod) {
      present = builder.DeriveTask(key, *pod, &fresh);
    } else {
      orphans_.erase(key);
    }
    if (present) mark(fresh);
    if (old != kNone && present) {
      fresh.id = old;
      tasks_[old] = std::move(fresh);
      changed.push_back(old);
    } else if (old != kNone) {
      task_removed[old] = 1;
      removed_any = true;
    } else if (present) {
      new_tasks.push_back(std::move(fresh));
    }
  }
  // Tasks re-derived or new, by their final id: they join the lists of the
  // (marked) node and job they now name.
  std::vector<TaskId> fresh_ids;
  if (new_tasks.empty() && !removed_any) {
    fresh_ids = std::move(changed);
  } else {
    // Ids follow key order, as in a full build. Merge into the spare buffer
    // (no fresh allocation of the whole vector), moving the runs of old tasks
    // between two new ones, then renumber the lists through `remap`, which
    // keeps their order.
    std::vector<TaskInfo> merged = std::move(c.spare_tasks_);
    merged.clear();
    merged.reserve(tasks_.size() + new_tasks.size());
    std::vector<TaskId> remap(tasks_.size(), kNone);
    std::vector<TaskId> new_ids;
    size_t o = 0;
    auto move_old_until = [&](size_t end) {
      for (; o < end; ++o) {
        if (task_removed[o]) continue;
        remap[o] = static_cast<TaskId>(merged.size());
        merged.push_back(std::move(tasks_[o]));
      }
    };
    for (TaskInfo& t : new_tasks) {
      auto at =
          std::lower_bound(tasks_.begin() + static_cast<std::ptrdiff_t>(o), tasks_.end(), t.key,
                           [](const TaskInfo& x, const std::string& k) { return x.key < k; });
      move_old_until(static_cast<size_t>(at - tasks_.begin()));
      new_ids.push_back(static_cast<TaskId>(merged.size()));
      merged.push_back(std::move(t));
    }
    move_old_until(tasks_.size());
    for (TaskId id : changed) fresh_ids.push_back(remap[id]);
    fresh_ids.insert(fresh_ids.end(), new_ids.begin(), new_ids.end());
    tasks_.clear();
    c.spare_tasks_ = std::move(tasks_);
    tasks_ = std::move(merged);
    for (size_t i = 0; i < tasks_.size(); ++i) tasks_[i].id = static_cast<TaskId>(i);
    auto renumber = [&remap](std::vector<TaskId>& v) {
      size_t w = 0;
      for (TaskId id : v) {
        if (remap[id] != kNone) v[w++] = remap[id];
      }
      v.resize(w);
    };
    for (NodeInfo& node : nodes_) renumber(node.tasks);
    for (JobInfo& job : jobs_) renumber(job.tasks);
  }
  // A task belongs where it was listed or where it was re-derived to, if it
  // is there now; lists are in id order, as a full build makes them.
  for (TaskId id : fresh_ids) {
    const TaskInfo& t = tasks_[id];
    if (t.node != kNone) nodes_[t.node].tasks.push_back(id);
    if (t.job != kNone) jobs_[t.job].tasks.push_back(id);
  }
  // Keeps the ids whose task is still there, once each, in id order.
  auto tidy = [](std::vector<TaskId>& v, auto still_there) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](TaskId id) { return !still_there(id); }),
            v.end());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  for (NodeInfo& node : nodes_) {
    if (node_dirty[node.id])
      tidy(node.tasks, [&](TaskId id) { return tasks_[id].node == node.id; });
  }
  for (JobInfo& job : jobs_) {
    if (job_dirty[job.id]) tidy(job.tasks, [&](TaskId id) { return tasks_[id].job == job.id; });
  }
  // Totals of the marked nodes and jobs, summed in task order as a full build sums them.
  for (NodeInfo& node : nodes_) {
    if (!node_dirty[node.id]) continue;
    node.idle_ = node.allocatable;
    node.used_ = Resource();
    node.releasing_ = Resource();
    node.pipelined_ = Resource();
    for (TaskId id : node.tasks) AddToNodeTotals(node, tasks_[id]);
  }
  for (JobInfo& job : jobs_) {
    if (job_dirty[job.id]) {
      job.status_count = {};
      job.allocated = Resource();
      job.total_request = Resource();
      for (TaskId id : job.tasks) AddToJobTotals(job, tasks_[id]);
    }
    // What the previous session decided about the job is not the store's.
    job.phase = job.podgroup->phase;
    job.fit_errors.clear();
    job.job_fit_error.clear();
    job.unschedulable = false;
  }
  builder.NumberEquivalenceClasses();
}

namespace {

// Names the first field where a patched snapshot and a full build differ.
class SnapshotDiff {
 public:
  template <typename T>
  void Field(const std::string& object, const char* field, const T& patched, const T& full) {
    if (!first_.empty() || patched == full) return;
    std::ostringstream out;
    out << object << ": " << field << " differs between the patched snapshot and a full build";
    first_ = out.str();
  }
  bool found() const { return !first_.empty(); }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

Status Session::VerifyPatchedSnapshot() const {
  SessionOptions full_options = options_;
  full_options.snapshot_cache = nullptr;
  Session full(state_, conf_, std::move(full_options));
  BASALT_RETURN_IF_ERROR(full.BuildFullSnapshot());
  SnapshotDiff d;
  d.Field("snapshot", "task count", tasks_.size(), full.tasks_.size());
  d.Field("snapshot", "job count", jobs_.size(), full.jobs_.size());
  d.Field("snapshot", "node count", nodes_.size(), full.nodes_.size());
  d.Field("snapshot", "queue count", queues_.size(), full.queues_.size());
  d.Field("snapshot", "total resource", total_resource_, full.total_resource_);
  d.Field("snapshot", "node index", node_index_, full.node_index_);
  d.Field("snapshot", "queue index", queue_index_, full.queue_index_);
  d.Field("snapshot", "orphans", orphans_, full.orphans_);
  for (size_t i = 0; !d.found() && i < tasks_.size(); ++i) {
    const TaskInfo& a = tasks_[i];
    const TaskInfo& b = full.tasks_[i];
    const std::string o = "task " + b.key;
    d.Field(o, "key", a.key, b.key);
    d.Field(o, "id", a.id, b.id);
    d.Field(o, "pod", a.pod, b.pod);
    d.Field(o, "job", a.job, b.job);
    d.Field(o, "role", a.role, b.role);
    d.Field(o, "priority", a.priority, b.priority);
    d.Field(o, "preemptable", a.preemptable, b.preemptable);
    d.Field(o, "best_effort", a.best_effort, b.best_effort);
    d.Field(o, "gated", a.gated, b.gated);
    d.Field(o, "preempt_never", a.preempt_never, b.preempt_never);
    d.Field(o, "has_host_ports", a.has_host_ports, b.has_host_ports);
    d.Field(o, "spec_signature", a.spec_signature, b.spec_signature);
    d.Field(o, "status", a.status, b.status);
    d.Field(o, "node", a.node, b.node);
    d.Field(o, "request", a.request, b.request);
    d.Field(o, "creation", a.creation, b.creation);
    d.Field(o, "name_index", a.name_index, b.name_index);
    d.Field(o, "equivalence_class", a.equivalence_class, b.equivalence_class);
    d.Field(o, "nominated_node", a.nominated_node, b.nominated_node);
    d.Field(o, "nominate_on_pipeline", a.nominate_on_pipeline, b.nominate_on_pipeline);
  }
  for (size_t i = 0; !d.found() && i < jobs_.size(); ++i) {
    const JobInfo& a = jobs_[i];
    const JobInfo& b = full.jobs_[i];
    const std::string o = "job " + b.key;
    d.Field(o, "key", a.key, b.key);
    d.Field(o, "id", a.id, b.id);
    d.Field(o, "podgroup", a.podgroup, b.podgroup);
    d.Field(o, "queue", a.queue, b.queue);
    d.Field(o, "priority", a.priority, b.priority);
    d.Field(o, "min_member", a.min_member, b.min_member);
    d.Field(o, "min_task_member", a.min_task_member, b.min_task_member);
    d.Field(o, "min_resources", a.min_resources, b.min_resources);
    d.Field(o, "phase", a.phase, b.phase);
    d.Field(o, "creation", a.creation, b.creation);
    d.Field(o, "preemptable", a.preemptable, b.preemptable);
    d.Field(o, "tasks", a.tasks, b.tasks);
    d.Field(o, "status_count", a.status_count, b.status_count);
    d.Field(o, "allocated", a.allocated, b.allocated);
    d.Field(o, "total_request", a.total_request, b.total_request);
    d.Field(o, "fit_errors", a.fit_errors.size(), b.fit_errors.size());
    d.Field(o, "job_fit_error", a.job_fit_error, b.job_fit_error);
    d.Field(o, "unschedulable", a.unschedulable, b.unschedulable);
  }
  for (size_t i = 0; !d.found() && i < nodes_.size(); ++i) {
    const NodeInfo& a = nodes_[i];
    const NodeInfo& b = full.nodes_[i];
    const std::string o = "node " + b.name;
    d.Field(o, "name", a.name, b.name);
    d.Field(o, "id", a.id, b.id);
    d.Field(o, "node", a.node, b.node);
    d.Field(o, "allocatable", a.allocatable, b.allocatable);
    d.Field(o, "tasks", a.tasks, b.tasks);
    d.Field(o, "idle", a.idle_, b.idle_);
    d.Field(o, "used", a.used_, b.used_);
    d.Field(o, "releasing", a.releasing_, b.releasing_);
    d.Field(o, "pipelined", a.pipelined_, b.pipelined_);
  }
  for (size_t i = 0; !d.found() && i < queues_.size(); ++i) {
    const QueueInfo& a = queues_[i];
    const QueueInfo& b = full.queues_[i];
    const std::string o = "queue " + b.name;
    d.Field(o, "name", a.name, b.name);
    d.Field(o, "id", a.id, b.id);
    d.Field(o, "queue", a.queue, b.queue);
    d.Field(o, "weight", a.weight, b.weight);
    d.Field(o, "priority", a.priority, b.priority);
    d.Field(o, "reclaimable", a.reclaimable, b.reclaimable);
    d.Field(o, "state", a.state, b.state);
    d.Field(o, "parent", a.parent, b.parent);
    d.Field(o, "creation", a.creation, b.creation);
  }
  if (d.found()) return Status::Internal("snapshot cache: " + d.first());
  return Status::Ok();
}

void Session::ReturnSnapshotToCache() {
  if (!cache_) return;
  SnapshotCache& c = *cache_;
  c.tasks_ = std::move(tasks_);
  c.jobs_ = std::move(jobs_);
  c.nodes_ = std::move(nodes_);
  c.queues_ = std::move(queues_);
  c.node_index_ = std::move(node_index_);
  c.queue_index_ = std::move(queue_index_);
  c.total_resource_ = std::move(total_resource_);
  c.orphans_ = std::move(orphans_);
  c.touched_tasks_ = std::move(touched_tasks_);
  c.touched_nodes_ = std::move(node_change_log_);
  c.valid_ = true;
  c.lent_ = false;
  cache_ = nullptr;
}

}  // namespace basalt
