// Synthetic clusters and workloads for benchmarks, driven by named profiles.
// Deterministic: the same profile and seed give the same objects.
#pragma once

#include <cstdint>
#include <string>

#include "state/cluster_state.h"

namespace basalt::bench {

struct ClusterProfile {
  int nodes = 1000;
  std::string node_cpu = "32";
  std::string node_memory = "256Gi";
  int gpus_per_node = 8;
};

struct WorkloadProfile {
  int queues = 4;
  int pending_pods = 4000;
  int tasks_per_gang = 8;
  std::string pod_cpu = "4";
  std::string pod_memory = "32Gi";
  int pod_gpus = 1;
  // Running pods placed round-robin on the nodes before the cycle.
  int running_pods = 0;
  // Queues of the running and of the pending gangs ("" = random among `queues`).
  std::string running_queue;
  std::string pending_queue;
  // minMember of running gangs (0 = tasks_per_gang); below it, gang offers victims.
  int running_min_member = 0;
  // PriorityClass of pending gangs ("" = none); created with value 1000.
  std::string pending_priority_class;
  uint64_t seed = 1;
};

// Fills `state` with nodes, queues, PodGroups (Inqueue) and pods.
void Generate(const ClusterProfile& cluster, const WorkloadProfile& workload, ClusterState* state);

}  // namespace basalt::bench
