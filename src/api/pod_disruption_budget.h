// PodDisruptionBudget (policy/v1), as the `pdb` scheduler plugin reads it:
//
//   apiVersion: policy/v1
//   kind: PodDisruptionBudget
//   metadata: {name: web, namespace: default}
//   spec:
//     selector: {matchLabels: {app: web}}
//     minAvailable: 2            # or maxUnavailable; an integer or "50%"
//   status:                      # written by the disruption controller
//     disruptionsAllowed: 1
//     disruptedPods: {web-0: "2024-05-01T10:00:00Z"}
//
// The plugin decides from `status.disruptionsAllowed`, as Volcano's does. A
// manifest written by hand often has no status; `basalt schedule` then works
// the number out from the spec and the pods (DisruptionsAllowedFromSpec), as
// the disruption controller would have.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// A metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn,
// Exists, DoesNotExist) ANDed.
struct PodLabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<NodeSelectorRequirement> match_expressions;

  // No requirement at all: a policy/v1 budget with it matches no pod.
  bool Empty() const { return match_labels.empty() && match_expressions.empty(); }
  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool operator==(const PodLabelSelector&) const = default;
};

// An IntOrString count such as minAvailable: 3 or "30%".
struct IntOrPercent {
  int32_t value = 0;
  bool percent = false;
  // The count it means out of `total`; a percentage rounds up, as the
  // disruption controller rounds both minAvailable and maxUnavailable.
  int64_t Of(int64_t total) const;
  bool operator==(const IntOrPercent&) const = default;
};

struct PodDisruptionBudget {
  ObjectMeta meta;
  std::optional<PodLabelSelector> selector;  // absent: matches no pod (policy/v1)
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  // From status; `has_status` is false when the object has no
  // status.disruptionsAllowed (a hand-written manifest).
  bool has_status = false;
  int32_t disruptions_allowed = 0;
  std::set<std::string> disrupted_pods;  // status.disruptedPods: names of pods being evicted

  bool Selects(const Pod& pod) const;
  bool operator==(const PodDisruptionBudget&) const = default;
};

// Decodes metadata, spec and status. Errors name the field ("spec.minAvailable: ...").
Status DecodePodDisruptionBudget(const YAML::Node& doc, PodDisruptionBudget* out);

// What the disruption controller would write into status.disruptionsAllowed,
// from the pods the budget selects (`selected`, in its namespace): healthy
// pods (Running, not being deleted) minus the desired healthy count, never
// below 0. The expected count is the number of selected pods (the controller
// reads it from their workloads' scale, which manifests rarely carry).
// maxUnavailable: desired = expected - maxUnavailable; else minAvailable:
// desired = minAvailable (a percentage of expected); neither: 0 allowed, as
// the controller treats an expected count of 0.
int32_t DisruptionsAllowedFromSpec(const PodDisruptionBudget& pdb,
                                   const std::vector<const Pod*>& selected);

}  // namespace basalt
