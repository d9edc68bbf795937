// Resource groups for the pod mutating webhook (`/pods/mutate`,
// docs/webhooks.md): the admission configuration file of Volcano's webhook
// manager (its volcano-admission.conf, same format), read with
// `--admission-config PATH`:
//
//   resourceGroups:
//   - resourceGroup: management
//     object: {key: namespace, value: [mng-ns-1]}   # pods of these namespaces
//     schedulerName: default-scheduler
//     tolerations: [{key: taint, operator: Exists, effect: NoSchedule}]
//     labels: {volcano.sh/nodetype: management}     # merged into nodeSelector
//   - resourceGroup: cpu
//     object: {key: annotation, value: ["volcano.sh/resource-group: cpu"]}
//     affinity: '{"nodeAffinity": ...}'             # JSON, for pods without one
//   - resourceGroup: gpu                            # no object: pods annotated
//     labels: {volcano.sh/nodetype: gpu}            #   volcano.sh/resource-group: gpu
//
// A pod takes the first group it belongs to (file order): its nodeSelector
// gets the group's labels, its tolerations the group's appended, its
// affinity the group's when it has none, its schedulerName the group's.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

struct ResourceGroup {
  std::string name;                 // resourceGroup
  std::string object_key;           // "namespace", "annotation" or "" (annotation)
  std::vector<std::string> values;  // namespaces, or "key: value" annotation lines
  std::string scheduler_name;
  nlohmann::json tolerations = nlohmann::json::array();
  std::map<std::string, std::string> labels;
  std::string affinity;  // JSON text of a core/v1 Affinity
};

// Reads the file; errors name it and the field ("conf.yaml: resourceGroups[1].labels: ...").
Result<std::vector<ResourceGroup>> LoadResourceGroups(const std::string& path);
Result<std::vector<ResourceGroup>> ParseResourceGroups(const std::string& text,
                                                       const std::string& where);

// The JSON Patch `/pods/mutate` answers for `pod` (namespace `ns`); empty when
// it belongs to no group.
nlohmann::json ResourceGroupPatch(const nlohmann::json& pod, const std::string& ns,
                                  const std::vector<ResourceGroup>& groups);

}  // namespace basalt
