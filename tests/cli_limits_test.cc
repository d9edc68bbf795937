// The input limits (api/limits.h, docs/limits.md) as a user meets them through
// the `basalt` binary: each cap's message names file:line, object, field, the
// limit and the flag that raises it, exits 2, and the flag lets the input in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

using TempDir = ::basalt::testing::ScratchDir;

const char* kQueueAndNode = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)";

// A vcjob whose tasks have `replicas` (one task each).
std::string VcJob(const std::string& name, std::initializer_list<int64_t> replicas) {
  std::string tasks;
  int i = 0;
  for (int64_t r : replicas) {
    tasks += "  - name: t" + std::to_string(i++) + "\n    replicas: " + std::to_string(r) +
             "\n    template:\n      spec:\n        containers:\n        - name: c\n"
             "          image: busybox\n          resources: {requests: {cpu: \"1\"}}\n";
  }
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: " + name +
         "\n  namespace: default\nspec:\n  minAvailable: 1\n  schedulerName: volcano\n"
         "  tasks:\n" +
         tasks;
}

bool Has(const RunResult& r, const std::string& text) {
  return r.out.find(text) != std::string::npos;
}

// replicas: 2000000000 validated ok and expanded in schedule; now both refuse it
// with the same message, and --max-job-pods raises the cap.
TEST(CliLimitsTest, ReplicasAboveThePerJobLimit) {
  TempDir dir;
  const std::string file = dir.Write(
      "cluster/job.yaml", std::string(kQueueAndNode) + "---\n" + VcJob("big", {2000000000}));
  const std::string want = file +
                           ":7: Job default/big: spec.tasks[0].replicas: 2000000000 is above the "
                           "limit of 100000 pods per job (raise it with --max-job-pods)";
  RunResult validate = Basalt("validate " + dir.path() + "/cluster");
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_TRUE(Has(validate, want)) << validate.out;
  RunResult schedule = Basalt("schedule --cluster " + dir.path() + "/cluster");
  EXPECT_EQ(schedule.exit_code, 2);
  EXPECT_TRUE(Has(schedule, want)) << schedule.out;
  EXPECT_FALSE(Has(schedule, "\"cycles\"")) << schedule.out;
}

// Each task within the cap, their sum not: the message names spec.tasks and the sum.
TEST(CliLimitsTest, TasksAddingUpAboveThePerJobLimit) {
  TempDir dir;
  const std::string file = dir.Write("job.yaml", VcJob("wide", {60000, 50000}));
  RunResult r = Basalt("validate " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, file + ":1: Job default/wide: spec.tasks: 110000 replicas in all is above "
                            "the limit of 100000 pods per job (raise it with --max-job-pods)"))
      << r.out;
  RunResult raised = Basalt("validate --max-job-pods 110000 " + file);
  EXPECT_FALSE(Has(raised, "--max-job-pods")) << raised.out;
  RunResult lowered = Basalt("validate --max-job-pods 10 " + file);
  EXPECT_TRUE(Has(lowered, "spec.tasks[0].replicas: 60000 is above the limit of 10 pods per job"))
      << lowered.out;
}

// The cluster's pods: Pods and vcjob replicas together.
TEST(CliLimitsTest, PodsOfTheCluster) {
  TempDir dir;
  const std::string file = dir.Write(
      "jobs.yaml", VcJob("a", {3}) + "---\n" + VcJob("b", {4}) + "---\n" + VcJob("c", {5}));
  RunResult r = Basalt("validate --max-pods 8 " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, file + ":37: Job default/c: spec.tasks: a total of 12 pods (Pods and vcjob "
                            "replicas) with this job's replicas is above the limit of 8 pods per "
                            "cluster (raise it with --max-pods)"))
      << r.out;
  RunResult s = Basalt("schedule --max-pods 8 --cluster " + file);
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_TRUE(Has(s, "above the limit of 8 pods per cluster (raise it with --max-pods)")) << s.out;
}

// The object count stops a folder at the first object over, naming it.
TEST(CliLimitsTest, ObjectsInTheManifests) {
  TempDir dir;
  std::string nodes;
  for (int i = 0; i < 5; ++i) {
    nodes += std::string(i ? "---\n" : "") + "apiVersion: v1\nkind: Node\nmetadata: {name: n" +
             std::to_string(i) + "}\nstatus: {allocatable: {cpu: \"1\"}}\n";
  }
  const std::string file = dir.Write("nodes.yaml", nodes);
  const std::string want = file +
                           ":16: Node n3: object 4 is above the limit of 3 objects (raise it with "
                           "--max-objects)";
  RunResult r = Basalt("validate --max-objects 3 " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, want)) << r.out;
  RunResult s = Basalt("schedule --max-objects 3 --cluster " + file);
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_TRUE(Has(s, want)) << s.out;
  RunResult ok = Basalt("validate --max-objects 5 " + file);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_TRUE(Has(ok, "ok: 5 objects valid")) << ok.out;
}

// --cycles above --max-cycles is refused before anything runs.
TEST(CliLimitsTest, Cycles) {
  TempDir dir;
  const std::string file = dir.Write("node.yaml", kQueueAndNode);
  RunResult r = Basalt("schedule --cluster " + file + " --cycles 1000000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r,
                  "--cycles: 1000000 is above the limit of 100000 cycles (raise it with "
                  "--max-cycles)"))
      << r.out;
  RunResult lowered = Basalt("schedule --cluster " + file + " --cycles 3 --max-cycles 2");
  EXPECT_EQ(lowered.exit_code, 2);
  EXPECT_TRUE(Has(lowered, "--cycles: 3 is above the limit of 2 cycles")) << lowered.out;
  EXPECT_EQ(Basalt("schedule --cluster " + file + " --cycles 2 --max-cycles 2").exit_code, 0);
}

const char* kScenarioHead = R"(duration: 1h
period: 60s
scheduler: |
  actions: "enqueue, allocate"
  tiers:
  - plugins:
    - name: gang
    - name: predicates
)";

// Pools each within their own cap add up past --max-nodes: the error names the
// pool that takes the sum over, and the sum.
TEST(CliLimitsTest, SimulatedNodesAcrossPools) {
  TempDir dir;
  const std::string scenario =
      dir.Write("s.yaml", std::string(kScenarioHead) +
                              "nodes:\n"
                              "- pool: a\n  count: 60000\n  allocatable: {cpu: \"4\"}\n"
                              "- pool: b\n  count: 60000\n  allocatable: {cpu: \"4\"}\n");
  RunResult r = Basalt("simulate " + scenario + " --out " + dir.path() + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, scenario +
                         ":13: nodes[1].count: 120000 nodes in all across 2 pools is above the "
                         "limit of 100000 simulated nodes (raise it with --max-nodes)"))
      << r.out;
  RunResult lowered =
      Basalt("simulate " + scenario + " --max-nodes 10 --out " + dir.path() + "/out");
  EXPECT_TRUE(Has(lowered,
                  ":10: nodes[0].count: 120000 nodes in all across 2 pools is above "
                  "the limit of 10 simulated nodes"))
      << lowered.out;
}

// A training workload whose largest job is above --max-job-pods, and a vcjob
// in the scenario's manifests: the same cap as validate's.
TEST(CliLimitsTest, SimulatedJobPods) {
  TempDir dir;
  const std::string training = std::string(kScenarioHead) +
                               "nodes:\n- pool: a\n  count: 2\n  allocatable: {cpu: \"4\"}\n"
                               "workloads:\n  training:\n  - name: t\n"
                               "    arrival: {interval: 10m}\n    duration: 1h\n    tasks:\n"
                               "    - {name: w, replicas: [2, 8000], requests: {cpu: \"1\"}}\n"
                               "    - {name: p, replicas: 5000, requests: {cpu: \"1\"}}\n";
  const std::string scenario = dir.Write("t.yaml", training);
  RunResult r =
      Basalt("simulate " + scenario + " --max-job-pods 10000 --out " + dir.path() + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r,
                  "workloads.training[0].tasks: up to 13000 replicas in all is above the "
                  "limit of 10000 pods per job (raise it with --max-job-pods)"))
      << r.out;

  const std::string job = dir.Write("manifests/job.yaml", VcJob("big", {2000000000}));
  const std::string with_manifests =
      dir.Write("m.yaml", std::string(kScenarioHead) + "manifests: [manifests]\n" +
                              "nodes:\n- pool: a\n  count: 2\n  allocatable: {cpu: \"4\"}\n");
  RunResult m = Basalt("simulate " + with_manifests + " --out " + dir.path() + "/out");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_TRUE(Has(m, job + ":1: Job default/big: spec.tasks[0].replicas: 2000000000 is above "
                           "the limit of 100000 pods per job (raise it with --max-job-pods)"))
      << m.out;
}

// The flags are in each command's help with their defaults.
TEST(CliLimitsTest, FlagsInHelp) {
  RunResult validate = Basalt("validate --help");
  EXPECT_TRUE(Has(validate, "--max-objects")) << validate.out;
  EXPECT_TRUE(Has(validate, "2000000")) << validate.out;
  RunResult schedule = Basalt("schedule --help");
  EXPECT_TRUE(Has(schedule, "--max-cycles")) << schedule.out;
  RunResult simulate = Basalt("simulate --help");
  EXPECT_TRUE(Has(simulate, "--max-nodes")) << simulate.out;
}

}  // namespace
}  // namespace basalt
