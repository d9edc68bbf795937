// Full builds and patches of the snapshot (framework/snapshot.h).
#include "framework/snapshot.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "framework/snapshot_builder.h"

namespace basalt {

void Snapshot::ResetNodeTotals(NodeInfo& node) {
  node.idle_ = node.allocatable;
  node.used_ = Resource();
  node.releasing_ = Resource();
  node.pipelined_ = Resource();
}

void Snapshot::AddToNodeTotals(NodeInfo& node, const TaskInfo& task) {
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
}

void Snapshot::AddToJobTotals(JobInfo& job, const TaskInfo& task) {
  ++job.status_count[static_cast<size_t>(task.status)];
  job.total_request += task.request;
  if (IsAllocatedStatus(task.status)) job.allocated += task.request;
}

namespace {

void ReadNodes(const ClusterState& state, Snapshot& s) {
  s.nodes.reserve(state.nodes().size());
  for (const auto& [name, n] : state.nodes()) {
    NodeInfo info;
    info.id = static_cast<NodeId>(s.nodes.size());
    info.node = &n;
    info.name = name;
    info.allocatable = n.allocatable;
    DropPerCardResources(&info.allocatable);
    s.total_resource += info.allocatable;
    // The store iterates in name order.
    s.node_index.emplace_hint(s.node_index.end(), name, info.id);
    s.nodes.push_back(std::move(info));
  }
}

void ReadQueues(const ClusterState& state, Snapshot& s) {
  s.queues.reserve(state.queues().size());
  for (const auto& [name, q] : state.queues()) {
    QueueInfo info;
    info.id = static_cast<QueueId>(s.queues.size());
    info.name = name;
    ReadQueue(q, &info);
    s.queue_index.emplace_hint(s.queue_index.end(), name, info.id);
    s.queues.push_back(std::move(info));
  }
}

// Every pod that takes part, with its node's and job's lists and totals.
void ReadPods(const ClusterState& state, SnapshotBuilder& builder, Snapshot& s) {
  s.tasks.reserve(state.pods().size());
  for (const auto& [key, pod] : state.pods()) {
    TaskInfo t;
    if (!builder.DeriveTask(key, pod, &t)) continue;
    t.id = static_cast<TaskId>(s.tasks.size());
    s.tasks.push_back(std::move(t));
    const TaskInfo& task = s.tasks.back();
    if (task.node != kNone) {
      NodeInfo& node = s.nodes[task.node];
      Snapshot::AddToNodeTotals(node, task);
      node.tasks.push_back(task.id);
    }
    if (task.job != kNone) {
      JobInfo& j = s.jobs[task.job];
      j.tasks.push_back(task.id);
      Snapshot::AddToJobTotals(j, task);
    }
  }
}

}  // namespace

Snapshot Snapshot::Build(const ClusterState& state, const SnapshotScope& scope) {
  Snapshot s;
  ReadNodes(state, s);
  for (NodeInfo& n : s.nodes) ResetNodeTotals(n);
  ReadQueues(state, s);
  SnapshotBuilder builder(state, scope, s);
  std::unordered_map<std::string_view, NodeId> node_by_name;
  node_by_name.reserve(s.nodes.size());
  for (const NodeInfo& n : s.nodes) node_by_name.emplace(n.name, n.id);
  builder.set_node_by_name(&node_by_name);
  s.jobs.reserve(state.podgroups().size());
  for (const auto& [key, pg] : state.podgroups()) {
    JobInfo job;
    if (!builder.DeriveJob(key, pg, &job)) continue;
    job.id = static_cast<JobId>(s.jobs.size());
    s.jobs.push_back(std::move(job));
  }
  ReadPods(state, builder, s);
  builder.NumberEquivalenceClasses();
  return s;
}

}  // namespace basalt
