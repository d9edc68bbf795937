// Named benchmark profiles (bench/README.md) and the driver that runs them: generate
// the cluster in memory, open a session, run the configured actions one by one
// (each timed), close, apply the decisions to the store as a cluster would
// (binds start running at once, evicted pods disappear, PodGroup phases are
// written), repeat.
//
// Used by `basalt bench --profile NAME [--runs N]` (src/cli/bench.cc) and by
// the Google Benchmark cases in bench/scheduler_bench.cc.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/status.h"
#include "cluster_generator.h"

namespace basalt::bench {

struct Profile {
  std::string name;
  std::string description;
  ClusterProfile cluster;
  WorkloadProfile workload;
  std::string actions = "enqueue, allocate, backfill";
  // Cycles share one store (idle, churn) instead of each run starting from a
  // freshly generated cluster (alloc, preempt, reclaim).
  bool steady = false;
  // Whole gangs finishing and arriving before each cycle (churn).
  int churn_gangs = 0;
  // The configuration adds the network-topology-aware plugin.
  bool network_topology_aware = false;
};

// Every profile, in a fixed order.
const std::vector<Profile>& Profiles();
const Profile* FindProfile(const std::string& name);

// A profile with its nodes and pods scaled (the scaling table).
Profile Scaled(int nodes, int pending_pods);

// The scheduler configuration text of a profile: Volcano's default plugin set
// (priority, gang, conformance / overcommit, drf, predicates, proportion,
// nodeorder) plus binpack, with the profile's actions.
std::string ConfText(const Profile& p);

struct CycleStats {
  double wall = 0, cpu = 0;    // seconds, whole cycle (open + actions + close)
  double open = 0, close = 0;  // wall seconds
  std::vector<std::pair<std::string, double>> actions;  // wall seconds per action, in order
  int64_t bound = 0, evicted = 0, pipelined = 0;
  bool patched_snapshot = false;  // the session patched the previous cycle's snapshot
};

struct ProfileResult {
  const Profile* profile = nullptr;
  int64_t nodes = 0, pods = 0;  // in the store at the first cycle
  std::vector<CycleStats> cycles;
  int64_t peak_rss_bytes = 0;
};

struct RunOptions {
  int runs = 3;
  // Use the session's reference node selection (SessionOptions) instead of the fast one.
  bool reference = false;
  // Steady profiles (idle, churn) build every cycle's snapshot in full instead
  // of patching the previous one (framework/snapshot_cache.h).
  bool full_snapshots = false;
};

Result<ProfileResult> RunProfile(const Profile& profile, const RunOptions& options);

// The JSON object of `basalt bench`: profile, nodes, pods, bound, evicted,
// cycle_seconds_median/max, cycle_cpu_seconds_median, per-action medians,
// pods_bound_per_second, peak_rss_bytes, machine.
nlohmann::ordered_json ResultJson(const ProfileResult& r, const RunOptions& options);

// CPU model, cores, memory, kernel, compiler, load average.
nlohmann::ordered_json MachineJson();

}  // namespace basalt::bench
