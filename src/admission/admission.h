// Admission: validation of Queue, Job (vcjob), PodGroup and Pod objects, as
// Volcano's admission webhooks do (docs/validate.md), plus the checks
// Volcano only makes at runtime (hierarchical queue resources, capacity-card
// annotations) so that `basalt validate` catches them before a cluster does.
//
// Every object is validated as a *create* request against all the other
// objects given (the queues a job names must be among them). Unlike Volcano's
// webhooks, which stop at the first problem of some kinds, every problem found
// is reported, each with the field path inside its object:
//
//   a.yaml:12: Job default/mpi: spec.tasks[1].policies[0].event: invalid policy event "PodRunning"
//   (...)
//
// The rules, their messages and where they differ from Volcano are listed in
// docs/validate.md. Nothing user-supplied can crash `ValidateObjects`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/decode.h"

namespace basalt {

struct AdmissionProblem {
  std::string object;  // "Queue q1", "Job ns/name", "PodGroup ns/name", "Pod ns/name"
  std::string source;  // file:line where the object starts (its `meta.source`)
  std::string field;  // "spec.tasks[0].minAvailable", "metadata.annotations[volcano.sh/card.quota]"
  std::string message;
  std::string ToString() const { return source + ": " + object + ": " + field + ": " + message; }
};

// Validates every Queue, vcjob, PodGroup and Pod in `objects` against each other.
//
// Implicit objects, as in a Volcano cluster: a Queue `default` (Open, no limits)
// exists unless one is given, and so does `root` (Volcano creates it). Jobs with
// an empty `spec.queue` go to `default`; empty task names are read as Volcano's
// mutating webhook defaults them (`default<i>`, i = the task's position).
//
// Problems are ordered by source file, then line, then object; the problems of
// one object keep the order of the checks (manifest order, roughly). The result
// is deterministic for a given input.
//
// The API server's own object rules (api/object_rules.h: names, containers,
// resources, a pod's PriorityClass, duplicate Nodes) come first for each
// object; `scope` limits them to the object itself (the webhook's view).
std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects);
std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects, RuleScope scope);

// The findings `ValidateObjects` leaves to warnings (unknown fields, a pod's
// nodeName naming no node), ordered as its problems.
std::vector<AdmissionProblem> ValidationWarnings(const ClusterObjects& objects,
                                                 RuleScope scope = {});

// What the API server says of `name` as the name of a new object (a lowercase
// RFC 1123 subdomain, at most 253 characters); empty when it is one. The
// command-line `create` commands refuse such a name before writing anything.
std::vector<std::string> ObjectNameErrors(std::string_view name);

}  // namespace basalt
