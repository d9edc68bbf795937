// The status basalt writes on a PodGroup, as Volcano's scheduler writes it:
// phase, the running/succeeded/failed counts, and one condition saying why
// the gang is where it is —
//   Scheduled=True, reason "tasks in gang are ready to be scheduled", once
//     the group runs;
//   Unschedulable=True, reason "NotEnoughResources", with the session's
//     message ("2/4 tasks in gang unschedulable: ..."), while it cannot.
// `kubectl describe podgroup` and Volcano's own tooling read these.
//
// Both sides are reduced to one canonical text (no timestamps, absent
// counts as zero, conditions as type/status/reason/message) so the serve
// loop writes only what differs from what it wrote last and from what the
// server already holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/objects.h"

namespace basalt {

struct PodGroupCounts {
  int running = 0;
  int succeeded = 0;
  int failed = 0;
};

// The status to hold, without timestamps. `unschedulable` is the session's
// reason for a group it could not place ("" when it said nothing).
nlohmann::json DesiredPodGroupStatus(PodGroupPhase phase, const PodGroupCounts& counts,
                                     const std::string& unschedulable);

// The canonical text of a status (desired or as the server returned it).
std::string PodGroupStatusText(const nlohmann::json& status);

// `status` as a merge patch body: each condition stamped with
// `transition_time` (RFC 3339, seconds).
nlohmann::json PodGroupStatusPatch(nlohmann::json status, const std::string& transition_time);

}  // namespace basalt
