// The session's view of the cluster: tasks (pods), jobs (PodGroups), nodes and
// queues, each in a dense vector indexed by a small integer id. Objects from the
// store are borrowed by const pointer for the length of the session.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/resource.h"

namespace basalt {

using TaskId = int32_t;
using JobId = int32_t;
using NodeId = int32_t;
using QueueId = int32_t;
constexpr int32_t kNone = -1;

enum class TaskStatus : uint8_t {
  kPending,
  kAllocated,
  kPipelined,
  kBinding,
  kBound,
  kRunning,
  kReleasing,
  kSucceeded,
  kFailed,
  kUnknown,
  kCount
};
const char* TaskStatusName(TaskStatus s);

// Bound, Binding, Running, Allocated: count against node and queue.
inline bool IsAllocatedStatus(TaskStatus s) {
  return s == TaskStatus::kBound || s == TaskStatus::kBinding || s == TaskStatus::kRunning ||
         s == TaskStatus::kAllocated;
}
// Occupies room on its node (allocated statuses, Releasing and Pipelined).
inline bool IsOnNodeStatus(TaskStatus s) {
  return IsAllocatedStatus(s) || s == TaskStatus::kReleasing || s == TaskStatus::kPipelined;
}

struct TaskInfo {
  TaskId id = kNone;
  const Pod* pod = nullptr;
  std::string key;  // "ns/name"
  JobId job = kNone;
  std::string role;  // volcano.sh/task-spec
  int32_t priority = 1;
  bool preemptable = true;
  bool best_effort = false;
  bool gated = false;
  bool preempt_never = false;   // preemptionPolicy Never (pod or its PriorityClass)
  bool has_host_ports = false;  // the pod asks for host ports (saves reading the pod)
  // The pod's scheduling inputs as text (pending tasks only; the snapshot
  // numbers equivalence classes from it and keeps it while the pod is unchanged).
  std::string spec_signature;
  TaskStatus status = TaskStatus::kPending;
  NodeId node = kNone;
  Resource request;
  int64_t creation = 0;
  int64_t name_index = -1;  // numeric last part of "a-b-3"; -1 when absent
  // Tasks with the same equivalence class have identical scheduling inputs
  // (namespace, request, selectors, affinity, tolerations, ports, priority
  // class), so predicates give them the same answer on the same node state.
  // Set for pending tasks only (kNone for the others).
  int32_t equivalence_class = 0;
  std::string nominated_node;
  // Set by actions: the pipelined placement came from preempt with an eviction.
  bool nominate_on_pipeline = false;
};

// Why a task cannot go to nodes: reasons per node, aggregated into
// "0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint {a: b}."
struct FitErrors {
  std::map<std::string, std::vector<std::string>> node_reasons;
  // Reason -> number of nodes giving it, counted on top of `node_reasons`
  // (shared by the tasks of one equivalence class: copying is cheap).
  std::shared_ptr<const std::map<std::string, int64_t>> reason_counts;
  std::string error;  // a task-level error (pre-predicate) when there is no per-node reason
  void Add(const std::string& node, std::vector<std::string> reasons) {
    auto& v = node_reasons[node];
    v.insert(v.end(), reasons.begin(), reasons.end());
  }
  std::string Message(int total_nodes) const;
};

struct JobInfo {
  JobId id = kNone;
  const PodGroup* podgroup = nullptr;
  std::string key;  // "ns/name" of the PodGroup
  QueueId queue = kNone;
  int32_t priority = 0;
  int32_t min_member = 0;
  std::map<std::string, int32_t> min_task_member;
  std::optional<Resource> min_resources;
  PodGroupPhase phase = PodGroupPhase::kPending;  // mutable during the session
  int64_t creation = 0;
  bool preemptable = false;   // PodGroup-level volcano.sh/preemptable (default false)
  std::vector<TaskId> tasks;  // in snapshot order
  std::array<int32_t, static_cast<size_t>(TaskStatus::kCount)> status_count{};
  Resource allocated;      // sum of requests of tasks in allocated statuses
  Resource total_request;  // sum of requests of all tasks
  std::map<TaskId, FitErrors> fit_errors;
  std::string job_fit_error;   // e.g. the JobValid failure
  bool unschedulable = false;  // gang marked Unschedulable at this session's close

  int32_t Count(TaskStatus s) const { return status_count[static_cast<size_t>(s)]; }
  bool IsPending() const { return phase == PodGroupPhase::kPending; }
  // Volcano's counters (see VOLCANO_SEMANTICS §1.3).
  int32_t ReadyTaskNum() const;    // Bound+Binding+Running+Allocated+Succeeded
  int32_t WaitingTaskNum() const;  // Pipelined
  int32_t ValidTaskNum() const;    // allocated statuses + Succeeded + Pipelined + Pending
};

class NodeInfo {
 public:
  NodeId id = kNone;
  const Node* node = nullptr;
  std::string name;
  Resource allocatable;
  std::vector<TaskId> tasks;  // tasks placed here (any on-node status)

  const Resource& idle() const { return idle_; }
  const Resource& used() const { return used_; }
  const Resource& releasing() const { return releasing_; }
  const Resource& pipelined() const { return pipelined_; }
  // Idle + Releasing - Pipelined: what the node will have once releases finish.
  Resource FutureIdle() const { return idle_ + releasing_ - pipelined_; }
  int32_t pod_count() const { return static_cast<int32_t>(tasks.size()); }

 private:
  friend class Session;
  Resource idle_, used_, releasing_, pipelined_;
};

struct QueueInfo {
  QueueId id = kNone;
  const Queue* queue = nullptr;
  std::string name;
  int32_t weight = 1;
  int32_t priority = 0;
  bool reclaimable = true;
  std::string state = "Open";
  std::string parent;
  int64_t creation = 0;
  bool IsOpen() const { return state == "Open"; }
};

}  // namespace basalt
