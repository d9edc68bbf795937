// Randomized cycles with every invariant of framework/invariants.h checked
// after every action, and the property test over small clusters
// (docs/reliability.md). Seeds are fixed, so a failure reproduces with
// `./scripts/random-cycles CYCLES SEED` and shrinks to a scenario file.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "admission/admission.h"
#include "api/decode.h"
#include "cli/schedule.h"
#include "framework/invariants.h"
#include "random_cluster.h"

namespace basalt::testing {
namespace {

// The CI batch: at least 2,000 cycles from seed 1. Every world must load (a
// generator bug would otherwise hide behind "no violation").
TEST(RandomCyclesTest, TwoThousandCyclesKeepEveryInvariant) {
  int cycles = 0;
  for (uint64_t seed = 1; cycles < 2000; ++seed) {
    RunOutcome r = RunWorld(GenerateWorld(seed));
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.violation
                        << "\nreproduce: ./scripts/random-cycles 1 " << seed;
    ASSERT_GT(r.cycles_run, 0) << "seed " << seed;
    cycles += r.cycles_run;
  }
}

// The property test: over 1,000 random small clusters and workloads, after every cycle
// (indeed every action) no node is over-committed, no queue exceeds its
// capability, reclaim pushes no queue below its guarantee, and the scheduler's
// own evictions leave no gang below minAvailable (checks 2, 6, 7, 8).
TEST(RandomCyclesTest, PropertiesHoldOnSmallClusters) {
  for (uint64_t seed = 1'000'000; seed < 1'001'000; ++seed) {
    RunOutcome r = RunWorld(GenerateWorld(seed, /*small=*/true));
    ASSERT_TRUE(r.ok()) << "seed " << seed << " (small): " << r.violation;
  }
}

// The checker itself must be able to fail: a world whose cycle violates an
// invariant is reported. Here the generator's output is corrupted on purpose by
// a node list that cannot load, which RunWorld reports rather than passing.
TEST(RandomCyclesTest, BrokenWorldIsReported) {
  World w = GenerateWorld(7);
  w.docs.push_back(
      "apiVersion: v1\nkind: Node\nmetadata: {name: bad}\nstatus: {allocatable: {cpu: \"x\"}}\n");
  EXPECT_FALSE(RunWorld(w).ok());
}

// The same seed gives the same world: reproducers stay valid.
TEST(RandomCyclesTest, GenerationIsDeterministic) {
  World a = GenerateWorld(42), b = GenerateWorld(42);
  EXPECT_EQ(a.conf, b.conf);
  EXPECT_EQ(a.docs, b.docs);
  EXPECT_NE(a.docs, GenerateWorld(43).docs);
}

// Regression (4d2632e): the generator once wrote queues with a guarantee above
// their capability, which Volcano's admission refuses, and the capability check
// then reported behaviour that is Volcano's by design. Every generated world
// must be one `basalt validate` accepts.
// SubGroups reach the random worlds (invariant 12 has something to check):
// PodGroups with a subGroupPolicy and vcjob tasks with a partitionPolicy.
TEST(RandomCyclesTest, SomeWorldsHaveSubGroups) {
  int groups = 0, partitions = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const std::string m = GenerateWorld(seed).Manifests();
    groups += m.find("subGroupPolicy:") != std::string::npos;
    partitions += m.find("partitionPolicy:") != std::string::npos;
  }
  EXPECT_GT(groups, 20);
  EXPECT_GT(partitions, 20);
}

TEST(RandomCyclesTest, GeneratedWorldsPassAdmission) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (bool small : {false, true}) {
      World w = GenerateWorld(seed, small);
      ClusterObjects objects;
      ASSERT_TRUE(
          DecodeText(w.Manifests(), "seed-" + std::to_string(seed) + ".yaml", &objects).ok())
          << seed;
      std::vector<AdmissionProblem> problems = ValidateObjects(objects);
      ASSERT_TRUE(problems.empty())
          << "seed " << seed << (small ? " (small)" : "") << ": " << problems.front().ToString();
    }
  }
}

// Card worlds (capacity-card): the generator makes them, they load and pass
// admission (GeneratedWorldsPassAdmission covers every seed), and their cycles
// keep every invariant, check 9 (card accounting per model) included. They
// must also place and evict card pods, or check 9 would have nothing to see.
TEST(RandomCyclesTest, CardWorldsKeepEveryInvariant) {
  int worlds = 0, binds = 0, evictions = 0;
  for (uint64_t seed = 1; worlds < 150; ++seed) {
    World w = GenerateWorld(seed);
    if (w.conf.find("name: capacity-card") == std::string::npos) continue;
    ++worlds;
    EXPECT_EQ(w.conf.find("name: capacity\n"), std::string::npos) << seed;
    EXPECT_EQ(w.conf.find("name: proportion"), std::string::npos) << seed;
    RunOutcome r = RunWorld(w);
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.violation
                        << "\nreproduce: ./scripts/random-cycles 1 " << seed;
    bool card_pods = false;
    for (const std::string& d : w.docs)
      card_pods = card_pods || d.find("volcano.sh/card.name") != std::string::npos;
    if (card_pods) {
      binds += r.binds;
      evictions += r.evictions;
    }
  }
  EXPECT_GT(binds, 100);
  EXPECT_GT(evictions, 0);
}

// The shrinker on an injected fake violation: the "bug" shows whenever node n1
// and a pod of job j0 are in the world, and a pod whose PodGroup is missing is
// a load error (which must never be kept as a cut). The shrunk world is
// exactly node n1, PodGroup j0 and one of its pods, in one cycle.
TEST(RandomCyclesTest, ShrinkKeepsOnlyWhatTheFakeViolationNeeds) {
  auto has = [](const World& w, const std::string& text) {
    for (const std::string& d : w.docs) {
      if (d.find(text) != std::string::npos) return true;
    }
    return false;
  };
  const std::string node = "kind: Node\nmetadata: {name: n1,";
  const std::string pod_of_j0 = "scheduling.k8s.io/group-name: j0";
  World w;
  for (uint64_t seed = 1;; ++seed) {
    w = GenerateWorld(seed);
    if (has(w, node) && has(w, pod_of_j0) && w.docs.size() > 10 && w.cycles > 1) break;
  }
  int runs = 0;
  auto fake = [&](const World& x) {
    ++runs;
    RunOutcome r;
    for (const std::string& d : x.docs) {
      const size_t at = d.find("scheduling.k8s.io/group-name: ");
      if (at == std::string::npos) continue;
      const std::string group = d.substr(at + 30, d.find_first_of(",}\n", at + 30) - at - 30);
      if (!has(x, "kind: PodGroup\nmetadata: {name: " + group + ",")) {
        r.violation = "manifests: pod of missing group " + group;
        return r;
      }
    }
    if (has(x, node) && has(x, pod_of_j0)) r.violation = "cycle 1, after action allocate: fake";
    r.cycles_run = x.cycles;
    return r;
  };
  World small = Shrink(w, fake);
  ASSERT_EQ(small.docs.size(), 3u) << small.Manifests();
  EXPECT_NE(small.docs[0].find(node), std::string::npos) << small.Manifests();
  EXPECT_NE(small.docs[1].find("kind: PodGroup\nmetadata: {name: j0,"), std::string::npos)
      << small.Manifests();
  EXPECT_NE(small.docs[2].find(pod_of_j0), std::string::npos) << small.Manifests();
  EXPECT_EQ(small.cycles, 1);
  EXPECT_EQ(small.conf, w.conf);
  EXPECT_LT(runs, 200);
  // A world that keeps every invariant is not shrunk.
  World fine = GenerateWorld(5);
  EXPECT_EQ(Shrink(fine, [](const World&) { return RunOutcome(); }).docs, fine.docs);
}

// The reproducer is a scenario file the scenario test runs: name, description,
// conf, cycles, check_invariants, cluster and an empty expect (it fails while
// the invariant breaks). A world keeping its invariants runs clean through
// `basalt schedule --check-invariants`.
TEST(RandomCyclesTest, ReproducerIsARunnableScenario) {
  World w = GenerateWorld(11, /*small=*/true);
  YAML::Node doc = YAML::Load(ScenarioYaml(w, "seed-11", "cycle 1, after action allocate: fake"));
  EXPECT_EQ(doc["name"].Scalar(), "seed-11");
  EXPECT_NE(doc["description"].Scalar().find("cycle 1, after action allocate: fake"),
            std::string::npos);
  EXPECT_EQ(doc["conf"].Scalar(), w.conf);
  EXPECT_EQ(doc["cluster"].Scalar(), w.Manifests());
  EXPECT_EQ(doc["cycles"].as<int>(), w.cycles);
  EXPECT_TRUE(doc["check_invariants"].as<bool>());
  EXPECT_TRUE(doc["expect"].IsMap());
  ScheduleRequest req;
  req.conf_text = doc["conf"].Scalar();
  req.cluster_text = doc["cluster"].Scalar();
  req.cycles = doc["cycles"].as<int>();
  req.check_invariants = true;
  auto out = RunSchedule(req);
  EXPECT_TRUE(out.ok()) << out.status().message();
}

}  // namespace
}  // namespace basalt::testing
