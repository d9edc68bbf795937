// Caps on inputs no user can mean: a vcjob of two billion replicas, a folder
// of ten million objects, a million scheduling cycles. Each would otherwise
// run the machine out of memory or time before saying anything; capped, it is
// an input error (exit code 2) that names where the value is, the limit and
// the flag that raises it:
//
//   cluster/job.yaml:3: Job default/big: spec.tasks[0].replicas: 2000000000 is above the
//   limit of 100000 pods per job (raise it with --max-job-pods)
//
// The defaults are far above any real cluster (docs/limits.md has the table and
// the reasons). `basalt validate`, `schedule` and `simulate` apply the same
// checks through the same functions, so what validates also loads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

struct ClusterObjects;  // api/decode.h

struct InputLimits {
  // Objects decoded from the manifests of one run (--max-objects).
  int64_t max_objects = 2'000'000;
  // Pods of one vcjob: each task's replicas and their sum (--max-job-pods).
  int64_t max_job_pods = 100'000;
  // Pods of a cluster: Pod objects plus the replicas of every vcjob (--max-pods).
  int64_t max_pods = 2'000'000;
  // Nodes of a simulation: every pool's count added up (--max-nodes).
  int64_t max_nodes = 100'000;
  // `basalt schedule --cycles` (--max-cycles).
  int64_t max_cycles = 100'000;
};

// "<what> is above the limit of <limit> <unit> (raise it with <flag>)".
std::string AboveLimit(std::string_view what, int64_t limit, std::string_view unit,
                       std::string_view flag);

// Every object decoded so far, of every kind.
int64_t CountDecodedObjects(const ClusterObjects& objects);

// An error when `objects` holds more than `limits.max_objects`; `where`
// ("file:line: Kind ns/name") names the object that went over.
Status CheckObjectCount(const ClusterObjects& objects, const InputLimits& limits,
                        const std::string& where);

// `pods`, the pods one job may have, against `limits.max_job_pods`. `where`
// ("file:line: Job ns/name: spec.tasks[0].replicas") names the field and
// `what` says the value ("2000000000", "150000 replicas in all").
Status CheckPodsPerJob(const std::string& where, const std::string& what, int64_t pods,
                       const InputLimits& limits);

// The per-cluster caps on decoded objects, checked before anything expands
// them: the pods of each vcjob and JobTemplate (each task's replicas, then
// their sum) and the pods of the whole cluster (Pods plus vcjob replicas).
// The first object over a limit is named.
Status CheckClusterLimits(const ClusterObjects& objects, const InputLimits& limits);

// `--cycles N` against `limits.max_cycles`.
Status CheckCycles(int64_t cycles, const InputLimits& limits);

}  // namespace basalt
