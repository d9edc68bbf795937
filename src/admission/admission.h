// Admission: validation of Queue, Job (vcjob) and PodGroup objects, as Volcano's
// webhooks do (VOLCANO_SEMANTICS §10). Every problem found is reported, each
// with its field path.
#pragma once

#include <string>
#include <vector>

#include "api/decode.h"

namespace basalt {

struct AdmissionProblem {
  std::string object;  // "Queue q1", "Job ns/name"
  std::string source;  // file:line
  std::string field;   // "spec.tasks[0].minAvailable"
  std::string message;
  std::string ToString() const { return source + ": " + object + ": " + field + ": " + message; }
};

// Validates every Queue, vcjob and PodGroup in `objects` against each other.
std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects);

}  // namespace basalt
