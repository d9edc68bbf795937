// Colocation in `basalt simulate`: the agents' model on the simulated nodes
// (extend and native modes, eviction under pressure), the colocation week
// example's numbers and bytes, and malformed `colocation:` sections.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "testing.h"

namespace basalt {
namespace {

using ::basalt::testing::ReadAll;

struct Outputs {
  std::string summary, metrics, csv, html;
  nlohmann::ordered_json summary_json;
};

Outputs Simulate(const Scenario& s) {
  auto sim = Simulator::Create(s, SimulatorOptions{});
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  if (!sim.ok()) return {};
  Status st = (*sim)->Run();
  EXPECT_TRUE(st.ok()) << st.message();
  Outputs out;
  out.summary_json = (*sim)->metrics().SummaryJson(s.name, (*sim)->seed(), s.duration);
  out.summary = out.summary_json.dump();
  const auto metrics = (*sim)->metrics().MetricsJson();
  out.metrics = metrics.dump();
  out.csv = (*sim)->metrics().MetricsCsv();
  out.html = RenderReport(out.summary_json, metrics, "", "missing");
  return out;
}

Scenario Parse(const std::string& text) {
  auto s = ParseScenario(text, "colo.yaml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : Scenario();
}

// Two nodes of 16 CPUs; one online service requesting 12 CPUs per node whose
// use follows `online_cpu`; BE jobs of 4 CPUs each (`be_requests`).
std::string SmallScenario(const std::string& mode, const std::string& online_cpu,
                          const std::string& be_requests, const std::string& be_priority) {
  return R"(name: colo-small
seed: 3
duration: 6h
period: 60s
metrics_interval: 10m
scheduler: |
  actions: "enqueue, allocate, backfill"
  tiers:
  - plugins:
    - name: priority
    - name: gang
      enableJobStarving: false
  - plugins:
    - name: predicates
    - name: proportion
    - name: nodeorder
priority_classes:
- {name: online, value: 1000}
- {name: batch, value: )" +
         be_priority + R"(}
queues:
- {name: online}
- {name: batch}
nodes:
- pool: n
  count: 2
  allocatable: {cpu: "16", memory: 64Gi}
workloads:
  inference:
  - name: web
    queue: online
    priority_class: online
    requests: {cpu: "6", memory: 8Gi}
    replicas: {curve: table, points: [[0, 4]]}
  training:
  - name: batch
    queue: batch
    priority_class: batch
    arrival: {process: fixed, interval: 5m}
    tasks:
    - {name: w, replicas: 1, requests: )" +
         be_requests + R"(}
    duration: 2h
    policies:
    - {event: PodEvicted, action: RestartJob}
colocation:
  agent: {mode: )" +
         mode + R"(, samplingPeriod: 30s, eviction: {cpuHighWatermark: 80, cpuLowWatermark: 60}}
  online:
  - workload: web
    cpu: )" +
         online_cpu + R"(
    memory: 0.5
  offline: {cpu: 1.0, memory: 0.5}
)";
}

constexpr const char* kBatchRequests =
    R"({kubernetes.io/batch-cpu: "4000", kubernetes.io/batch-memory: 2Gi})";

// Extend mode: online pods request 24 of 32 CPUs and use a fifth of it; the
// agents lend 24 - 4.8 - 2.4 = 16.8 CPUs as batch-cpu, which the BE jobs
// (4 CPUs each) take: four per node, never more than was lent.
TEST(SimColocationTest, ExtendModeLendsIdleCpuToBatchJobs) {
  Outputs out = Simulate(Parse(SmallScenario("extend", "0.2", kBatchRequests, "0")));
  const auto& c = out.summary_json["colocation"];
  ASSERT_TRUE(c.is_object()) << out.summary;
  EXPECT_EQ(c["mode"], "extend");
  EXPECT_EQ(c["nodes"], 2);
  EXPECT_EQ(out.summary_json["evictions"]["total"], 0) << out.summary;
  // Per node: 12000 - 2400 - 1200 = 8400m -> two 4-CPU BE pods per node.
  const auto metrics = nlohmann::json::parse(out.metrics);
  const auto& sample = metrics["samples"].back()["colocation"];
  EXPECT_EQ(sample["cpu_online_requested"], 24.0);
  EXPECT_EQ(sample["cpu_online_used"], 4.8);
  EXPECT_EQ(sample["cpu_oversold"], 16.8);
  EXPECT_EQ(sample["cpu_be_requested"], 16.0);
  EXPECT_EQ(sample["cpu_be_used"], 16.0);
  EXPECT_GT(c["cpu_core_hours"]["be_used"].get<double>(), 0);
  EXPECT_LE(c["cpu_core_hours"]["be_used"].get<double>(),
            c["cpu_core_hours"]["oversold"].get<double>());
  EXPECT_NE(out.csv.find(",colocation:cpu_oversold"), std::string::npos);
  EXPECT_NE(out.html.find("id=\"chart-colocation\""), std::string::npos);
}

// Native mode: the node's own allocatable CPU is raised by the oversold
// amount; BE pods (priority below 0) requesting plain CPU fit beyond it: per
// node 16 - 12 unrequested + 8.4 lent = 12.4 CPUs, three BE pods of 4.
TEST(SimColocationTest, NativeModeRaisesAllocatable) {
  std::string text = SmallScenario("native", "0.2", R"({cpu: "4", memory: 4Gi})", "-10");
  text.replace(text.find("offline: {cpu: 1.0"), 18, "offline: {cpu: 0.5");
  Outputs out = Simulate(Parse(text));
  const auto metrics = nlohmann::json::parse(out.metrics);
  const auto& sample = metrics["samples"].back()["colocation"];
  EXPECT_EQ(out.summary_json["colocation"]["mode"], "native");
  EXPECT_EQ(out.summary_json["evictions"]["total"], 0) << out.summary;
  EXPECT_EQ(sample["cpu_oversold"], 16.8) << sample.dump();
  EXPECT_EQ(sample["cpu_be_requested"], 24.0) << sample.dump();
  // 24 online + 24 BE CPUs requested on 32: only the raise makes room.
  EXPECT_GT(sample["cpu_online_requested"].get<double>() + sample["cpu_be_requested"].get<double>(),
            sample["cpu_capacity"].get<double>());
}

// Online use jumps from 20 % to 90 % of requests at 3h: the nodes cross the
// 80 % watermark and the agents evict BE pods, whose jobs restart.
TEST(SimColocationTest, PressureEvictsBatchPodsAndTheirJobsRestart) {
  Outputs out = Simulate(Parse(SmallScenario(
      "extend", "{curve: table, points: [[0, 0.2], [3h, 0.9]]}", kBatchRequests, "0")));
  const auto& sum = out.summary_json;
  EXPECT_GT(sum["evictions"]["agent"].get<int64_t>(), 0) << out.summary;
  EXPECT_EQ(sum["evictions"]["agent"], sum["colocation"]["be_evictions"]["total"]);
  EXPECT_GT(sum["job_restarts"].get<int64_t>(), 0) << out.summary;
  EXPECT_GE(sum["colocation"]["node_cpu_peak_percent"].get<int64_t>(), 80);
}

// A scenario without the section writes no colocation field anywhere.
TEST(SimColocationTest, NoSectionNoColocationOutput) {
  std::string text = SmallScenario("extend", "0.2", R"({cpu: "1"})", "0");
  text = text.substr(0, text.find("colocation:"));
  Outputs out = Simulate(Parse(text));
  EXPECT_EQ(out.summary.find("colocation"), std::string::npos);
  EXPECT_EQ(out.metrics.find("colocation"), std::string::npos);
  EXPECT_EQ(out.csv.find("colocation"), std::string::npos);
  EXPECT_EQ(out.html.find("colocation"), std::string::npos);
}

// The colocation week (examples/colocation-week.yaml, quoted in the README):
// the agents lend CPU every day, BE jobs use most of it, the morning rises
// cost some BE pods, and the same seed gives the same bytes.
TEST(SimColocationTest, WeekExampleNumbersAndBytes) {
  auto loaded = LoadScenario(std::string(BASALT_SOURCE_DIR) + "/examples/colocation-week.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Outputs a = Simulate(*loaded);
  const auto& sum = a.summary_json;
  const auto& c = sum["colocation"];
  ASSERT_TRUE(c.is_object()) << a.summary;
  EXPECT_EQ(c["nodes"], 100);
  EXPECT_EQ(sum["gang_violations"], 0);
  EXPECT_GT(sum["jobs_completed"].get<int64_t>(), 1000);
  const auto& hours = c["cpu_core_hours"];
  // 3,200 CPUs for 168 hours.
  EXPECT_EQ(hours["capacity"].get<double>(), 3200.0 * 168);
  EXPECT_NEAR(hours["online_requested"].get<double>(), 2400.0 * 168, 2400.0);
  // Online use is 15-70 % of requests; BE pods use a good part of what is lent.
  const double online_share = c["cpu_used_share"]["online"].get<double>();
  EXPECT_GT(online_share, 0.2);
  EXPECT_LT(online_share, 0.45);
  EXPECT_GT(c["cpu_used_share"]["online_and_be"].get<double>(), online_share + 0.15);
  EXPECT_GT(c["cpu_used_share"]["oversold_used_by_be"].get<double>(), 0.5);
  EXPECT_LE(hours["be_used"].get<double>(), hours["oversold"].get<double>());
  EXPECT_GT(c["be_evictions"]["total"].get<int64_t>(), 0);
  EXPECT_EQ(sum["evictions"]["agent"], c["be_evictions"]["total"]);
  EXPECT_LE(c["node_cpu_peak_percent"].get<int64_t>(), 100);
  const double peak = c["online_cpu_peak"]["cores"].get<double>();
  EXPECT_GT(peak, 2400 * 0.45);
  EXPECT_LT(peak, 2400 * 0.8);
  // Same input, same bytes: the first day of the week again, twice.
  Scenario day = *loaded;
  day.duration = 86400;
  Outputs b = Simulate(day), b2 = Simulate(day);
  EXPECT_EQ(b.summary, b2.summary);
  EXPECT_EQ(b.metrics, b2.metrics);
  EXPECT_EQ(b.csv, b2.csv);
  EXPECT_EQ(b.html, b2.html);
}

struct CliRun {
  int exit_code = -1;
  std::string err;
};

CliRun SimulateText(const std::string& test, const std::string& scenario) {
  const auto dir = std::filesystem::temp_directory_path() / ("basalt_colo_" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scenario.yaml", std::ios::binary) << scenario;
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " +
                          (dir / "scenario.yaml").string() + " --out " + (dir / "out").string() +
                          " 2>" + (dir / "err.txt").string();
  CliRun r;
  r.exit_code = WEXITSTATUS(std::system(cmd.c_str()));
  r.err = ReadAll(dir / "err.txt");
  return r;
}

// Bad input in the section exits 2 naming the file, the line and the field.
TEST(SimColocationTest, MalformedSectionExits2WithFileLineField) {
  const std::string base = SmallScenario("extend", "0.2", kBatchRequests, "0");
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  };
  struct Case {
    const char* name;
    std::string scenario;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"watermarks", replace("cpuLowWatermark: 60", "cpuLowWatermark: 90"),
       "scenario.yaml:45: colocation.agent.eviction.cpuLowWatermark: above cpuHighWatermark"},
      {"agent_field", replace("samplingPeriod: 30s", "samplingPeriod: 30s, windw: 5m"),
       "scenario.yaml:45: colocation.agent.windw: unknown field"},
      {"mode", replace("mode: extend", "mode: extended"),
       "scenario.yaml:45: colocation.agent.mode: want extend or native"},
      {"workload", replace("- workload: web", "- workload: webb"),
       "scenario.yaml:47: colocation.online[0].workload: unknown workload \"webb\""},
      {"share", replace("memory: 0.5\n  offline", "memory: lots\n  offline"),
       "scenario.yaml:49: colocation.online[0].memory: must be a number from 0 to 4"},
      {"curve", replace("cpu: 0.2", "cpu: {curve: cosine}"),
       "scenario.yaml:48: colocation.online[0].cpu.curve: unknown curve \"cosine\""},
      {"pool", replace("  online:\n", "  pools: [gpu]\n  online:\n"),
       "scenario.yaml:46: colocation.pools[0]: unknown pool \"gpu\""},
      {"section_field", replace("  online:\n", "  onlin: []\n  online:\n"),
       "scenario.yaml:46: colocation.onlin: unknown field"},
  };
  for (const Case& c : cases) {
    CliRun r = SimulateText(c.name, c.scenario);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": got " << r.err;
  }
}

// The report's colocation chart draws in headless Chromium (skipped without
// Chromium or without the charts library, as the tidal report's test is).
TEST(SimColocationTest, ReportChartRendersInHeadlessChromium) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) GTEST_SKIP() << "no chromium";
  const std::string scenario = SmallScenario("extend", "0.2", kBatchRequests, "0");
  ASSERT_EQ(SimulateText("report", scenario).exit_code, 0);
  const auto dir = std::filesystem::temp_directory_path() / "basalt_colo_report" / "out";
  if (ReadAll(dir / "report.html").find("charts library is missing") != std::string::npos) {
    GTEST_SKIP() << "this build has no charts library";
  }
  const std::string dump =
      "chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files "
      "--virtual-time-budget=10000 --window-size=1200,2400 --dump-dom file://" +
      (dir / "report.html").string() + " >" + (dir / "dom.html").string() + " 2>/dev/null";
  if (std::system(dump.c_str()) != 0) GTEST_SKIP() << "chromium failed to start";
  const std::string dom = ReadAll(dir / "dom.html");
  EXPECT_NE(dom.find("data-charts-rendered=\"5\""), std::string::npos) << dom.substr(0, 400);
  const size_t at = dom.find("id=\"chart-colocation\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(dom.substr(at, dom.find('>', at) - at).find("data-nonblank=\"true\""),
            std::string::npos);
}

}  // namespace
}  // namespace basalt
