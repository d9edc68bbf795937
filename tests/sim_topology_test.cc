// Tests of the `topology` section of `basalt simulate` scenarios: the
// HyperNodes it generates, the jobs' constraints under each mode, the
// placement report of examples/topology-racks.yaml (sane and deterministic)
// and bad input (exit 2 naming file, line and field).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/placement_quality.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/topology_section.h"
#include "testing.h"

namespace basalt {
namespace {

using ::basalt::testing::ReadAll;

struct CliRun {
  int exit_code = -1;
  std::string err;
  std::filesystem::path out;
};

// Runs `basalt simulate SCENARIO ARGS --out <fresh folder>`.
CliRun Simulate(const std::string& test, const std::string& scenario, const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / ("basalt_simtopo_" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CliRun r;
  r.out = dir / "out";
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " + scenario + " " + args +
                          " --out " + r.out.string() + " 2>" + (dir / "err.txt").string();
  r.exit_code = WEXITSTATUS(std::system(cmd.c_str()));
  r.err = ReadAll(dir / "err.txt");
  return r;
}

CliRun SimulateText(const std::string& test, const std::string& text, const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / ("basalt_simtopo_in_" + test);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scenario.yaml", std::ios::binary) << text;
  return Simulate(test, (dir / "scenario.yaml").string(), args);
}

const std::string kHead = R"(duration: 2h
scheduler: |
  actions: "enqueue, allocate"
  tiers:
  - plugins:
    - name: gang
    - name: predicates
    - name: network-topology-aware
nodes:
- pool: g
  count: 20
  allocatable: {cpu: "8", memory: 64Gi, nvidia.com/gpu: "8"}
)";

const std::string kTraining = R"(workloads:
  training:
  - name: t
    arrival: {process: fixed, interval: 10m}
    tasks: [{replicas: [2, 4], requests: {cpu: "8", nvidia.com/gpu: "8"}}]
    duration: 30m
)";

// Leaves of `nodes_per_leaf` consecutive nodes, spines of leaves, cores of
// spines; the last group of each tier holds what is left.
TEST(SimTopologyTest, SectionGeneratesLeavesSpinesAndCores) {
  auto s = ParseScenario(kHead + R"(topology:
  tier_names: [rack]
  pools:
  - {pool: g, nodes_per_leaf: 4, leaves_per_spine: 2, spines_per_core: 2}
)",
                         "t.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->topology.present);
  EXPECT_EQ(s->topology.jobs, "as_written");
  auto name = [](const std::string& pool, int32_t i) { return pool + "-" + std::to_string(i); };
  std::vector<HyperNode> hs = GenerateHyperNodes(s->topology, s->pools, name);
  std::map<std::string, HyperNode> by_name;
  for (const HyperNode& h : hs) by_name[h.meta.name] = h;
  ASSERT_EQ(hs.size(), 5u + 3u + 2u);  // 20 nodes: 5 racks, 3 spines, 2 cores
  EXPECT_EQ(by_name["g-rack-00"].tier, 1);
  EXPECT_EQ(by_name["g-rack-00"].tier_name, "rack");
  ASSERT_EQ(by_name["g-rack-04"].members.size(), 4u);
  EXPECT_EQ(by_name["g-rack-04"].members[0].exact_name, "g-16");
  EXPECT_EQ(by_name["g-spine-02"].tier, 2);
  ASSERT_EQ(by_name["g-spine-02"].members.size(), 1u);  // the fifth rack alone
  EXPECT_EQ(by_name["g-spine-02"].members[0].exact_name, "g-rack-04");
  EXPECT_EQ(by_name["g-core-01"].tier, 3);
  EXPECT_EQ(by_name["g-core-01"].members[0].type, HyperNodeMember::Type::kHyperNode);
}

// `jobs` decides every job's constraint: none drops it, hard and soft keep
// the workload's own highest tier, else the section's, else the top tier.
TEST(SimTopologyTest, JobsModeSetsEveryJobsConstraint) {
  TopologySection section;
  NetworkTopologySpec own;
  own.mode = NetworkTopologySpec::Mode::kSoft;
  own.highest_tier_allowed = 1;
  section.jobs = "none";
  EXPECT_FALSE(EffectiveJobTopology(section, own, 3).has_value());
  section.jobs = "as_written";
  EXPECT_EQ(EffectiveJobTopology(section, own, 3), own);
  EXPECT_FALSE(EffectiveJobTopology(section, std::nullopt, 3).has_value());
  section.jobs = "hard";
  auto hard = EffectiveJobTopology(section, own, 3);
  ASSERT_TRUE(hard.has_value());
  EXPECT_EQ(hard->mode, NetworkTopologySpec::Mode::kHard);
  EXPECT_EQ(hard->highest_tier_allowed, 1);
  EXPECT_EQ(EffectiveJobTopology(section, std::nullopt, 3)->highest_tier_allowed, 3);
  section.highest_tier_name = "spine";
  auto named = EffectiveJobTopology(section, std::nullopt, 3);
  EXPECT_FALSE(named->highest_tier_allowed.has_value());
  EXPECT_EQ(named->highest_tier_name, "spine");
  section.jobs = "soft";
  EXPECT_EQ(EffectiveJobTopology(section, std::nullopt, 3)->mode, NetworkTopologySpec::Mode::kSoft);
}

nlohmann::json Summary(const CliRun& r) {
  return nlohmann::json::parse(ReadAll(r.out / "summary.json"));
}

// The example in hard, soft and none modes: hard jobs never span above the
// spine, every job is reported once, and a second run gives the same bytes.
TEST(SimTopologyTest, RackExampleIsSaneInEveryModeAndDeterministic) {
  const std::string example = std::string(BASALT_SOURCE_DIR) + "/examples/topology-racks.yaml";
  std::map<std::string, nlohmann::json> topo;
  for (const std::string mode : {"hard", "soft", "none"}) {
    CliRun r = Simulate("racks_" + mode, example, "--topology-jobs " + mode);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("topology (jobs " + mode + "):"), std::string::npos) << r.err;
    const nlohmann::json t = Summary(r)["topology"];
    topo[mode] = t;
    EXPECT_EQ(t["jobs"], mode);
    EXPECT_EQ(t["top_tier"], 2);
    EXPECT_EQ(t["hypernodes"], 16 + 2);
    EXPECT_GT(t["jobs_placed"].get<int64_t>(), 100);
    EXPECT_EQ(t["hard_above_allowed_tier"], 0);
    int64_t rows = 0;
    for (const auto& row : t["placements"]) {
      ++rows;
      EXPECT_EQ(row[2], mode == "none" ? "none" : mode);
      if (row[9].is_null()) continue;  // never placed
      const int64_t tier = row[9], leaves = row[7], min_leaves = row[8];
      EXPECT_GE(tier, 1);
      EXPECT_LE(tier, 3);
      EXPECT_GE(leaves, min_leaves);
      if (mode == "hard") {
        EXPECT_LE(tier, 2) << row.dump();
      }
      if (leaves == 1) {
        EXPECT_EQ(tier, 1) << row.dump();
      }
    }
    EXPECT_EQ(rows, t["jobs_submitted"].get<int64_t>());
    const std::string csv = ReadAll(r.out / "topology.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), rows + 1);
    EXPECT_NE(ReadAll(r.out / "report.html").find("<h2>Network topology</h2>"), std::string::npos);
    if (mode != "hard") continue;
    CliRun again = Simulate("racks_hard_again", example, "--topology-jobs hard");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    for (const char* f :
         {"summary.json", "metrics.json", "metrics.csv", "topology.csv", "report.html"}) {
      EXPECT_EQ(ReadAll(r.out / f), ReadAll(again.out / f)) << f;
    }
  }
  // Soft mode may cross the spines; hard mode never does.
  EXPECT_EQ(topo["hard"]["jobs_by_tier_spanned"].count("3"), 0u);
  EXPECT_LE(topo["hard"]["mean_tier_spanned"].get<double>(),
            topo["none"]["mean_tier_spanned"].get<double>());
}

// Without a topology section nothing changes: no topology object, no file.
TEST(SimTopologyTest, NoSectionNoTopologyOutputs) {
  CliRun r = SimulateText("no_section", kHead + kTraining, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Summary(r).contains("topology"));
  EXPECT_FALSE(std::filesystem::exists(r.out / "topology.csv"));
  EXPECT_EQ(ReadAll(r.out / "report.html").find("Network topology"), std::string::npos);
}

TEST(SimTopologyTest, BadSectionExits2NamingFileLineAndField) {
  const std::string pools = "  pools:\n  - {pool: g, nodes_per_leaf: 4, leaves_per_spine: 5}\n";
  struct Case {
    const char* name;
    std::string text;
    std::string args;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"unknown_key", kHead + "topology:\n  racks: 2\n", "",
       "scenario.yaml:14: topology.racks: unknown field"},
      {"bad_mode", kHead + "topology:\n  jobs: strict\n", "",
       "scenario.yaml:14: topology.jobs: unknown mode \"strict\""},
      {"unknown_pool", kHead + "topology:\n  pools:\n  - {pool: cpu, nodes_per_leaf: 4}\n", "",
       "scenario.yaml:15: topology.pools[0].pool: unknown pool \"cpu\""},
      {"zero_per_leaf", kHead + "topology:\n  pools:\n  - {pool: g, nodes_per_leaf: 0}\n", "",
       "scenario.yaml:15: topology.pools[0].nodes_per_leaf: must be in [1, 100000]"},
      {"core_without_spine",
       kHead + "topology:\n  pools:\n  - {pool: g, nodes_per_leaf: 4, spines_per_core: 2}\n", "",
       "topology.pools[0].spines_per_core: needs leaves_per_spine"},
      {"duplicate_tier_name", kHead + "topology:\n  tier_names: [rack, rack]\n", "",
       "scenario.yaml:14: topology.tier_names[1]: duplicate tier name"},
      {"tier_and_name", kHead + "topology:\n  highest_tier: 1\n  highest_tier_name: leaf\n", "",
       "topology.highest_tier_name: highest_tier and highest_tier_name cannot both be set"},
      {"unknown_tier_name", kHead + "topology:\n  highest_tier_name: rack\n" + pools, "",
       "scenario.yaml:14: topology.highest_tier_name: no HyperNode has tierName \"rack\""},
      {"hard_without_hypernodes", kHead + "topology:\n  jobs: hard\n", "",
       "scenario.yaml:14: topology.jobs: hard needs HyperNodes"},
      {"flag_without_section", kHead, "--topology-jobs soft",
       "--topology-jobs: the scenario has no topology section"},
      {"flag_without_hypernodes", kHead + "topology: {}\n", "--topology-jobs hard",
       "--topology-jobs: hard needs HyperNodes"},
      {"workload_mode", kHead + kTraining + "    network_topology: {mode: strict}\n", "",
       "scenario.yaml:19: workloads.training[0].network_topology.mode: unknown mode \"strict\""},
  };
  for (const Case& c : cases) {
    CliRun r = SimulateText(std::string("bad_") + c.name, c.text, c.args);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": got " << r.err;
  }
}

}  // namespace
}  // namespace basalt
