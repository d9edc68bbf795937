// The Queue rules of admission (admission/admission.h), as Volcano v1.15.1's
// queue webhook makes them, each queue read as a create request against the
// other queues given:
//
//  * the resource lists: every quantity >= 0; each guarantee resource needs a
//    deserved of at least as much; a deserved resource named in capability
//    is at most that (a resource missing from capability is unlimited);
//  * `status.state` Open or Closed, the hierarchy annotations;
//  * `spec.parent`: not itself, existing, at most 5 levels below root;
//  * the hierarchical resources: a capability within the nearest ancestor's
//    that names the resource, the siblings' guarantee and deserved sums within
//    the parent's, a capability at least each descendant's.
//
// The messages after the field path are Volcano's (docs/validate.md lists them).
#pragma once

#include <vector>

#include "admission/admission.h"
#include "admission/queue_index.h"

namespace basalt {

// Volcano's webhook default for --max-queue-depth: a queue and its ancestors
// below root, counted together.
inline constexpr int kMaxQueueDepth = 5;

void ValidateQueues(const std::vector<Queue>& all, const QueueIndex& queues,
                    std::vector<AdmissionProblem>* out);

}  // namespace basalt
