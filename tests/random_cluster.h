// Randomized cycle testing (issue #9, and the property test of issue #3).
//
// `GenerateWorld(seed)` draws a small random cluster (nodes with cpu, memory,
// GPUs, labels and taints; flat or hierarchical queues with capability,
// deserved, guarantee, weight, priority, reclaimable; PodGroups with minMember,
// vcjobs with PodEvicted policies; priorities, preemptable flags, running pods)
// and a valid Volcano scheduler configuration (enqueue/allocate/backfill/
// preempt/reclaim, proportion or capacity, varied tiers and switches). Each
// object is one YAML document, so a failing world shrinks by dropping
// documents and is written out as a scenario file.
//
// `RunWorld` runs it through `CycleRunner` (the world step in between) with
// every invariant of framework/invariants.h checked after every action.
// Everything is a function of the seed (std::mt19937_64): a seed reproduces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace basalt::testing {

struct World {
  uint64_t seed = 0;
  std::string conf;                // scheduler configuration text
  std::vector<std::string> docs;   // one manifest per entry
  int cycles = 3;
  std::string Manifests() const;   // docs joined with "---"
};

// `small`: at most 4 nodes, 3 queues and 4 jobs (the issue-#3 property test).
World GenerateWorld(uint64_t seed, bool small = false);

struct RunOutcome {
  int cycles_run = 0;
  // Empty when every check passed; otherwise the first violation (or the
  // error that stopped the run: a generated world must always load).
  std::string violation;
  bool ok() const { return violation.empty(); }
};

RunOutcome RunWorld(const World& world);

// True when `r` failed an invariant check (not a configuration or manifest
// error, which means the generator itself is wrong).
bool IsInvariantViolation(const RunOutcome& r);

// Drops documents (then cycles) one at a time while `RunWorld` still fails.
World Shrink(const World& failing);

// The scenario file (tests/scenarios format) reproducing `world`.
std::string ScenarioYaml(const World& world, const std::string& name, const std::string& violation);

}  // namespace basalt::testing
