// Synthetic clusters and workloads for benchmarks, built in memory (no YAML).
// Deterministic: the same profile and seed give the same objects.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "state/cluster_state.h"

namespace basalt::bench {

struct ClusterProfile {
  int nodes = 1000;
  std::string node_cpu = "32";
  std::string node_memory = "256Gi";
  int gpus_per_node = 8;
  int pods_per_node = 110;
  // A HyperNode tree when > 0: leaves (tier 1) of this many nodes, spines
  // (tier 2) of `leaves_per_spine` leaves, one root (tier 3).
  int nodes_per_leaf = 0;
  int leaves_per_spine = 16;
};

// A pod's request; `gpus` whole nvidia.com/gpu.
struct PodShape {
  std::string cpu = "4";
  std::string memory = "32Gi";
  int gpus = 1;
};

struct WorkloadProfile {
  int queues = 4;
  int pending_pods = 4000;
  int tasks_per_gang = 8;
  PodShape pod;  // pending pods
  // Running pods placed round-robin on the nodes before the cycle.
  int running_pods = 0;
  PodShape running_pod;  // request of the running pods
  // Queues of the running and of the pending gangs ("" = random among `queues`).
  std::string running_queue;
  std::string pending_queue;
  // minMember of running gangs (0 = tasks_per_gang); below it, gang offers victims.
  int running_min_member = 0;
  // PriorityClass of pending gangs ("" = none); created with value 1000.
  std::string pending_priority_class;
  // When > 0, pending gangs carry a hard network topology constraint:
  // highestTierAllowed 1 for even-numbered gangs, this tier for odd ones.
  int pending_highest_tier = 0;
  uint64_t seed = 1;
};

// Fills `state` with nodes, queues, PodGroups (Running / Inqueue) and pods.
void Generate(const ClusterProfile& cluster, const WorkloadProfile& workload, ClusterState* state);

// One step of churn: `gangs` whole running gangs (picked at random) finish and
// leave the store with their PodGroup, and as many new pending gangs of the
// workload's pending shape arrive (Inqueue). `serial` numbers the new gangs and
// advances; their creation time is `now`.
void Churn(const WorkloadProfile& workload, int gangs, int64_t now, std::mt19937_64& rng,
           int* serial, ClusterState* state);

}  // namespace basalt::bench
