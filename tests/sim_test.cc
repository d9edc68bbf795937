// Tests of `basalt simulate`: scenario parsing and its errors, the tide curve,
// event ordering, trace loaders, determinism, the tidal day's and week's
// numbers and the report in a headless browser.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/traces.h"
#include "testing.h"

namespace basalt {
namespace {

using ::basalt::testing::ReadAll;

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
  auto unknown = ParseScenario(
      std::string(kConf) + "nodes:\n- pool: a\n  count: 1\n  alocatable: {cpu: \"1\"}\n", "s.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("s.yaml:14: nodes[0].alocatable: unknown field"),
            std::string::npos)
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
  const std::string text =
      std::string("duration: 4h\nperiod: 60s\nmetrics_interval: 60s\n") + kConf +
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
  EXPECT_EQ(fast.summary_json["cycles"]["run"].get<int64_t>() +
                fast.summary_json["cycles"]["skipped_idle"].get<int64_t>(),
            slow.summary_json["cycles"]["run"].get<int64_t>());
}

// A plugin that reads the session clock (sla) can answer differently for the
// same store a period later, so with it no session is skipped; the same
// configuration without it skips.
TEST(SimEngineTest, NoSkippedSessionWithAClockReadingPlugin) {
  Scenario s = LoadExample("tidal-day.yaml");
  s.duration = 6 * 3600;
  const std::string tiers_without_sla =
      "actions: \"enqueue, allocate, backfill, reclaim\"\ntiers:\n- plugins:\n  - name: priority\n "
      " - name: gang\n"
      "- plugins:\n  - name: predicates\n  - name: proportion\n";
  s.scheduler_conf = tiers_without_sla;
  RunOutput plain = RunScenario(s, std::nullopt);
  EXPECT_GT(plain.summary_json["cycles"]["skipped_idle"].get<int64_t>(), 0);
  s.scheduler_conf =
      "actions: \"enqueue, allocate, backfill, reclaim\"\ntiers:\n- plugins:\n  - name: priority\n"
      "  - name: gang\n  - name: sla\n    arguments:\n      sla-waiting-time: 1h\n"
      "- plugins:\n  - name: predicates\n  - name: proportion\n";
  RunOutput with_sla = RunScenario(s, std::nullopt);
  EXPECT_EQ(with_sla.summary_json["cycles"]["skipped_idle"], 0);
  EXPECT_EQ(with_sla.summary_json["cycles"]["run"], 6 * 3600 / s.period);
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
  EXPECT_GT(tide["training_gpus_at_trough"].get<double>(),
            tide["training_gpus_at_peak"].get<double>() + 32)
      << tide.dump();
}

// The tidal week (the demo): on every one of the seven days inference takes
// GPUs back from training while its tide rises, and training takes them again
// at the trough; no gang is ever broken and the fleet stays busy.
TEST(SimTidalTest, WeekReclaimsAtEveryPeakAndRefillsAtEveryTrough) {
  Scenario s = LoadExample("tidal-week.yaml");
  RunOutput out = RunScenario(s, std::nullopt);
  const auto& sum = out.summary_json;
  EXPECT_EQ(sum["gang_violations"], 0);
  EXPECT_GT(sum["utilization"]["nvidia.com/gpu"]["mean"].get<double>(), 0.8)
      << sum["utilization"].dump();
  ASSERT_EQ(sum["tides"].size(), 7u) << sum.dump(2);
  constexpr int64_t kDay = 24 * 3600;
  int64_t reclaims_in_tides = 0;
  for (int64_t day = 0; day < 7; ++day) {
    const auto& tide = sum["tides"][static_cast<size_t>(day)];
    const std::string where = "day " + std::to_string(day) + ": " + tide.dump();
    EXPECT_EQ(tide["peak_t"].get<int64_t>(), day * kDay + kDay / 2) << where;
    EXPECT_EQ(tide["trough_t"].get<int64_t>(), (day + 1) * kDay) << where;
    // 512 GPUs. Peak (12:00): inference wants 320 and gets them all, reclaiming
    // from training on the way up; training keeps at most what is left.
    EXPECT_EQ(tide["inference_gpus_at_peak"].get<double>(), 320.0) << where;
    EXPECT_GT(tide["reclaim_evictions_rising"].get<int64_t>(), 0) << where;
    const double training_at_peak = tide["training_gpus_at_peak"].get<double>();
    EXPECT_LE(training_at_peak, 512.0 - 320.0) << where;
    // Trough (00:00): inference is down to 64 and training has taken back at
    // least a quarter of the 256 GPUs inference let go.
    EXPECT_EQ(tide["inference_gpus_at_trough"].get<double>(), 64.0) << where;
    EXPECT_GE(tide["training_gpus_at_trough"].get<double>(), training_at_peak + 64) << where;
    reclaims_in_tides += tide["reclaim_evictions_rising"].get<int64_t>();
  }
  EXPECT_LE(reclaims_in_tides, sum["evictions"]["reclaim"].get<int64_t>());
}

// openb rows map to pods; a malformed row names its row number and column.
TEST(SimTraceTest, OpenbPodsParseAndMalformedRows) {
  TraceWorkload w;
  w.kind = "openb-pods";
  w.queue_by_class = {{"LS", "online"}, {"*", "batch"}};
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_"
      "time,scheduled_time\n";
  auto ok = ParseOpenbPods(header +
                               "p0,12000,16384,1,460,V100M16|V100M32,LS,Running,0,100,0\n"
                               "p1,6000,1024,0,0,,BE,Failed,50,,\n",
                           "pods.csv", w, "nvidia.com/gpu.product");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].pod.spec.request.Get(ResourceNames::Intern("nvidia.com/gpu")), 460);
  EXPECT_EQ((*ok)[0].pod.meta.annotations.at("scheduling.volcano.sh/queue-name"), "online");
  EXPECT_EQ((*ok)[0].pod.spec.required_node_affinity.at(0).match_expressions.at(0).values.size(),
            2u);
  EXPECT_EQ((*ok)[0].run_for, 100);
  EXPECT_EQ((*ok)[1].arrive, 50);
  EXPECT_EQ((*ok)[1].pod.meta.annotations.at("scheduling.volcano.sh/queue-name"), "batch");
  auto bad = ParseOpenbPods(
      header + "p0,12000,16384,1,460,,LS,Running,0,100,0\np1,6000,x,0,0,,BE,Failed,50,,\n",
      "pods.csv", w, "nvidia.com/gpu.product");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "pods.csv:row 3: memory_mib: \"x\" is not an integer");
  auto short_row = ParseOpenbPods(header + "p0,1\n", "pods.csv", w, "g");
  ASSERT_FALSE(short_row.ok());
  EXPECT_EQ(short_row.status().message(), "pods.csv:row 2: expected 11 columns, got 2");
  auto nodes =
      ParseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,-1,1,0,\n",
                      "nodes.csv", 0, "g");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("nodes.csv:row 3: cpu_milli: -1 is outside [0, "),
            std::string::npos);
}

TEST(SimTraceTest, DlrmRowsBecomeReplicaSetPods) {
  TraceWorkload w;
  w.kind = "dlrm-inference";
  w.queue_by_class = {{"HN", "gpu-serving"}, {"CN", "cpu-serving"}};
  const std::string header =
      "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_"
      "limit,memory_request,"
      "memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,"
      "deletion_time\n";
  auto ok =
      ParseDlrmInference(header +
                             "instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
                             "instance_9,CN,app_0,64,64,0,0,0,0,320,320,1,1,-1,475,623,900\n",
                         "dlrm.csv", w, "g");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].arrive, 0);
  EXPECT_EQ((*ok)[0].delete_at, -1);
  EXPECT_EQ((*ok)[0].pod.meta.owner_references.at(0).name, "app_0-hn");
  EXPECT_EQ((*ok)[1].delete_at, 900);
  auto bad = ParseDlrmInference(
      header + "instance_0,XX,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n", "dlrm.csv", w,
      "g");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "dlrm.csv:row 2: role: must be CN or HN, got \"XX\"");
}

// Built without the charts library, the report still renders and says so.
TEST(SimReportTest, SaysWhenChartsLibraryIsMissing) {
  nlohmann::ordered_json summary = {
      {"scenario", "x"},
      {"evictions", nlohmann::ordered_json::object()},
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
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " + (dir / "bad.yaml").string() +
                          " --out " + (dir / "out").string() + " 2>" + (dir / "err.txt").string();
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(ReadAll(dir / "err.txt").find("bad.yaml:2: period:"), std::string::npos)
      << ReadAll(dir / "err.txt");
}

// ---- trace replays and malformed input, end to end through `basalt simulate` ----

const std::string kTraces = std::string(BASALT_SOURCE_DIR) + "/../shared/traces";
const std::string kDlrm = kTraces + "/alibaba-dlrm-inference-v2025/disaggregated_DLRM_trace.csv";
const std::string kOpenbNodes =
    kTraces + "/alibaba-openb-gpu-v2023/csv/openb_node_list_gpu_node.csv";
const std::string kOpenbPods = kTraces + "/alibaba-openb-gpu-v2023/csv/openb_pod_list_default.csv";

struct CliRun {
  int exit_code = -1;
  std::string err;
  nlohmann::json summary;
};

// Writes `files` (name -> text) into a fresh folder and runs `basalt simulate`
// on `scenario.yaml` there.
CliRun SimulateFiles(const std::string& test, const std::map<std::string, std::string>& files) {
  const auto dir = std::filesystem::temp_directory_path() / ("basalt_sim_" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : files) std::ofstream(dir / name, std::ios::binary) << text;
  const std::string cmd = std::string(BASALT_BINARY) + " simulate " +
                          (dir / "scenario.yaml").string() + " --out " + (dir / "out").string() +
                          " 2>" + (dir / "err.txt").string();
  CliRun r;
  r.exit_code = WEXITSTATUS(std::system(cmd.c_str()));
  r.err = ReadAll(dir / "err.txt");
  if (r.exit_code == 0) r.summary = nlohmann::json::parse(ReadAll(dir / "out" / "summary.json"));
  return r;
}

// The lines of `path` whose 0-based index satisfies `keep` (the header always).
std::string Slice(const std::string& path,
                  const std::function<bool(size_t, const std::string&)>& keep) {
  std::ifstream in(path);
  std::string line, out;
  for (size_t i = 0; std::getline(in, line); ++i) {
    if (i == 0 || keep(i, line)) out += line + "\n";
  }
  return out;
}

// An example scenario with text replaced (trace paths pointed at slices beside
// it, smaller pools, a shorter duration).
std::string ExampleWithSlices(const std::string& example,
                              const std::map<std::string, std::string>& replace) {
  std::string text = ReadAll(std::string(BASALT_SOURCE_DIR) + "/examples/" + example);
  for (const auto& [from, to] : replace) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

// A slice of the DLRM trace replayed by examples/trace-dlrm.yaml: instances
// alive from the start and instances created and deleted within the day land
// in the queues their roles map to, on the pools their roles select.
TEST(SimTraceReplayTest, DlrmSliceThroughExampleScenario) {
  if (!std::filesystem::exists(kDlrm)) GTEST_SKIP() << "no " << kDlrm;
  // 30 instances alive at the start (rows 1..30) and the rows 7281..7340
  // (created in the first hours, some deleted again).
  const std::string slice =
      Slice(kDlrm, [](size_t i, const std::string&) { return i <= 30 || (i > 7280 && i <= 7340); });
  const std::string scenario = ExampleWithSlices(
      "trace-dlrm.yaml",
      {{"path: ../../shared/traces/alibaba-dlrm-inference-v2025/disaggregated_DLRM_trace.csv",
        "path: dlrm-slice.csv"},
       {"duration: 1d", "duration: 12h"},
       {"count: 440", "count: 6"},
       {"count: 1600", "count: 40"}});
  CliRun r = SimulateFiles("dlrm_slice", {{"scenario.yaml", scenario}, {"dlrm-slice.csv", slice}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto& s = r.summary;
  EXPECT_EQ(s["pods_created"]["trace"], 90) << s.dump();
  EXPECT_GT(s["wait_seconds"]["serving-gpu"]["count"].get<int>(), 0) << s.dump();
  EXPECT_GT(s["wait_seconds"]["serving-cpu"]["count"].get<int>(), 0) << s.dump();
  EXPECT_GT(s["queues"]["serving-gpu"]["gpus_mean"].get<double>(), 0) << s.dump();
  EXPECT_EQ(s["gang_violations"], 0);
}

// A slice of the openb trace replayed by examples/trace-openb.yaml: the node
// list's card models become utilisation keys, qos classes map to queues.
TEST(SimTraceReplayTest, OpenbSliceThroughExampleScenario) {
  if (!std::filesystem::exists(kOpenbPods)) GTEST_SKIP() << "no " << kOpenbPods;
  const std::string nodes =
      Slice(kOpenbNodes, [](size_t i, const std::string&) { return i <= 120; });
  // Pods created in the first three days after the offset (9,800,000 s): ~150.
  const std::string pods = Slice(kOpenbPods, [](size_t, const std::string& line) {
    auto cells = SplitCsvLine(line);
    if (!cells.ok() || cells->size() < 10) return false;
    const long long created = std::atoll((*cells)[8].c_str());
    return created >= 9800000 && created < 9800000 + 3 * 86400;
  });
  const std::string scenario = ExampleWithSlices(
      "trace-openb.yaml",
      {{"openb_trace: ../../shared/traces/alibaba-openb-gpu-v2023/csv/openb_node_list_gpu_node.csv",
        "openb_trace: nodes.csv"},
       {"path: ../../shared/traces/alibaba-openb-gpu-v2023/csv/openb_pod_list_default.csv",
        "path: pods.csv"},
       {"duration: 7d", "duration: 3d"}});
  CliRun r = SimulateFiles("openb_slice",
                           {{"scenario.yaml", scenario}, {"nodes.csv", nodes}, {"pods.csv", pods}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto& s = r.summary;
  EXPECT_GT(s["pods_created"]["trace"].get<int>(), 100) << s.dump();
  EXPECT_GT(s["wait_seconds"]["latency-sensitive"]["count"].get<int>() +
                s["wait_seconds"]["best-effort"]["count"].get<int>(),
            100)
      << s.dump();
  EXPECT_TRUE(s["utilization"]["card_models"].contains("G2")) << s.dump();
}

// Decimal seconds (the DLRM trace writes "85.0") are times; junk is not.
TEST(SimTraceTest, DlrmDecimalTimes) {
  TraceWorkload w;
  w.kind = "dlrm-inference";
  w.queue_by_class = {{"*", "q"}};
  w.node_selector_by_class = {{"CN", {{"pool", "cpu"}}}};
  const std::string header =
      "instance_sn,role,app_name,cpu_request,gpu_request,memory_request,creation_time,deletion_"
      "time\n";
  auto ok = ParseDlrmInference(header + "i0,CN,app_1,64,0,320,85.0,5227.6\n", "d.csv", w, "g");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].arrive, 85);
  EXPECT_EQ((*ok)[0].delete_at, 5228);
  EXPECT_EQ((*ok)[0].pod.spec.node_selector.at("pool"), "cpu");
  EXPECT_EQ((*ok)[0].pod.meta.owner_references.at(0).name, "app_1-cn");
  auto bad = ParseDlrmInference(header + "i0,CN,app_1,64,0,320,85.0.1,\n", "d.csv", w, "g");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "d.csv:row 2: creation_time: not a time in seconds: \"85.0.1\"");
}

// Malformed scenarios and traces: exit 2 and a message naming the file, the
// line (scenario) or row (trace) and the field.
TEST(SimCliTest, MalformedScenariosAndTracesExit2WithFileLineField) {
  const std::string head = std::string("duration: 2h\n") + kConf +
                           "queues:\n- {name: q}\n"
                           "nodes:\n- pool: n\n  count: 2\n  allocatable: {cpu: \"8\", memory: "
                           "8Gi, nvidia.com/gpu: \"8\"}\n";
  const std::string openb_header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_"
      "time,scheduled_time\n";
  const std::string trace_wl =
      "workloads:\n  traces:\n  - kind: openb-pods\n    path: pods.csv\n    queues: {\"*\": q}\n";
  struct Case {
    const char* name;
    std::string scenario;
    std::string trace;  // pods.csv, when not empty
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"bad_duration", "duration: 2 days\n" + std::string(kConf) + "nodes: []\n", "",
       "scenario.yaml:1: duration: invalid duration"},
      {"unknown_queue",
       head +
           "workloads:\n  training:\n  - name: j\n    queue: nope\n    arrival: {interval: 10m}\n"
           "    tasks: [{replicas: 1, requests: {cpu: \"1\"}}]\n    duration: 1h\n",
       "", "scenario.yaml:20: workloads.training[0].queue: unknown queue \"nope\""},
      {"unknown_node", head + "node_events:\n- {at: 1h, action: fail, nodes: [n-0007]}\n", "",
       "scenario.yaml:19: node_events.nodes: unknown node \"n-0007\""},
      {"bad_selector", head + trace_wl + "    node_selectors: {CN: cpu}\n", openb_header,
       "scenario.yaml:23: workloads.traces[0].node_selectors.CN: must be a mapping"},
      {"missing_trace", head + trace_wl, "", "pods.csv: cannot read trace file"},
      {"bad_trace_cell", head + trace_wl,
       openb_header +
           "p0,1000,1024,1,1000,,LS,Running,0,10,0\np1,1000,lots,0,0,,BE,Running,5,9,5\n",
       "pods.csv:row 3: memory_mib: \"lots\" is not an integer"},
      {"bad_trace_columns", head + trace_wl, "name,cpu_milli\np0,1\n",
       "pods.csv:row 1: missing column \"memory_mib\""},
      {"bad_trace_time", head + trace_wl,
       openb_header + "p0,1000,1024,1,1000,,LS,Running,soon,10,0\n",
       "pods.csv:row 2: creation_time: not a time in seconds: \"soon\""},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> files = {{"scenario.yaml", c.scenario}};
    if (!c.trace.empty()) files["pods.csv"] = c.trace;
    CliRun r = SimulateFiles(std::string("bad_") + c.name, files);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": got " << r.err;
  }
}

std::string FindChromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = std::string("command -v ") + c + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return c;
  }
  return "";
}

// The value of `attr` on the element with id `id` in a dumped DOM ("" when
// absent).
std::string Attribute(const std::string& dom, const std::string& id, const std::string& attr) {
  const size_t at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t start = dom.rfind('<', at);
  const size_t end = dom.find('>', at);
  const std::string tag = dom.substr(start, end - start);
  const std::string key = " " + attr + "=\"";
  const size_t v = tag.find(key);
  if (v == std::string::npos) return "";
  const size_t from = v + key.size();
  return tag.substr(from, tag.find('"', from) - from);
}

// The week's report opens in headless Chromium: every chart draws something,
// has a y-axis title and x ticks at the day boundaries the library really
// drew; the GPU utilisation is one series (the only card model is folded into
// the generic one) and the stacked GPU chart has the capacity line.
TEST(SimReportTest, ChartsRenderInHeadlessChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium not installed (scripts/deps.sh installs it when it can)";
  const auto dir = std::filesystem::temp_directory_path() / "basalt_sim_report_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string run = std::string(BASALT_BINARY) + " simulate " + BASALT_SOURCE_DIR +
                          "/examples/tidal-week.yaml --out " + dir.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(run.c_str()), 0);
  const std::string html = ReadAll(dir / "report.html");
  if (html.find("charts library is missing") != std::string::npos) {
    GTEST_SKIP() << "this build has no charts library (npm was unreachable at build time)";
  }
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --allow-file-access-from-files "
      "--virtual-time-budget=10000 --window-size=1200,2400 ";
  const std::string url = "file://" + (dir / "report.html").string();
  const std::string dump =
      chromium + flags + "--dump-dom " + url + " >" + (dir / "dom.html").string() + " 2>/dev/null";
  if (std::system(dump.c_str()) != 0)
    GTEST_SKIP() << "chromium failed to start in this environment";
  const std::string shot = chromium + flags + "--screenshot=" + (dir / "report.png").string() +
                           " " + url + " >/dev/null 2>&1";
  EXPECT_EQ(std::system(shot.c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(dir / "report.png"), 10000u);
  const std::string dom = ReadAll(dir / "dom.html");
  EXPECT_NE(dom.find("data-charts-rendered=\"4\""), std::string::npos) << dom.substr(0, 400);
  for (const char* id : {"chart-util", "chart-queues", "chart-pending", "chart-evictions"}) {
    const size_t at = dom.find(std::string("id=\"") + id + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    const size_t end = dom.find('>', at);
    EXPECT_NE(dom.substr(at, end - at).find("data-nonblank=\"true\""), std::string::npos) << id;
    EXPECT_NE(Attribute(dom, id, "data-y-title"), "") << id;
    EXPECT_EQ(Attribute(dom, id, "data-x-ticks"),
              "d1 00:00|d2 00:00|d3 00:00|d4 00:00|d5 00:00|d6 00:00|d7 00:00|d8 00:00")
        << id;
  }
  EXPECT_EQ(Attribute(dom, "chart-util", "data-y-title"), "% allocated");
  EXPECT_EQ(Attribute(dom, "chart-queues", "data-y-title"), "GPUs");
  EXPECT_EQ(Attribute(dom, "chart-util", "data-series"), "CPU|memory|GPU (all NVIDIA-H800)");
  const std::string queues = Attribute(dom, "chart-queues", "data-series");
  EXPECT_TRUE(queues.ends_with("|GPU capacity")) << queues;
}

}  // namespace
}  // namespace basalt
