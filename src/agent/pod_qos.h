// What the agent knows of a pod on its node, and the pod's colocation QoS
// level.
//
// Levels (Volcano's `volcano.sh/qos-level` annotation and its values):
//   LC  latency critical: exclusive CPUs, never squeezed
//   HLS highly latency sensitive
//   LS  latency sensitive
//   BE  best effort: offline; weight lowered, quota-throttled, evicted first
// LC, HLS and LS are "online"; BE is "offline".
//
// A pod without the annotation (or with a value not in the list) gets the
// level its Kubernetes QoS class and priority imply:
//   - it requests Volcano's oversold resources (kubernetes.io/batch-cpu or
//     kubernetes.io/batch-memory)        -> BE (it runs on capacity lent by online pods)
//   - QoS class BestEffort               -> BE
//   - priority below 0                   -> BE
//   - anything else (Guaranteed, Burstable) -> LS
// LC and HLS are only ever chosen by the annotation: exclusive CPUs and the
// strongest protection are a deliberate choice, not a default.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/status.h"

namespace basalt::agent {

inline constexpr char kQosLevelAnnotation[] = "volcano.sh/qos-level";
inline constexpr char kBatchCpuResource[] = "kubernetes.io/batch-cpu";
inline constexpr char kBatchMemoryResource[] = "kubernetes.io/batch-memory";

enum class QosLevel { kLC, kHLS, kLS, kBE };

const char* QosLevelName(QosLevel level);
inline bool IsOnline(QosLevel level) { return level != QosLevel::kBE; }

struct AgentPod {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node_name;
  std::string phase;
  std::string qos_class;  // Kubernetes: Guaranteed, Burstable, BestEffort
  int32_t priority = 0;
  int64_t start_time = 0;  // status.startTime, seconds since the epoch; 0 when not started
  std::map<std::string, std::string> annotations;
  // Sums over the containers (init containers left out).
  int64_t cpu_request_milli = 0;
  int64_t memory_request_bytes = 0;
  int64_t batch_cpu_request_milli = 0;  // kubernetes.io/batch-cpu, in millicores
  int64_t batch_memory_request_bytes = 0;
  // Set by the pod list of a standalone run (no kubelet layout): the pod's
  // cgroup below the hierarchy root.
  std::string cgroup_override;

  std::string Key() const { return namespace_ + "/" + name; }
};

// Decodes a v1 Pod; errors name the pod and the field.
Result<AgentPod> DecodeAgentPod(const nlohmann::json& pod);

// The pod's level: the annotation, else the mapping above. `why` (optional)
// receives "annotation" or the fallback rule that decided.
QosLevel QosLevelOf(const AgentPod& pod, std::string* why = nullptr);
// Parses an annotation value ("LC", "HLS", "LS", "BE"); false when unknown.
bool ParseQosLevel(const std::string& text, QosLevel* level);

// The kubelet's cgroup driver naming of pod groups.
enum class CgroupDriver { kCgroupfs, kSystemd };

// The pod's cgroup below the hierarchy root, as the kubelet makes it:
//   cgroupfs: PARENT/besteffort/podUID, PARENT/burstable/podUID, PARENT/podUID (Guaranteed)
//   systemd:  PARENT.slice/PARENT-besteffort.slice/PARENT-besteffort-podUID.slice
//             (dashes of the UID as underscores); Guaranteed directly under PARENT.slice
// `cgroup_override`, when set, wins.
std::string PodCgroup(const AgentPod& pod, CgroupDriver driver, const std::string& parent);

}  // namespace basalt::agent
