// `basalt schedule -o table|wide`: the decisions as a table to read, beside
// the JSON (the default, and the contract scripts rely on).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt {

struct ScheduleTableOptions {
  bool wide = false;        // + TYPE (of the event) and the final state of every pod
  bool no_headers = false;  // rows only, for scripts
};

// One row per decision and per reason the session gave, cycle by cycle:
//   CYCLE  POD  NODE  PHASE  REASON
// PHASE is Bound, Pipelined, Evicted, Pending (a pod's FailedScheduling) or
// the group's word (Unschedulable) for a PodGroup's event, whose POD column
// names the group as podgroup/NS/NAME. Columns are as wide as their widest cell.
std::string RenderScheduleTable(const nlohmann::json& decisions,
                                const ScheduleTableOptions& options);

}  // namespace basalt
