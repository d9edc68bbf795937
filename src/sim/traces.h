// Trace loaders for `shared/traces/` (formats in each trace's README):
//
//  - Alibaba openb (cluster-trace-gpu-v2023) node list
//    `sn,cpu_milli,memory_mib,gpu,model` -> Nodes with the card model label;
//  - openb pod list `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
//    pod_phase,creation_time,deletion_time,scheduled_time` -> bare pods, queue by
//    `qos`, run for deletion - creation seconds once started. Fractional GPUs
//    (gpu_milli < 1000) are requested as `nvidia.com/gpu` milli-units; a
//    `gpu_spec` of `A|B` becomes a node affinity `In [A, B]`;
//  - Alibaba DLRM inference (cluster-trace-gpu-v2025)
//    `instance_sn,role,app_name,cpu_request,...,creation_time,scheduled_time,
//    deletion_time` -> pods of one ReplicaSet per app and role, queue (and
//    optionally node selector) by `role` (CN/HN), created and deleted at the
//    trace's times (integer or decimal seconds; an empty creation time means
//    the instance exists from the start).
//
// Every malformed row fails with `file:row N: column: problem` (row 1 is the
// header), so a bad trace never reaches the engine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"
#include "sim/csv_table.h"  // SplitCsvLine
#include "sim/scenario.h"

namespace basalt {

struct TracePod {
  Pod pod;
  int64_t arrive = 0;      // simulated second the pod is created
  int64_t run_for = 0;     // > 0: seconds of running before it completes (openb)
  int64_t delete_at = -1;  // >= 0: simulated second it is deleted (dlrm)
};

Result<std::vector<Node>> LoadOpenbNodes(const std::string& path, int32_t limit,
                                         const std::string& card_label);
Result<std::vector<TracePod>> LoadOpenbPods(const TraceWorkload& w, const std::string& card_label);
Result<std::vector<TracePod>> LoadDlrmInference(const TraceWorkload& w,
                                                const std::string& card_label);

// Parses from text (tests), `file` names it in messages.
Result<std::vector<Node>> ParseOpenbNodes(const std::string& text, const std::string& file,
                                          int32_t limit, const std::string& card_label);
Result<std::vector<TracePod>> ParseOpenbPods(const std::string& text, const std::string& file,
                                             const TraceWorkload& w, const std::string& card_label);
Result<std::vector<TracePod>> ParseDlrmInference(const std::string& text, const std::string& file,
                                                 const TraceWorkload& w,
                                                 const std::string& card_label);

}  // namespace basalt
