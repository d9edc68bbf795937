// Workload generators of the simulator: the objects it submits (training
// vcjobs, inference pods owned by a ReplicaSet, trace pods) and the random
// draws behind them (inter-arrival times, durations, replica choices).
//
// Every draw takes the simulator's one `std::mt19937_64` by reference and uses
// only integer-exact or fully specified transforms (no `std::*_distribution`,
// whose output differs between standard libraries), so a seed gives the same
// workload on every platform.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "api/objects.h"
#include "sim/scenario.h"

namespace basalt {

// Simulated second 0 is this instant (2026-01-01T00:00:00Z), so creation
// timestamps look like real ones and order the same way.
inline constexpr int64_t kSimEpoch = 1767225600;

// A uniform double in [0, 1) from the top 53 bits of one draw.
double Uniform01(std::mt19937_64& rng);
// A standard normal (Box–Muller, two draws).
double StandardNormal(std::mt19937_64& rng);
// Seconds until the next arrival (>= 1): exponential for poisson, fixed otherwise.
int64_t NextArrivalGap(const TrainingWorkload& w, std::mt19937_64& rng);
// A job duration (>= 1 s), clamped to [min, max] when set.
int64_t DrawDuration(const DurationDist& d, std::mt19937_64& rng);

// The vcjob `<workload>-<seq>` arriving at simulated second `t`: minAvailable =
// all replicas (gang), the workload's policies, pods pinned to the card model by
// a node selector on `card_label` when one is set.
VcJob MakeTrainingJob(const TrainingWorkload& w, int64_t seq, int64_t t, int32_t priority,
                      const std::string& card_label, std::mt19937_64& rng);

// One inference replica: a bare pod owned by the Deployment's ReplicaSet, in
// the workload's queue (annotation `scheduling.volcano.sh/queue-name`).
Pod MakeInferencePod(const InferenceWorkload& w, int64_t seq, int64_t t, int32_t priority,
                     const std::string& card_label);
// The Deployment and ReplicaSet the pods of `w` name as owners.
OwnerObject MakeDeployment(const InferenceWorkload& w);
OwnerObject MakeReplicaSet(const InferenceWorkload& w);
std::string ReplicaSetUid(const std::string& workload);

}  // namespace basalt
