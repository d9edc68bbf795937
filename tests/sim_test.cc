// Tests of `basalt simulate`: scenario parsing and its errors, the tide curve,
// event ordering, trace loaders, determinism, the tidal day's numbers and the
// report in a headless browser.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/traces.h"

namespace basalt {
namespace {

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kConf = R"(scheduler: |
  actions: "enqueue, allocate, backfill, reclaim"
  tiers:
  - plugins:
    - name: priority
    - name: gang
      enableReclaimable: false
  - plugins:
    - name: predicates
    - name: proportion
)";

struct RunOutput {
  std::string summary, metrics, csv;
  nlohmann::ordered_json summary_json;
};

RunOutput RunScenario(const Scenario& s, std::optional<uint64_t> seed, bool skip_idle = true) {
  SimulatorOptions o;
  o.seed = seed;
  o.skip_idle_cycles = skip_idle;
  auto sim = Simulator::Create(s, o);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  if (!sim.ok()) return {};
  Status st = (*sim)->Run();
  EXPECT_TRUE(st.ok()) << st.message();
  RunOutput out;
  out.summary_json = (*sim)->metrics().SummaryJson(s.name, (*sim)->seed(), s.duration);
  out.summary = out.summary_json.dump();
  out.metrics = (*sim)->metrics().MetricsJson().dump();
  out.csv = (*sim)->metrics().MetricsCsv();
  return out;
}

Scenario LoadExample(const std::string& name) {
  auto s = LoadScenario(std::string(BASALT_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : Scenario();
}

// Durations accept units and compounds; garbage is refused.
TEST(SimScenarioTest, ParsesDurations) {
  EXPECT_EQ(*ParseSimDuration("90"), 90);
  EXPECT_EQ(*ParseSimDuration("15m"), 900);
  EXPECT_EQ(*ParseSimDuration("1d12h"), 129600);
  EXPECT_EQ(*ParseSimDuration("1w"), 604800);
  EXPECT_FALSE(ParseSimDuration("1x").ok());
  EXPECT_FALSE(ParseSimDuration("").ok());
  EXPECT_FALSE(ParseSimDuration("h").ok());
  EXPECT_FALSE(ParseSimDuration("99999999999999d").ok());
}

// A malformed field names the file, the YAML line and the field path.
TEST(SimScenarioTest, ErrorsNameFileLineAndField) {
  const std::string text = std::string("duration: 1d\n") + kConf +
                           "nodes:\n- pool: a\n  count: 2\n  allocatable: {cpu: \"4\"}\n"
                           "workloads:\n  inference:\n  - name: web\n    requests: {cpu: \"1\"}\n"
                           "    replicas: {curve: sine, min: 5, max: oops}\n";
  auto s = ParseScenario(text, "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "bad.yaml:20: workloads.inference[0].replicas.max: must be an integer, got \"oops\"");
}

TEST(SimScenarioTest, UnknownFieldsAndMissingRequiredFieldsAreErrors) {
  auto unknown = ParseScenario(std::string(kConf) + "nodes:\n- pool: a\n  count: 1\n  alocatable: {cpu: \"1\"}\n", "s.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("s.yaml:14: nodes[0].alocatable: unknown field"), std::string::npos)
      << unknown.status().message();
  auto no_nodes = ParseScenario(kConf, "s.yaml");
  ASSERT_FALSE(no_nodes.ok());
  EXPECT_NE(no_nodes.status().message().find("nodes: required"), std::string::npos);
  auto yaml = ParseScenario("a: [1, 2\n", "y.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("y.yaml:"), std::string::npos);
}

// The sine tide peaks at `peak_at` and bottoms out half a period later; a
// table is piecewise constant and repeats every period.
TEST(SimTideTest, SineAndTable) {
  TideCurve sine;
  sine.kind = "sine";
  sine.min = 10;
  sine.max = 50;
  sine.period = 86400;
  sine.peak_at = 14 * 3600;
  EXPECT_EQ(sine.At(14 * 3600), 50);
  EXPECT_EQ(sine.At(2 * 3600), 10);
  EXPECT_EQ(sine.At(86400 + 14 * 3600), 50);
  EXPECT_EQ(sine.At(8 * 3600), 30);  // a quarter period before the peak: the midpoint
  TideCurve table;
  table.kind = "table";
  table.period = 86400;
  table.points = {{0, 4}, {8 * 3600, 20}, {20 * 3600, 6}};
  EXPECT_EQ(table.At(0), 4);
  EXPECT_EQ(table.At(8 * 3600 - 1), 4);
  EXPECT_EQ(table.At(8 * 3600), 20);
  EXPECT_EQ(table.At(86400 + 21 * 3600), 6);
}

// Events run in time order: a job arriving at 10 min (fixed arrivals) is bound
// at the next cycle, starts running there, and completes its fixed 1 h later;
// the node failure at 3 h evicts the second job's pod, which restarts.
TEST(SimEngineTest, EventOrderingArrivalStartCompletion) {
  const std::string text = std::string("duration: 4h\nperiod: 60s\nmetrics_interval: 60s\n") + kConf +
                           "queues:\n- {name: q}\n"
                           "nodes:\n- pool: n\n  count: 1\n  allocatable: {cpu: \"4\", memory: 8Gi}\n"
                           "workloads:\n  training:\n  - name: j\n    queue: q\n"
                           "    arrival: {process: fixed, interval: 10m, stop: 2h30m}\n"
                           "    tasks: [{replicas: 1, requests: {cpu: \"4\"}}]\n"
                           "    duration: 1h\n"
                           "    policies: [{event: PodEvicted, action: RestartJob}]\n"
                           "node_events:\n- {at: 3h, action: fail, nodes: [n-0000]}\n";
  auto s = ParseScenario(text, "order.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  RunOutput out = RunScenario(*s, std::nullopt);
  const auto& sum = out.summary_json;
  // One node, one job at a time: arrivals at 10m, 20m, ... 150m (15 jobs).
  // Job 1 runs 10m(+1 cycle) .. 1h11m; job 2 runs from ~1h11m to ~2h12m;
  // job 3 starts ~2h12m and is evicted by the node failure at 3h.
  EXPECT_EQ(sum["jobs_submitted"], 15);
  EXPECT_EQ(sum["jobs_completed"], 2);
  EXPECT_EQ(sum["evictions"]["node_failure"], 1);
  EXPECT_EQ(sum["gang_violations"], 0);
  // The first job waits from its arrival (600 s) to the cycle that runs it:
  // bound at 660 s, Running after that cycle's world step.
  EXPECT_EQ(sum["wait_seconds"]["q"]["count"], 3);
  EXPECT_GE(sum["wait_seconds"]["q"]["max"].get<int64_t>(), 3600);
}

// Same seed, same bytes; another seed, other arrivals.
TEST(SimEngineTest, DeterministicPerSeed) {
  Scenario s = LoadExample("tidal-day.yaml");
  s.duration = 8 * 3600;
  RunOutput a = RunScenario(s, std::nullopt);
  RunOutput b = RunScenario(s, std::nullopt);
  RunOutput c = RunScenario(s, uint64_t{7});
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.metrics, b.metrics);
  EXPECT_EQ(a.csv, b.csv);
  EXPECT_NE(a.metrics, c.metrics);
}

// Skipping a cycle in which nothing changed is exact: with and without the
// shortcut every output byte is the same but the cycle counters.
TEST(SimEngineTest, IdleCycleSkipChangesNoOutput) {
  Scenario s = LoadExample("tidal-day.yaml");
  RunOutput fast = RunScenario(s, std::nullopt, true);
  RunOutput slow = RunScenario(s, std::nullopt, false);
  EXPECT_EQ(fast.metrics, slow.metrics);
  EXPECT_EQ(fast.csv, slow.csv);
  auto strip = [](nlohmann::ordered_json j) {
    j.erase("cycles");
    return j.dump();
  };
  EXPECT_EQ(strip(fast.summary_json), strip(slow.summary_json));
  EXPECT_GT(fast.summary_json["cycles"]["skipped_idle"].get<int64_t>(), 100);
  EXPECT_EQ(slow.summary_json["cycles"]["skipped_idle"], 0);
  EXPECT_EQ(fast.summary_json["cycles"]["run"].get<int64_t>() + fast.summary_json["cycles"]["skipped_idle"].get<int64_t>(),
            slow.summary_json["cycles"]["run"].get<int64_t>());
}

// The tidal day: inference takes GPUs back from training at the peak and
// training refills them at the trough, with gangs kept whole.
TEST(SimTidalTest, InferenceReclaimsAtPeakTrainingRefillsAtTrough) {
  Scenario s = LoadExample("tidal-day.yaml");
  RunOutput out = RunScenario(s, std::nullopt);
  const auto& sum = out.summary_json;
  EXPECT_EQ(sum["gang_violations"], 0);
  EXPECT_GT(sum["evictions"]["reclaim"].get<int64_t>(), 0);
  EXPECT_GT(sum["jobs_completed"].get<int64_t>(), 0);
  ASSERT_EQ(sum["tides"].size(), 1u) << sum.dump(2);
  const auto& tide = sum["tides"][0];
  // 128 GPUs. Peak (08:00): inference wants 80 and gets them all.
  EXPECT_EQ(tide["inference_gpus_at_peak"].get<double>(), 80.0) << tide.dump();
  EXPECT_LE(tide["training_gpus_at_peak"].get<double>(), 48.0) << tide.dump();
  EXPECT_GT(tide["reclaim_evictions_rising"].get<int64_t>(), 0) << tide.dump();
  // Trough (20:00): inference is back to 16 and training has refilled.
  EXPECT_EQ(tide["inference_gpus_at_trough"].get<double>(), 16.0) << tide.dump();
  EXPECT_GT(tide["training_gpus_at_trough"].get<double>(), tide["training_gpus_at_peak"].get<double>() + 32)
      << tide.dump();
}

// openb rows map to pods; a malformed row names its row number and column.
TEST(SimTraceTest, OpenbPodsParseAndMalformedRows) {
  TraceWorkload w;
  w.kind = "openb-pods";
  w.queue_by_class = {{"LS", "online"}, {"*", "batch"}};
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
  auto ok = ParseOpenbPods(header + "p0,12000,16384,1,460,V100M16|V100M32,LS,Running,0,100,0\n"
                                    "p1,6000,1024,0,0,,BE,Failed,50,,\n",
                           "pods.csv", w, "nvidia.com/gpu.product");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].pod.spec.request.Get(ResourceNames::Intern("nvidia.com/gpu")), 460);
  EXPECT_EQ((*ok)[0].pod.meta.annotations.at("scheduling.volcano.sh/queue-name"), "online");
  EXPECT_EQ((*ok)[0].pod.spec.required_node_affinity.at(0).match_expressions.at(0).values.size(), 2u);
  EXPECT_EQ((*ok)[0].run_for, 100);
  EXPECT_EQ((*ok)[1].arrive, 50);
  EXPECT_EQ((*ok)[1].pod.meta.annotations.at("scheduling.volcano.sh/queue-name"), "batch");
  auto bad = ParseOpenbPods(header + "p0,12000,16384,1,460,,LS,Running,0,100,0\np1,6000,x,0,0,,BE,Failed,50,,\n",
                            "pods.csv", w, "nvidia.com/gpu.product");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "pods.csv:row 3: memory_mib: not an integer: \"x\"");
  auto short_row = ParseOpenbPods(header + "p0,1\n", "pods.csv", w, "g");
  ASSERT_FALSE(short_row.ok());
  EXPECT_EQ(short_row.status().message(), "pods.csv:row 2: expected 11 columns, got 2");
  auto nodes = ParseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,-1,1,0,\n", "nodes.csv",
                               0, "g");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("nodes.csv:row 3: cpu_milli: out of range"), std::string::npos);
}

TEST(SimTraceTest, DlrmRowsBecomeReplicaSetPods) {
  TraceWorkload w;
  w.kind = "dlrm-inference";
  w.queue_by_class = {{"HN", "gpu-serving"}, {"CN", "cpu-serving"}};
  const std::string header =
      "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,"
      "memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n";
  auto ok = ParseDlrmInference(header + "instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
                                        "instance_9,CN,app_0,64,64,0,0,0,0,320,320,1,1,-1,475,623,900\n",
                               "dlrm.csv", w, "g");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].arrive, 0);
  EXPECT_EQ((*ok)[0].delete_at, -1);
  EXPECT_EQ((*ok)[0].pod.meta.owner_references.at(0).name, "app_0");
  EXPECT_EQ((*ok)[1].delete_at, 900);
  auto bad = ParseDlrmInference(header + "instance_0,XX,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n",
                                "dlrm.csv", w, "g");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "dlrm.csv:row 2: role: must be CN or HN, got \"XX\"");
}

// Built without the charts library, the report still renders and says so.
TEST(SimReportTest, SaysWhenChartsLibraryIsMissing) {
  nlohmann::ordered_json summary = {{"scenario", "x"}, {"evictions", nlohmann::ordered_json::object()},
                                    {"utilization", {{"card_models", nlohmann::ordered_json::object()}}},
                                    {"queues", nlohmann::ordered_json::object()},
                                    {"wait_seconds", nlohmann::ordered_json::object()},
                                    {"tides", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json metrics = {{"queues", nlohmann::ordered_json::array()},
                                    {"samples", nlohmann::ordered_json::array()}};
  const std::string html = RenderReport(summary, metrics, "", "missing");
  EXPECT_NE(html.find("charts library is missing"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

// The CLI: a malformed scenario exits 2 with file:line: field.
TEST(SimCliTest, MalformedScenarioExits2) {
  const auto dir = std::filesystem::temp_directory_path() / "basalt_sim_cli_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << "duration: 1d\nperiod: soon\n";
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " + (dir / "bad.yaml").string() + " --out " +
                          (dir / "out").string() + " 2>" + (dir / "err.txt").string();
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(ReadAll(dir / "err.txt").find("bad.yaml:2: period:"), std::string::npos) << ReadAll(dir / "err.txt");
}

std::string FindChromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = std::string("command -v ") + c + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return c;
  }
  return "";
}

// The report opens in headless Chromium and every chart draws something.
TEST(SimReportTest, ChartsRenderInHeadlessChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (scripts/deps.sh installs it when it can)";
  const auto dir = std::filesystem::temp_directory_path() / "basalt_sim_report_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string run = std::string(BASALT_BINARY) + " simulate " + BASALT_SOURCE_DIR +
                          "/examples/tidal-day.yaml --out " + dir.string() + " 2>/dev/null";
  ASSERT_EQ(std::system(run.c_str()), 0);
  const std::string html = ReadAll(dir / "report.html");
  if (html.find("charts library is missing") != std::string::npos) {
    GTEST_SKIP() << "this build has no charts library (npm was unreachable at build time)";
  }
  const std::string flags = " --headless --no-sandbox --disable-gpu --allow-file-access-from-files "
                            "--virtual-time-budget=10000 --window-size=1200,2400 ";
  const std::string url = "file://" + (dir / "report.html").string();
  const std::string dump = chromium + flags + "--dump-dom " + url + " >" + (dir / "dom.html").string() + " 2>/dev/null";
  if (std::system(dump.c_str()) != 0) GTEST_SKIP() << "chromium failed to start in this environment";
  const std::string shot = chromium + flags + "--screenshot=" + (dir / "report.png").string() + " " + url +
                           " >/dev/null 2>&1";
  EXPECT_EQ(std::system(shot.c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(dir / "report.png"), 10000u);
  const std::string dom = ReadAll(dir / "dom.html");
  EXPECT_NE(dom.find("data-charts-rendered=\"4\""), std::string::npos) << dom.substr(0, 400);
  for (const char* id : {"chart-util", "chart-queues", "chart-pending", "chart-evictions"}) {
    const size_t at = dom.find(std::string("id=\"") + id + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    const size_t end = dom.find('>', at);
    EXPECT_NE(dom.substr(at, end - at).find("data-nonblank=\"true\""), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace basalt
