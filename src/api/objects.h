// The object model basalt schedules: the parts of Kubernetes and Volcano objects
// the scheduler reads. Decoding from YAML/JSON lives in api/decode.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"

namespace basalt {

// A PodGroup's status.phase, as Volcano's scheduler moves it: Pending until
// enqueue admits it (Inqueue), Running once minMember tasks are scheduled,
// Completed when they all finished, Unknown when a gang with running tasks
// broke. A PodGroup without a status is Pending.
enum class PodGroupPhase { kPending, kInqueue, kRunning, kUnknown, kCompleted };

// The phase as Volcano writes it: "Pending", "Inqueue", "Running", "Unknown", "Completed".
constexpr const char* PodGroupPhaseName(PodGroupPhase phase) {
  switch (phase) {
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kInqueue:
      return "Inqueue";
    case PodGroupPhase::kRunning:
      return "Running";
    case PodGroupPhase::kUnknown:
      return "Unknown";
    case PodGroupPhase::kCompleted:
      return "Completed";
  }
  return "Pending";
}

// The phase named `name` ("" — no status yet — is Pending); nullopt for any
// other name.
constexpr std::optional<PodGroupPhase> ParsePodGroupPhase(std::string_view name) {
  if (name.empty()) return PodGroupPhase::kPending;
  for (PodGroupPhase p : {PodGroupPhase::kPending, PodGroupPhase::kInqueue, PodGroupPhase::kRunning,
                          PodGroupPhase::kUnknown, PodGroupPhase::kCompleted}) {
    if (name == PodGroupPhaseName(p)) return p;
  }
  return std::nullopt;
}

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;  // empty for cluster-scoped objects
  std::string uid;         // empty when the manifest has none
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // Seconds since the epoch; 0 when the manifest has none (all such objects tie
  // and fall to their names, see docs/semantics/ordering.md).
  int64_t creation_timestamp = 0;
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::vector<OwnerReference> owner_references;
  // Where the object came from ("cluster/a.yaml#3"), for error messages.
  std::string source;

  // "ns/name" or "name".
  std::string Key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct Toleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;  // empty = all effects
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only metadata.name is meaningful
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct HostPort {
  int32_t port = 0;
  std::string protocol = "TCP";
  std::string host_ip;  // empty = 0.0.0.0
};

// The scheduling-relevant part of a PodSpec (also used for vcjob task templates).
struct PodSpec {
  Resource request;  // effective request, incl. the implicit `pods: 1`
  // Per resource max(Σ app containers, largest init container), without the
  // sidecar and overhead rules of `request`: how Volcano's shared-GPU device
  // counts the cards and device memory a pod needs.
  Resource device_request;
  bool has_priority = false;
  int32_t priority = 0;
  std::string priority_class_name;
  std::string node_name;
  std::string scheduler_name = "default-scheduler";
  std::map<std::string, std::string> node_selector;
  std::vector<NodeSelectorTerm> required_node_affinity;  // ORed terms
  std::vector<PreferredSchedulingTerm> preferred_node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<HostPort> host_ports;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority / Never
  int scheduling_gates = 0;
  // CPU pinning inputs (numa-aware; filled by api/numatopology.h's
  // DecodeCpuPinningInputs): Guaranteed QoS class, and each app container's
  // CPU request in milli-CPU, in container order.
  bool qos_guaranteed = false;
  std::vector<int64_t> container_milli_cpu;
};

struct Pod {
  ObjectMeta meta;
  PodSpec spec;
  std::string phase = "Pending";  // Pending, Running, Succeeded, Failed, Unknown
  std::string nominated_node_name;
  // Exit code of the first container of a Failed pod (vcjob `exitCode` policies);
  // 0 when unknown or not failed.
  int32_t exit_code = 0;
  // When the pod was bound: the lastTransitionTime of its PodScheduled=True
  // condition, seconds since the epoch (the cdp plugin's cooldown); 0 unknown.
  int64_t scheduled_at = 0;
};

struct Node {
  ObjectMeta meta;
  Resource allocatable;
  Resource capacity;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = true;  // Ready condition True (or absent)
};

struct PriorityClass {
  ObjectMeta meta;
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy = "PreemptLowerPriority";
};

// spec.affinity of a Queue: node groups (nodes labelled
// volcano.sh/nodegroup-name) its pods must / prefer to use or avoid.
struct NodeGroupTerms {
  std::vector<std::string> required;   // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<std::string> preferred;  // preferredDuringSchedulingIgnoredDuringExecution
};
struct QueueAffinity {
  std::optional<NodeGroupTerms> node_group_affinity;
  std::optional<NodeGroupTerms> node_group_anti_affinity;
};

struct Queue {
  ObjectMeta meta;
  int32_t weight = 1;
  std::optional<Resource> capability;
  std::optional<Resource> deserved;
  std::optional<Resource> guarantee;
  int32_t priority = 0;
  std::optional<bool> reclaimable;
  std::string parent;
  std::optional<QueueAffinity> affinity;  // spec.affinity (nodegroup plugin)
  std::string state = "Open";             // Open, Closed, Closing, Unknown
  // Status written back by the scheduler.
  Resource allocated;

  bool IsReclaimable() const { return !reclaimable.has_value() || *reclaimable; }
};

// spec.networkTopology of a PodGroup or vcjob: where the gang may be placed in
// the HyperNode tree (api/hypernode.h, docs/topology.md). `hard`: inside one
// HyperNode of tier at most the highest allowed; `soft`: preferably close.
struct NetworkTopologySpec {
  enum class Mode { kHard, kSoft };
  Mode mode = Mode::kHard;
  std::optional<int32_t> highest_tier_allowed;
  std::string highest_tier_name;  // a HyperNode spec.tierName, instead of a number

  bool operator==(const NetworkTopologySpec&) const = default;
};

// One entry of a PodGroup's spec.subGroupPolicy (api/subgroup.h, docs/topology.md):
// the pods its label selector matches, split by the values of matchLabelKeys,
// form SubGroups of subGroupSize pods, each gang-scheduled as a unit and placed
// under its own networkTopology.
struct SubGroupPolicy {
  std::string name;
  std::optional<int32_t> sub_group_size;  // pods per SubGroup; unset = 1
  std::optional<int32_t> min_sub_groups;  // SubGroups that must be ready; unset or 0 = none
  std::optional<NetworkTopologySpec> network_topology;
  bool has_label_selector = false;  // no selector: every pod of the group
  std::map<std::string, std::string> match_labels;
  std::vector<NodeSelectorRequirement> match_expressions;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> match_label_keys;
};

struct PodGroup {
  ObjectMeta meta;
  int32_t min_member = 0;
  std::map<std::string, int32_t> min_task_member;
  std::string queue;
  std::string priority_class_name;
  std::optional<Resource> min_resources;
  std::optional<NetworkTopologySpec> network_topology;
  std::vector<SubGroupPolicy> sub_group_policy;  // spec.subGroupPolicy
  PodGroupPhase phase = PodGroupPhase::kPending;
};

// batch.volcano.sh/v1alpha1 Job (vcjob).
struct LifecyclePolicy {
  std::vector<std::string> events;  // "event" and "events"
  std::string action;
  std::optional<int32_t> exit_code;
  std::optional<std::string> timeout;
};

// tasks[].partitionPolicy of a vcjob: the task's replicas split into
// totalPartitions groups of partitionSize pods, which the vcjob controller
// turns into one entry of the PodGroup's subGroupPolicy.
struct PartitionPolicy {
  int32_t total_partitions = 0;
  int32_t partition_size = 0;
  int32_t min_partitions = 0;
  std::optional<NetworkTopologySpec> network_topology;
};

struct JobTask {
  std::string name;
  int32_t replicas = 0;
  std::optional<int32_t> min_available;
  int32_t max_retry = 0;
  std::vector<LifecyclePolicy> policies;
  // The pod template: metadata (labels/annotations) and the decoded spec.
  ObjectMeta template_meta;
  PodSpec template_spec;
  // What the job plugins (controllers/job_plugins.h) need from the template:
  // its containers, then its init containers (env, mounts and ports go to
  // each; a plugin skips a port the container already opens and reads a
  // RANK the template sets), and spec.hostname/subdomain.
  struct TemplateContainer {
    std::string name;
    bool init = false;
    std::vector<int32_t> ports;                            // ports[].containerPort
    std::vector<std::pair<std::string, std::string>> env;  // env[] name, literal value
  };
  std::vector<TemplateContainer> containers;
  std::string hostname;
  std::string subdomain;
  std::optional<PartitionPolicy> partition_policy;
};

// One entry of a vcjob's spec.volumes: an existing claim by name, or a claim
// the controller would create (`volumeClaim`), mounted at mountPath.
struct JobVolume {
  std::string mount_path;
  std::string claim_name;       // volumeClaimName
  bool has_claim_spec = false;  // volumeClaim given
};

struct VcJob {
  ObjectMeta meta;
  int32_t min_available = 0;
  std::optional<int32_t> min_success;
  std::string queue;
  std::string scheduler_name;
  std::string priority_class_name;
  int32_t max_retry = 3;
  std::vector<JobTask> tasks;
  std::vector<LifecyclePolicy> policies;
  // Seconds after the job finished (Completed, Failed, Terminated) before it is
  // deleted with its pods; unset = never.
  std::optional<int32_t> ttl_seconds_after_finished;
  // spec.plugins: job plugin name (ssh, svc, env, mpi, ...) -> its arguments
  // (api/job_plugin_args.h: the decoder refuses unknown names only).
  std::map<std::string, std::vector<std::string>> plugins;
  // spec.networkTopology, copied to the job's PodGroup by the controller.
  std::optional<NetworkTopologySpec> network_topology;
  // spec.volumes, checked by admission as Volcano's webhook checks them.
  std::vector<JobVolume> volumes;
  // Status.
  std::string phase = "Pending";
  int32_t retry_count = 0;
  int32_t version = 0;
  // Simulated time (seconds) of the last phase change; 0 = unknown.
  int64_t last_transition_time = 0;
};

// bus.volcano.sh/v1alpha1 Command: a one-shot request (vcctl job suspend/resume,
// queue open/close) that the controllers execute and then delete.
struct Command {
  ObjectMeta meta;
  std::string action;     // AbortJob, ResumeJob, RestartJob, OpenQueue, CloseQueue, ...
  OwnerReference target;  // {apiVersion, kind: Job|Queue, name}
};

// A workload object that pods may name as owner (Deployment, ReplicaSet, batch/v1 Job, ...).
struct OwnerObject {
  std::string api_version;
  std::string kind;
  ObjectMeta meta;
  // spec.replicas of a ReplicaSet or StatefulSet when given (the PodGroup
  // controller drops the group of one scaled to zero).
  std::optional<int32_t> replicas;
};

}  // namespace basalt
