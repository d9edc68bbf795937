// Randomized cycle testing and the property test over small worlds
// (docs/reliability.md).
//
// `GenerateWorld(seed)` draws a small random cluster (nodes with cpu, memory,
// GPUs, labels and taints; flat or hierarchical queues with capability,
// deserved, guarantee, weight, priority, reclaimable; PodGroups with minMember,
// vcjobs with PodEvicted policies; priorities, preemptable flags, running pods)
// and a valid Volcano scheduler configuration (enqueue/allocate/backfill/
// preempt/reclaim, proportion, capacity or capacity-card, varied tiers,
// switches and arguments). A quarter of the worlds are card worlds for
// capacity-card: GPU nodes with product labels (H200, A100, H200 MIG slices),
// queues with `volcano.sh/card.quota`, jobs with `card.name` (one model or
// alternatives), `card.request` and an inference / training service type. A
// third of the worlds get a HyperNode tree (leaves of two nodes under a root)
// and hard or soft network topology constraints on half their jobs. Each
// object is one YAML document, so a failing world shrinks by dropping
// documents and is written out as a scenario file.
//
// `RunWorld` runs it through `CycleRunner` (the world step in between) with
// every invariant of framework/invariants.h checked after every action.
// Everything is a function of the seed (std::mt19937_64): a seed reproduces.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace basalt::testing {

struct World {
  uint64_t seed = 0;
  std::string conf;               // scheduler configuration text
  std::vector<std::string> docs;  // one manifest per entry
  int cycles = 3;
  std::string Manifests() const;  // docs joined with "---"
};

// `small`: at most 4 nodes, 3 queues and 4 jobs (the issue-#3 property test).
World GenerateWorld(uint64_t seed, bool small = false);

struct RunOutcome {
  int cycles_run = 0;
  // Empty when every check passed; otherwise the first violation (or the
  // error that stopped the run: a generated world must always load).
  std::string violation;
  int binds = 0;  // decisions over all cycles run
  int evictions = 0;
  bool ok() const { return violation.empty(); }
};

RunOutcome RunWorld(const World& world);

// True when `r` failed an invariant check (not a configuration or manifest
// error, which means the generator itself is wrong).
bool IsInvariantViolation(const RunOutcome& r);

// Runs a world; `RunWorld` except in the shrinker's own tests, which inject
// a fake violation.
using WorldRunner = std::function<RunOutcome(const World&)>;

// Shrinks a world whose run violates an invariant, keeping each cut only while
// `run` still reports an invariant violation (a cut that makes the world fail
// to load is undone): first whole jobs (a PodGroup with every pod naming it),
// then single objects (nodes, queues, pods, vcjobs, priority classes) one at a
// time, repeated until nothing more can go, then cycles. A world that does not
// violate an invariant is returned as it is.
World Shrink(const World& failing, const WorldRunner& run = RunWorld);

// The scenario file (tests/scenarios format) reproducing `world`: run with
// `check_invariants: true` and an empty `expect`, so it fails while the
// invariant breaks and passes once the bug is fixed (then add the expected
// decisions). The violation is quoted in the description.
std::string ScenarioYaml(const World& world, const std::string& name, const std::string& violation);

}  // namespace basalt::testing
