// DescribeSnapshotDifference: which field first differs between a patched
// snapshot and a full build. Only called once `operator==` found a
// difference, to say where it is.
#include <sstream>

#include "framework/snapshot.h"

namespace basalt {
namespace {

// Keeps the first field that differs.
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

void CompareTask(const TaskInfo& a, const TaskInfo& b, SnapshotDiff& d) {
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
  d.Field(o, "(another field)", a, b);
}

void CompareJob(const JobInfo& a, const JobInfo& b, SnapshotDiff& d) {
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
  d.Field(o, "fit_errors", a.fit_errors, b.fit_errors);
  d.Field(o, "job_fit_error", a.job_fit_error, b.job_fit_error);
  d.Field(o, "unschedulable", a.unschedulable, b.unschedulable);
  d.Field(o, "(another field)", a, b);
}

void CompareNode(const NodeInfo& a, const NodeInfo& b, SnapshotDiff& d) {
  const std::string o = "node " + b.name;
  d.Field(o, "name", a.name, b.name);
  d.Field(o, "id", a.id, b.id);
  d.Field(o, "node", a.node, b.node);
  d.Field(o, "allocatable", a.allocatable, b.allocatable);
  d.Field(o, "tasks", a.tasks, b.tasks);
  d.Field(o, "idle", a.idle(), b.idle());
  d.Field(o, "used", a.used(), b.used());
  d.Field(o, "releasing", a.releasing(), b.releasing());
  d.Field(o, "pipelined", a.pipelined(), b.pipelined());
  d.Field(o, "(another field)", a, b);
}

void CompareQueue(const QueueInfo& a, const QueueInfo& b, SnapshotDiff& d) {
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
  d.Field(o, "(another field)", a, b);
}

// Element by element, once the counts agree.
template <typename Info, typename Compare>
void CompareAll(const std::vector<Info>& a, const std::vector<Info>& b, SnapshotDiff& d,
                Compare compare) {
  for (size_t i = 0; !d.found() && i < a.size() && i < b.size(); ++i) compare(a[i], b[i], d);
}

}  // namespace

std::string DescribeSnapshotDifference(const Snapshot& patched, const Snapshot& full) {
  SnapshotDiff d;
  d.Field("snapshot", "task count", patched.tasks.size(), full.tasks.size());
  d.Field("snapshot", "job count", patched.jobs.size(), full.jobs.size());
  d.Field("snapshot", "node count", patched.nodes.size(), full.nodes.size());
  d.Field("snapshot", "queue count", patched.queues.size(), full.queues.size());
  d.Field("snapshot", "total resource", patched.total_resource, full.total_resource);
  d.Field("snapshot", "node index", patched.node_index, full.node_index);
  d.Field("snapshot", "queue index", patched.queue_index, full.queue_index);
  d.Field("snapshot", "orphans", patched.orphans, full.orphans);
  CompareAll(patched.tasks, full.tasks, d, CompareTask);
  CompareAll(patched.jobs, full.jobs, d, CompareJob);
  CompareAll(patched.nodes, full.nodes, d, CompareNode);
  CompareAll(patched.queues, full.queues, d, CompareQueue);
  return d.first();
}

}  // namespace basalt
