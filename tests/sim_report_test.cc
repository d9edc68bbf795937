// Tests of what the simulation report and the end-of-run table show: time
// ticks on day and hour boundaries, one series per distinct GPU curve,
// percentages and hours, why GPUs were idle while jobs waited, the JobFlow
// example's job counts and the table `basalt simulate` prints.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/idle_reasons.h"
#include "sim/report_axes.h"
#include "sim/report_format.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/summary_table.h"
#include "testing.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;
using ::basalt::testing::ReadAll;

std::vector<std::string> Labels(const TimeAxis& axis) {
  std::vector<std::string> out;
  for (const AxisTick& t : axis.ticks) out.push_back(t.label);
  return out;
}

TEST(ReportAxesTest, MultiDayRunsTickAtEachDay) {
  const TimeAxis week = TimeTicks(7 * 86400);
  ASSERT_EQ(week.ticks.size(), 8u);
  for (size_t i = 0; i < week.ticks.size(); ++i)
    EXPECT_EQ(week.ticks[i].t, static_cast<int64_t>(i) * 86400);
  EXPECT_EQ(week.ticks[0].label, "d1 00:00");
  EXPECT_EQ(week.ticks[7].label, "d8 00:00");
  // Two days and a half: the days only, no tick at the odd end.
  EXPECT_EQ(Labels(TimeTicks(2 * 86400 + 43200)),
            (std::vector<std::string>{"d1 00:00", "d2 00:00", "d3 00:00"}));
  // Sixty days: every fifth day keeps the ticks readable.
  const TimeAxis long_run = TimeTicks(60 * 86400);
  EXPECT_LE(long_run.ticks.size(), 15u);
  EXPECT_EQ(long_run.ticks[1].t, 5 * 86400);
  for (const AxisTick& t : long_run.ticks) EXPECT_EQ(t.t % 86400, 0) << t.label;
}

TEST(ReportAxesTest, ShorterRunsTickAtWholeHoursOrMinutes) {
  const TimeAxis day = TimeTicks(86400);
  ASSERT_EQ(day.ticks.size(), 13u);
  EXPECT_EQ(day.ticks[1].t, 2 * 3600);
  EXPECT_EQ(day.ticks[1].label, "2 h");
  EXPECT_EQ(day.ticks.back().label, "24 h");
  EXPECT_EQ(Labels(TimeTicks(6 * 3600)),
            (std::vector<std::string>{"0 h", "1 h", "2 h", "3 h", "4 h", "5 h", "6 h"}));
  EXPECT_EQ(Labels(TimeTicks(1800)), (std::vector<std::string>{"0 min", "5 min", "10 min", "15 min",
                                                               "20 min", "25 min", "30 min"}));
}

Json Metrics(const std::vector<Json>& utilisation) {
  Json samples = Json::array();
  int64_t t = 0;
  for (const Json& u : utilisation) {
    samples.push_back({{"t", t}, {"utilization", u}});
    t += 300;
  }
  return {{"samples", samples}};
}

TEST(ReportAxesTest, CardModelEqualToTheGenericGpuSeriesIsDrawnOnce) {
  const Json one_model = Metrics({
      {{"cpu", 0.1}, {"gpu:NVIDIA-H800", 0.5}, {"memory", 0.2}, {"nvidia.com/gpu", 0.5}},
      {{"cpu", 0.2}, {"gpu:NVIDIA-H800", 0.75}, {"memory", 0.2}, {"nvidia.com/gpu", 0.75}},
  });
  const auto series = UtilisationSeries(one_model);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].label, "CPU");
  EXPECT_EQ(series[1].label, "memory");
  EXPECT_EQ(series[2].key, "nvidia.com/gpu");
  EXPECT_EQ(series[2].label, "GPU (all NVIDIA-H800)");
  // Two models with their own curves: both drawn beside the generic one.
  const Json two_models = Metrics({
      {{"gpu:A100", 0.5}, {"gpu:H800", 0.25}, {"nvidia.com/gpu", 0.375}},
      {{"gpu:A100", 1.0}, {"gpu:H800", 0.5}, {"nvidia.com/gpu", 0.75}},
  });
  const auto apart = UtilisationSeries(two_models);
  ASSERT_EQ(apart.size(), 3u);
  EXPECT_EQ(apart[0].label, "GPU A100");
  EXPECT_EQ(apart[1].label, "GPU H800");
  EXPECT_EQ(apart[2].label, "GPU (nvidia.com/gpu)");
}

TEST(ReportFormatTest, PercentagesAndDurations) {
  EXPECT_EQ(FormatPercent(0.4321), "43.2%");
  EXPECT_EQ(FormatPercent(0), "0%");
  EXPECT_EQ(FormatPercent(1), "100%");
  EXPECT_EQ(FormatPercent(0.99996), "100%");
  EXPECT_EQ(FormatDuration(42), "42 s");
  EXPECT_EQ(FormatDuration(12 * 60 + 59), "12 min");
  EXPECT_EQ(FormatDuration(3 * 3600 + 5 * 60 + 30), "3 h 05 min");
  EXPECT_EQ(FormatDuration(50 * 3600), "50 h 00 min");
  EXPECT_EQ(FormatSimTime(86400 + 14 * 3600 + 30 * 60), "d2 14:30");
}

// Four nodes of 8 GPUs; `free` GPUs left on each.
IdleSnapshot Cluster(std::vector<int64_t> free_gpus) {
  IdleSnapshot s;
  for (int64_t g : free_gpus) s.node_free_gpu_milli.push_back(g * 1000);
  s.queues["train"] = {.allocated = 16000, .deserved = 0, .capability = 0};
  return s;
}

IdleSnapshot::WaitingJob Job(const std::string& name, std::vector<int64_t> pod_gpus,
                             const std::string& queue = "train") {
  IdleSnapshot::WaitingJob j{name, queue, {}};
  for (int64_t g : pod_gpus) j.pod_gpu_milli.push_back(g * 1000);
  return j;
}

TEST(IdleReasonsTest, FragmentationWhenNoNodeFitsTheSmallestWaitingPod) {
  IdleSnapshot s = Cluster({2, 2, 2, 0});  // 6 free, at most 2 on a node
  s.waiting.push_back(Job("ml/big", {4}));
  const IdleVerdict v = ExplainIdle(s);
  ASSERT_TRUE(v.idle_while_waiting);
  EXPECT_EQ(v.reason, IdleReason::kFragmentation);
  EXPECT_EQ(v.free_gpu_milli, 6000);
  EXPECT_EQ(v.detail,
            "6 GPUs free; at most 2 on one node, the smallest pod of job ml/big needs 4 (1 of 1 "
            "waiting jobs alike)");
}

TEST(IdleReasonsTest, GangSizeWhenTheGangNeedsMoreThanIsFree) {
  IdleSnapshot s = Cluster({4, 2, 0, 0});
  s.waiting.push_back(Job("ml/gang", {4, 4}));  // 8 > 6 free
  EXPECT_EQ(ExplainIdle(s).reason, IdleReason::kGangSize);
}

TEST(IdleReasonsTest, QuotaWhenTheQueueIsAtItsCapabilityOrDeserved) {
  IdleSnapshot s = Cluster({8, 8, 0, 0});
  s.queues["train"].capability = 16000;  // holds 16 already
  s.waiting.push_back(Job("ml/capped", {1}));
  const IdleVerdict v = ExplainIdle(s);
  EXPECT_EQ(v.reason, IdleReason::kQuota);
  EXPECT_NE(v.detail.find("queue train holds 16 GPUs (deserved 0, capability 16)"),
            std::string::npos)
      << v.detail;
  s.queues["train"] = {.allocated = 16000, .deserved = 16000, .capability = 0};
  EXPECT_EQ(ExplainIdle(s).reason, IdleReason::kQuota);
}

TEST(IdleReasonsTest, OtherWhenTheJobWouldFitAndMostJobsDecide) {
  IdleSnapshot s = Cluster({8, 0, 0, 0});
  s.waiting.push_back(Job("ml/fits", {2}));
  EXPECT_EQ(ExplainIdle(s).reason, IdleReason::kOther);
  // Two fragmented jobs outvote the one that would fit.
  s = Cluster({3, 3, 0, 0});
  s.waiting.push_back(Job("ml/a", {4}));
  s.waiting.push_back(Job("ml/b", {2}));
  s.waiting.push_back(Job("ml/c", {4}));
  EXPECT_EQ(ExplainIdle(s).reason, IdleReason::kFragmentation);
  // Nothing free or nothing waiting: no idle GPU to explain.
  EXPECT_FALSE(ExplainIdle(Cluster({0, 0})).idle_while_waiting);
  EXPECT_FALSE(ExplainIdle(Cluster({8, 8})).idle_while_waiting);
}

TEST(IdleReasonsTest, RecorderAddsGpuHoursPerReason) {
  IdleSnapshot s = Cluster({2, 2, 0, 0});
  s.waiting.push_back(Job("ml/big", {4}));
  IdleRecorder r;
  r.Add(0, 1800, ExplainIdle(s));
  r.Add(1800, 1800, ExplainIdle(s));
  r.Add(3600, 1800, ExplainIdle(Cluster({0})));
  const Json j = r.SummaryJson();
  EXPECT_EQ(j["samples"], 2);
  EXPECT_EQ(j["idle_gpu_hours"], 4.0);  // 4 GPUs for 2 x 30 min
  EXPECT_EQ(j["reasons"]["fragmentation"]["samples"], 2);
  EXPECT_EQ(j["reasons"]["fragmentation"]["max_idle_gpus"], 4.0);
  EXPECT_EQ(j["reasons"]["fragmentation"]["example"].get<std::string>().substr(0, 10),
            "d1 00:00: ");
  EXPECT_EQ(j["reasons"]["quota"]["samples"], 0);
}

// A small simulation where gangs of 4 GPUs wait while the 8-GPU nodes hold 3
// idle GPUs each: the summary says fragmentation.
TEST(IdleReasonsTest, SimulationExplainsFragmentedIdleGpus) {
  const std::string text = R"(name: frag
seed: 1
duration: 2h
period: 60s
metrics_interval: 10m
scheduler: |
  actions: "enqueue, allocate, backfill"
  tiers:
  - plugins:
    - name: priority
    - name: gang
  - plugins:
    - name: predicates
    - name: proportion
    - name: binpack
queues:
- {name: train, weight: 1}
nodes:
- {pool: gpu, count: 2, allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8"}}
workloads:
  training:
  - name: small
    queue: train
    arrival: {process: fixed, interval: 1m}
    max_jobs: 2
    tasks: [{name: worker, replicas: 1, requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "5"}}]
    duration: 10h
  - name: wide
    queue: train
    arrival: {process: fixed, interval: 5m, start: 10m}
    max_jobs: 1
    tasks: [{name: worker, replicas: 1, requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "4"}}]
    duration: 1h
)";
  const auto dir = std::filesystem::temp_directory_path() / "basalt_idle_reasons_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "frag.yaml") << text;
  auto scenario = LoadScenario((dir / "frag.yaml").string());
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  auto sim = Simulator::Create(*scenario, SimulatorOptions{});
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  ASSERT_OK((*sim)->Run());
  const Json summary = (*sim)->metrics().SummaryJson("frag", 1, scenario->duration);
  const Json& idle = summary["idle_gpus_while_waiting"];
  EXPECT_GT(idle["reasons"]["fragmentation"]["samples"].get<int64_t>(), 0) << idle.dump();
  EXPECT_NE(idle["reasons"]["fragmentation"]["example"].get<std::string>().find(
                "6 GPUs free; at most 3 on one node"),
            std::string::npos)
      << idle.dump();
}

// The JobFlow example runs its three jobs one after the other: the summary
// counts them as submitted and completed.
TEST(SimJobFlowCountTest, ExampleCountsItsThreeJobs) {
  auto scenario = LoadScenario(std::string(BASALT_SOURCE_DIR) + "/examples/jobflow-simulate.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  auto sim = Simulator::Create(*scenario, SimulatorOptions{});
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  ASSERT_OK((*sim)->Run());
  const Json summary = (*sim)->metrics().SummaryJson("jobflow", 1, scenario->duration);
  EXPECT_EQ(summary["jobs_submitted"], 3) << summary.dump();
  EXPECT_EQ(summary["jobs_completed"], 3) << summary.dump();
  // No GPUs: nothing to explain about idle ones.
  EXPECT_FALSE(summary.contains("idle_gpus_while_waiting"));
}

// `basalt simulate` ends with the human table on stdout; the progress line
// and messages stay on stderr.
TEST(SimSummaryTableTest, SimulatePrintsTheTableOnStdout) {
  const auto dir = std::filesystem::temp_directory_path() / "basalt_summary_table_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " + BASALT_SOURCE_DIR +
                          "/examples/tidal-day.yaml --out " + (dir / "out").string() + " >" +
                          (dir / "stdout.txt").string() + " 2>" + (dir / "stderr.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadAll(dir / "stderr.txt");
  const std::string out = ReadAll(dir / "stdout.txt");
  const std::string err = ReadAll(dir / "stderr.txt");
  EXPECT_EQ(out.rfind("tidal-day: 24 h 00 min simulated, seed 42\n", 0), 0u) << out;
  for (const char* row : {"\n  utilisation GPU (all NVIDIA-H800)  ", "\n  jobs completed ",
                          "\n  wait p50 / p90 (training) ", "\n  evictions ",
                          "\n  gang violations ", "\n  idle GPUs while jobs waited "}) {
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  }
  EXPECT_EQ(out.find("utilisation gpu:"), std::string::npos) << out;
  EXPECT_NE(out.find("%"), std::string::npos) << out;
  EXPECT_EQ(err.find("utilisation"), std::string::npos) << err;
  EXPECT_NE(err.find("simulate: wrote"), std::string::npos) << err;
  // The table is a function of the summary: the same run prints the same bytes.
  const Json summary = Json::parse(ReadAll(dir / "out" / "summary.json"));
  const Json metrics = Json::parse(ReadAll(dir / "out" / "metrics.json"));
  EXPECT_EQ(SimulateSummaryTable(summary, metrics), out);
}

}  // namespace
}  // namespace basalt
