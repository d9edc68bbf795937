// SubGroups: a PodGroup's spec.subGroupPolicy (and the vcjob
// tasks[].partitionPolicy the vcjob controller turns into it), decoded with
// field paths, and the rule that puts a pod into a SubGroup.
//
// A pod belongs to the first policy, in list order, with matchLabelKeys (one
// without takes no pod), whose labelSelector it matches and on which it carries
// every matchLabelKeys label with a non-empty value; the values of those labels
// name its SubGroup within the policy ("<policy>-<value>-<value>"). A pod
// no policy takes is in no SubGroup. docs/topology.md describes the rules and
// how allocate places SubGroups.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// The label the vcjob controller puts on each pod of a partitioned task:
// the pod's index divided by partitionSize, as Volcano's controller does.
inline constexpr char kPartitionIdLabel[] = "volcano.sh/partition-id";

// Decodes `spec.subGroupPolicy` at `path` (absent: empty). Errors name the
// field ("spec.subGroupPolicy[1].subGroupSize: ...").
Status DecodeSubGroupPolicies(const YAML::Node& node, const std::string& path,
                              std::vector<SubGroupPolicy>* out);

// Decodes `tasks[i].partitionPolicy` at `path` (absent: unset).
Status DecodePartitionPolicy(const YAML::Node& node, const std::string& path,
                             std::optional<PartitionPolicy>* out);

// The SubGroup of a pod with `labels` under `policies`: the index of the
// policy that takes it and the SubGroup's name, or nullopt.
struct SubGroupKey {
  int32_t policy = 0;
  std::string name;
};
std::optional<SubGroupKey> SubGroupOf(const std::vector<SubGroupPolicy>& policies,
                                      const std::map<std::string, std::string>& labels);

// The policy a vcjob task's partitionPolicy becomes on the job's PodGroup:
// named after the task, pods selected by volcano.sh/task-spec and split by
// volcano.sh/partition-id.
SubGroupPolicy PolicyOfPartitions(const std::string& task, const PartitionPolicy& p);

// A policy's name in messages ("subGroupPolicy[2]" when it has none).
std::string PolicyLabel(const std::vector<SubGroupPolicy>& policies, int32_t index);

}  // namespace basalt
