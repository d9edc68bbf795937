// Volcano's metric families from `basalt serve` (live/volcano_metrics.h,
// docs/metrics.md): after a few cycles on the loopback API server, /metrics
// holds each family Volcano v1.15.1 declares with Volcano's type, label names
// and histogram bounds, fed with basalt's measurements; and every `volcano_*`
// series a Grafana dashboard of Volcano's release queries is there.
//
// The dashboards come from Volcano's source: BASALT_VOLCANO_SOURCE when set,
// else scripts/volcano-source. Without it the dashboard test fails.
#include "live/volcano_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "kube/metrics.h"
#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

namespace fs = std::filesystem;
using kube::Json;

// A bucket layout as Volcano's Go code names it.
struct Layout {
  bool range = true;  // ExponentialBucketsRange(a, b, n), else ExponentialBuckets(a, b, n)
  double a = 0, b = 0;
  int n = 0;
};

std::vector<double> LayoutBounds(const Layout& l) {
  std::vector<double> out;
  if (l.range) {
    const double growth = std::pow(l.b / l.a, 1.0 / (l.n - 1));
    for (int i = 0; i < l.n; ++i) out.push_back(l.a * std::pow(growth, i));
  } else {
    double v = l.a;
    for (int i = 0; i < l.n; ++i, v *= l.b) out.push_back(v);
  }
  return out;
}

struct Family {
  std::string name;
  std::string type;
  std::vector<std::string> labels;  // in any order; "le" not listed
  std::optional<Layout> buckets = std::nullopt;
};

// What Volcano v1.15.1 declares (pkg/scheduler/metrics, pkg/controllers/metrics,
// pkg/agentscheduler/metrics), for the families basalt exports.
const std::vector<Family>& VolcanoFamilies() {
  static const std::vector<Family> kFamilies = [] {
    std::vector<Family> f = {
        {"volcano_e2e_scheduling_latency_milliseconds", "histogram", {}, Layout{true, 1, 5000, 20}},
        {"volcano_open_session_duration_milliseconds", "histogram", {}, Layout{true, 1, 5000, 20}},
        {"volcano_update_snapshot_duration_milliseconds", "histogram", {}, Layout{false, 5, 2, 15}},
        {"volcano_e2e_job_scheduling_latency_milliseconds",
         "histogram",
         {},
         Layout{true, 100, 120000, 30}},
        {"volcano_e2e_job_scheduling_duration", "gauge", {"job_name", "queue", "job_namespace"}},
        {"volcano_e2e_job_scheduling_start_time", "gauge", {"job_name", "queue", "job_namespace"}},
        {"volcano_e2e_job_scheduling_last_time", "gauge", {"job_name", "queue", "job_namespace"}},
        {"volcano_plugin_scheduling_latency_milliseconds",
         "histogram",
         {"plugin", "OnSession"},
         Layout{true, 0.1, 100, 15}},
        {"volcano_action_scheduling_latency_milliseconds",
         "histogram",
         {"action"},
         Layout{true, 1, 2000, 20}},
        {"volcano_task_scheduling_latency_milliseconds",
         "histogram",
         {"stage"},
         Layout{true, 50, 60000, 30}},
        {"volcano_scheduling_stage_duration_milliseconds",
         "histogram",
         {"stage"},
         Layout{true, 0.1, 500, 20}},
        {"volcano_schedule_attempts_total", "counter", {"result"}},
        {"volcano_pod_preemption_victims", "gauge", {}},
        {"volcano_total_preemption_attempts", "counter", {}},
        {"volcano_unschedule_task_count", "gauge", {"job_id"}},
        {"volcano_unschedule_job_count", "gauge", {}},
        {"volcano_job_retry_counts", "counter", {"job_id"}},
        {"volcano_job_share", "gauge", {"job_ns", "job_id"}},
        {"volcano_queue_share", "gauge", {"queue_name"}},
        {"volcano_queue_weight", "gauge", {"queue_name"}},
        {"volcano_queue_overused", "gauge", {"queue_name"}},
        {"volcano_controller_job_to_pod_creation_latency_milliseconds",
         "histogram",
         {},
         Layout{true, 50, 60000, 30}},
    };
    for (const char* q : {"allocated", "request", "deserved", "capacity", "real_capacity"}) {
      const std::string base = std::string("volcano_queue_") + q;
      f.push_back({base + "_milli_cpu", "gauge", {"queue_name"}});
      f.push_back({base + "_memory_bytes", "gauge", {"queue_name"}});
      f.push_back({base + "_scalar_resources", "gauge", {"queue_name", "resource"}});
    }
    for (const char* phase : {"inqueue", "pending", "running", "unknown", "completed"})
      f.push_back(
          {std::string("volcano_queue_pod_group_") + phase + "_count", "gauge", {"queue_name"}});
    return f;
  }();
  return kFamilies;
}

// The series Volcano exports and basalt does not, with the reason in
// docs/metrics.md.
const std::set<std::string> kNotExported = {"volcano_worker_scheduling_cycle_duration_milliseconds",
                                            "volcano_namespace_share", "volcano_namespace_weight",
                                            "volcano_namespace_weighted_share"};

const char* kProportionConf = R"(actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
)";

const char* kCapacityConf = R"(actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: capacity
  - name: nodeorder
)";

Json GpuPod(const std::string& ns, const std::string& name, const std::string& group) {
  Json pod = FixturePod(ns, name, group, "1");
  Json& res = pod["spec"]["containers"][0]["resources"];
  res["requests"]["nvidia.com/gpu"] = "1";
  res["limits"]["nvidia.com/gpu"] = "1";
  return pod;
}

Json VcJobObject() {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}};
  Json task = {
      {"name", "worker"}, {"replicas", 1}, {"template", {{"spec", {{"containers", {container}}}}}}};
  return {
      {"apiVersion", "batch.volcano.sh/v1alpha1"},
      {"kind", "Job"},
      {"metadata", {{"name", "vj"}, {"namespace", "fx"}}},
      {"spec",
       {{"schedulerName", "volcano"}, {"queue", "q1"}, {"minAvailable", 1}, {"tasks", {task}}}}};
}

// A queue with deserved and capability (cpu, memory, GPUs); a gang of two, a
// GPU pod and a Volcano Job in it; a gang that cannot be ready (one pod of
// three) in the default queue.
void Seed(FakeApiServer& fake) {
  for (const Json& n : FixtureNodes()) fake.Put(n);
  fake.Put(QueueObject("default", 1));
  Json q1 = QueueObject("q1", 2);
  q1["spec"]["deserved"] = {{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}};
  q1["spec"]["capability"] = {{"cpu", "16"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}};
  fake.Put(q1);
  fake.Put(PodGroupObject("fx", "pg-a", 2, "q1"));
  fake.Put(FixturePod("fx", "pod-a", "pg-a", "500m"));
  fake.Put(FixturePod("fx", "pod-b", "pg-a", "500m"));
  fake.Put(PodGroupObject("fx", "pg-gpu", 1, "q1"));
  fake.Put(GpuPod("fx", "gpu-0", "pg-gpu"));
  fake.Put(PodGroupObject("fx", "pg-wait", 3, "default"));
  fake.Put(FixturePod("fx", "wait-0", "pg-wait", "500m"));
  fake.Put(VcJobObject());
}

// Runs serve with `conf` on the seeded fake until the seeded pods and the
// Job's pod are bound, then scrapes /metrics.
std::string ScrapeAfterCycles(const std::string& conf, std::map<std::string, PromFamily>* out) {
  FakeApiServer fake;
  EXPECT_TRUE(fake.Start());
  Seed(fake);
  ManualKubeClock clock;
  ServeAppOptions o = LoopbackServeOptions(fake, &clock);
  o.conf_text = conf;
  ServeApp app(std::move(o));
  Status started = app.Start();
  EXPECT_TRUE(started.ok()) << started.message();
  EXPECT_TRUE(Eventually([&] { return app.Synced(); })) << "informers never synced";
  auto done = [&] {
    auto job_pod = fake.Get("Pod", "fx", "vj-worker-0");
    return fake.BindCount("fx/pod-a") == 1 && fake.BindCount("fx/gpu-0") == 1 && job_pod &&
           (*job_pod)["spec"].contains("nodeName");
  };
  for (int i = 0; i < 30 && !done(); ++i) {
    clock.Advance(std::chrono::seconds(1));
    app.Tick();
    app.AwaitBinds(std::chrono::milliseconds(5000));
    // Until the informers show what the cycle wrote (or a moment passed).
    Eventually(done, std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(done()) << "the seeded pods were not all bound";
  // One more cycle, now that the informers show the binds.
  clock.Advance(std::chrono::seconds(1));
  app.Tick();
  app.AwaitBinds(std::chrono::milliseconds(5000));
  auto reply = HttpGet(app.endpoint_port(), "/metrics");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(ParsePrometheusText(reply.body, out), "") << reply.body;
  StopApp(app, fake);
  fake.Stop();
  return reply.body;
}

// Every sample's label names (le aside) are `want`; histograms' bounds are the layout's.
void ExpectShape(const Family& want, const PromFamily& got) {
  SCOPED_TRACE(want.name);
  EXPECT_EQ(got.type, want.type);
  const std::set<std::string> labels(want.labels.begin(), want.labels.end());
  std::map<std::string, std::vector<std::string>> le_by_series;
  for (const PromSample& s : got.samples) {
    std::set<std::string> names;
    std::string series;
    for (const auto& [k, v] : s.labels) {
      if (k == "le") continue;
      names.insert(k);
      series += k + "=" + v + ",";
    }
    EXPECT_EQ(names, labels) << s.name;
    if (s.name == want.name + "_bucket") le_by_series[series].push_back(s.labels.at("le"));
  }
  if (!want.buckets) return;
  const std::vector<double> bounds = LayoutBounds(*want.buckets);
  ASSERT_FALSE(le_by_series.empty()) << "no buckets";
  for (const auto& [series, les] : le_by_series) {
    ASSERT_EQ(les.size(), bounds.size() + 1) << series;
    EXPECT_EQ(les.back(), "+Inf");
    for (size_t i = 0; i < bounds.size(); ++i) {
      const double le = std::stod(les[i]);
      // Go's pow and C's differ in the last bits; the bounds are Go's.
      EXPECT_NEAR(le, bounds[i], std::fabs(bounds[i]) * 1e-13) << series << " bucket " << i;
    }
  }
}

const PromSample* Find(const PromFamily& f, const std::string& name,
                       const std::map<std::string, std::string>& labels) {
  for (const PromSample& s : f.samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) {
      auto it = s.labels.find(k);
      match = match && it != s.labels.end() && it->second == v;
    }
    if (match) return &s;
  }
  return nullptr;
}

// The sample's value, or NaN when there is none (every comparison then fails).
double ValueOf(std::map<std::string, PromFamily>& fams, const std::string& family,
               const std::string& name, const std::map<std::string, std::string>& labels) {
  const PromSample* s = Find(fams[family], name, labels);
  return s ? s->value : std::nan("");
}

TEST(VolcanoMetricsTest, BucketBoundsAreGoClientsAndRenderAsGoDoes) {
  // Bounds as Go prints them: the registry's `le` labels must read the same.
  EXPECT_EQ(kube::FormatBucketBound(VolcanoBuckets("range(1,5000,20)").back()),
            "4999.999999999997");
  EXPECT_EQ(kube::FormatBucketBound(VolcanoBuckets("range(1,5000,20)")[1]), "1.5656065579430964");
  EXPECT_EQ(kube::FormatBucketBound(VolcanoBuckets("range(100,120000,30)").back()),
            "119999.99999999991");
  EXPECT_EQ(kube::FormatBucketBound(VolcanoBuckets("range(0.1,100,15)").back()),
            "100.00000000000006");
  EXPECT_EQ(kube::FormatBucketBound(VolcanoBuckets("exponential(5,2,15)").back()), "81920");
  for (const auto& [v, text] :
       std::vector<std::pair<double, std::string>>{{0.1, "0.1"},
                                                   {0.0001, "0.0001"},
                                                   {0.00001, "1e-05"},
                                                   {120000, "120000"},
                                                   {1e6, "1e+06"},
                                                   {1234567, "1.234567e+06"},
                                                   {-0.5, "-0.5"},
                                                   {2.5, "2.5"},
                                                   {1, "1"}}) {
    EXPECT_EQ(kube::FormatBucketBound(v), text);
  }
  // Every layout agrees with its formula.
  const std::vector<std::pair<std::string, Layout>> layouts = {
      {"range(1,5000,20)", {true, 1, 5000, 20}},
      {"range(100,120000,30)", {true, 100, 120000, 30}},
      {"range(0.1,100,15)", {true, 0.1, 100, 15}},
      {"range(1,2000,20)", {true, 1, 2000, 20}},
      {"range(50,60000,30)", {true, 50, 60000, 30}},
      {"range(0.1,500,20)", {true, 0.1, 500, 20}},
      {"exponential(5,2,15)", {false, 5, 2, 15}}};
  for (const auto& [name, layout] : layouts) {
    const std::vector<double> got = VolcanoBuckets(name), want = LayoutBounds(layout);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], std::fabs(want[i]) * 1e-13) << name << " " << i;
  }
}

// With proportion: every family but the capacity plugin's own is there with
// samples, Volcano's type, labels and bounds, and values basalt measured.
TEST(VolcanoMetricsTest, ServeExportsVolcanosFamiliesWithProportion) {
  std::map<std::string, PromFamily> fams;
  const std::string text = ScrapeAfterCycles(kProportionConf, &fams);
  const std::set<std::string> capacity_only = {
      "volcano_queue_capacity_milli_cpu",         "volcano_queue_capacity_memory_bytes",
      "volcano_queue_capacity_scalar_resources",  "volcano_queue_real_capacity_milli_cpu",
      "volcano_queue_real_capacity_memory_bytes", "volcano_queue_real_capacity_scalar_resources"};
  for (const Family& want : VolcanoFamilies()) {
    ASSERT_TRUE(fams.count(want.name)) << want.name << " missing\n" << text;
    ExpectShape(want, fams[want.name]);
    if (capacity_only.count(want.name)) {
      EXPECT_TRUE(fams[want.name].samples.empty()) << want.name << ": proportion has no capacity";
    } else {
      EXPECT_FALSE(fams[want.name].samples.empty()) << want.name << " has no sample\n" << text;
    }
  }
  // Values are basalt's measurements.
  auto value = [&](const std::string& family, const std::string& sample,
                   const std::map<std::string, std::string>& labels) {
    return ValueOf(fams, family, sample, labels);
  };
  const std::string stage = "volcano_task_scheduling_latency_milliseconds";
  for (const char* s : {"Watched", "Assumed", "Bound"})  // pod-a, pod-b, gpu-0, the Job's pod
    EXPECT_GE(value(stage, stage + "_count", {{"stage", s}}), 4) << s;
  const std::string bind = "volcano_scheduling_stage_duration_milliseconds";
  EXPECT_EQ(value(bind, bind + "_count", {{"stage", "Bind"}}), 4);
  EXPECT_EQ(value("volcano_schedule_attempts_total", "volcano_schedule_attempts_total",
                  {{"result", "scheduled"}}),
            4);
  // Thousandths of a GPU, as Volcano counts scalars.
  EXPECT_EQ(
      value("volcano_queue_allocated_scalar_resources", "volcano_queue_allocated_scalar_resources",
            {{"queue_name", "q1"}, {"resource", "nvidia.com/gpu"}}),
      1000);
  // 500m + 500m + 1 + the Job's 100m.
  EXPECT_EQ(value("volcano_queue_allocated_milli_cpu", "volcano_queue_allocated_milli_cpu",
                  {{"queue_name", "q1"}}),
            2100);
  EXPECT_EQ(value("volcano_queue_weight", "volcano_queue_weight", {{"queue_name", "q1"}}), 2);
  // minMember 3, its one pod pending.
  EXPECT_EQ(value("volcano_unschedule_task_count", "volcano_unschedule_task_count",
                  {{"job_id", "pg-wait"}}),
            3);
  EXPECT_EQ(value("volcano_unschedule_job_count", "volcano_unschedule_job_count", {}), 1);
  EXPECT_GE(value("volcano_job_retry_counts", "volcano_job_retry_counts", {{"job_id", "pg-wait"}}),
            2);
  const std::string created = "volcano_controller_job_to_pod_creation_latency_milliseconds";
  EXPECT_EQ(value(created, created + "_count", {}), 1);
  EXPECT_FALSE(std::isnan(value("volcano_queue_pod_group_inqueue_count",
                                "volcano_queue_pod_group_inqueue_count", {{"queue_name", "q1"}})));
  const std::string plugin = "volcano_plugin_scheduling_latency_milliseconds";
  EXPECT_GE(value(plugin, plugin + "_count", {{"plugin", "gang"}, {"OnSession", "OnSessionClose"}}),
            2);
  // basalt's own families are still there.
  EXPECT_EQ(fams["basalt_cycle_duration_seconds"].type, "histogram");
}

// With capacity: its capacity and real capacity gauges, by queue and resource.
TEST(VolcanoMetricsTest, ServeExportsCapacityGaugesWithCapacity) {
  std::map<std::string, PromFamily> fams;
  const std::string text = ScrapeAfterCycles(kCapacityConf, &fams);
  for (const Family& want : VolcanoFamilies()) {
    if (want.name.find("volcano_queue_") != 0 || want.name.find("pod_group") != std::string::npos)
      continue;
    ASSERT_TRUE(fams.count(want.name)) << want.name;
    ExpectShape(want, fams[want.name]);
    if (want.name != "volcano_queue_weight") {
      EXPECT_FALSE(fams[want.name].samples.empty()) << want.name << " has no sample\n" << text;
    }
  }
  EXPECT_EQ(ValueOf(fams, "volcano_queue_capacity_scalar_resources",
                    "volcano_queue_capacity_scalar_resources",
                    {{"queue_name", "q1"}, {"resource", "nvidia.com/gpu"}}),
            4000);
  EXPECT_EQ(ValueOf(fams, "volcano_queue_capacity_milli_cpu", "volcano_queue_capacity_milli_cpu",
                    {{"queue_name", "q1"}}),
            16000);
  // The default queue has no capability: no capacity series, a real capacity.
  EXPECT_TRUE(std::isnan(ValueOf(fams, "volcano_queue_capacity_milli_cpu",
                                 "volcano_queue_capacity_milli_cpu", {{"queue_name", "default"}})));
  EXPECT_FALSE(
      std::isnan(ValueOf(fams, "volcano_queue_real_capacity_milli_cpu",
                         "volcano_queue_real_capacity_milli_cpu", {{"queue_name", "default"}})));
}

// ---- Volcano's dashboards ----

// Every "expr" and "query" string of a dashboard.
void CollectQueries(const Json& j, std::vector<std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if ((it.key() == "expr" || it.key() == "query") && it.value().is_string())
        out->push_back(it.value().get<std::string>());
      else
        CollectQueries(it.value(), out);
    }
  } else if (j.is_array()) {
    for (const Json& e : j) CollectQueries(e, out);
  }
}

// The metric names a PromQL expression (or Grafana's label_values(...))
// reads: identifiers outside label matchers `{...}`, outside the label lists
// of by/without/on/ignoring/group_left/group_right, outside strings, and not
// function names.
std::set<std::string> MetricNames(const std::string& expr) {
  static const std::set<std::string> kGrouping = {"by",       "without",    "on",
                                                  "ignoring", "group_left", "group_right"};
  std::set<std::string> out;
  int braces = 0;
  size_t i = 0;
  auto is_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto is_part = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  };
  bool after_label_values = false;
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {
      const size_t end = expr.find(c, i + 1);
      i = end == std::string::npos ? expr.size() : end + 1;
      continue;
    }
    if (c == '{') ++braces;
    if (c == '}') --braces;
    if (c == '[') {  // a range: [5m]
      const size_t end = expr.find(']', i);
      i = end == std::string::npos ? expr.size() : end + 1;
      continue;
    }
    if (!is_start(c) || (i > 0 && is_part(expr[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < expr.size() && is_part(expr[j])) ++j;
    const std::string word = expr.substr(i, j - i);
    size_t k = j;
    while (k < expr.size() && std::isspace(static_cast<unsigned char>(expr[k]))) ++k;
    const bool call = k < expr.size() && expr[k] == '(';
    if (call && kGrouping.count(word)) {
      const size_t end = expr.find(')', k);
      i = end == std::string::npos ? expr.size() : end + 1;
      continue;
    }
    if (word == "label_values") after_label_values = true;
    if (braces == 0 && !call) {
      out.insert(word);
      // label_values(metric, label): the second argument is a label.
      if (after_label_values) {
        const size_t end = expr.find(')', j);
        i = end == std::string::npos ? expr.size() : end + 1;
        after_label_values = false;
        continue;
      }
    }
    i = j;
  }
  return out;
}

// Volcano's dashboards: the benchmark's, and those the chart and the
// monitoring installer ship in ConfigMaps (one JSON document per data key).
std::map<std::string, Json> VolcanoDashboards(const std::string& source) {
  std::map<std::string, Json> out;
  const fs::path bench = fs::path(source) / "benchmark/manifests/monitoring/grafana-dashboard.json";
  std::ifstream in(bench);
  if (in) out[bench.string()] = Json::parse(in);
  const std::regex json_key(R"(^\s+([\w.-]+\.json): \|-?\s*$)");
  for (const char* file : {"installer/helm/chart/volcano/templates/grafana.yaml",
                           "installer/volcano-monitoring.yaml"}) {
    std::ifstream yaml(fs::path(source) / file);
    std::string line, key;
    std::smatch m;
    while (std::getline(yaml, line)) {
      if (!key.empty()) {
        out[std::string(file) + ":" + key] = Json::parse(line);
        key.clear();
      } else if (std::regex_match(line, m, json_key)) {
        key = m[1];
      }
    }
  }
  return out;
}

TEST(VolcanoMetricsTest, EverySeriesVolcanosDashboardsQueryIsExported) {
  const std::string source = testing::VolcanoSource();
  ASSERT_FALSE(source.empty() || !fs::is_directory(source + "/benchmark"))
      << "Volcano's source not found: set BASALT_VOLCANO_SOURCE or make scripts/volcano-source "
         "work (it said: "
      << source << ")";
  const std::map<std::string, Json> dashboards = VolcanoDashboards(source);
  ASSERT_EQ(dashboards.size(), 11u) << "the benchmark's dashboard and the 5 of each ConfigMap";
  std::map<std::string, std::set<std::string>> queried;  // series -> dashboards
  for (const auto& [where, dashboard] : dashboards) {
    std::vector<std::string> queries;
    CollectQueries(dashboard, &queries);
    for (const std::string& q : queries) {
      for (const std::string& name : MetricNames(q)) {
        if (name.rfind("volcano_", 0) == 0) queried[name].insert(where);
      }
    }
  }
  ASSERT_GE(queried.size(), 20u);
  std::map<std::string, PromFamily> fams;
  const std::string text = ScrapeAfterCycles(kCapacityConf, &fams);
  std::ifstream doc_in(std::string(BASALT_SOURCE_DIR) + "/docs/metrics.md");
  const std::string doc((std::istreambuf_iterator<char>(doc_in)), {});
  std::set<std::string> exempt_seen;
  for (const auto& [series, where] : queried) {
    std::string family = series;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string base = series.substr(0, series.size() - std::strlen(suffix));
      if (series.ends_with(suffix) && fams.count(base) && fams[base].type == "histogram")
        family = base;
    }
    if (series.ends_with("_bucket") && family == series) {
      family = series.substr(0, series.size() - 7);  // not exported: name the family
    }
    if (kNotExported.count(family)) {
      exempt_seen.insert(family);
      EXPECT_NE(doc.find("`" + family + "`"), std::string::npos)
          << family << " is not exported: docs/metrics.md must say so and why";
      EXPECT_FALSE(fams.count(family)) << family;
      continue;
    }
    ASSERT_TRUE(fams.count(family))
        << series << " (queried by " << *where.begin() << ") is not in serve's /metrics";
    if (series != family) {
      EXPECT_EQ(fams[family].type, "histogram") << series;
    }
    bool has_sample = false;
    for (const PromSample& s : fams[family].samples) has_sample |= s.name == series;
    EXPECT_TRUE(has_sample) << series << " (queried by " << *where.begin() << ") has no sample";
  }
  // The exemptions are real: each is queried by a dashboard.
  EXPECT_TRUE(exempt_seen.count("volcano_worker_scheduling_cycle_duration_milliseconds"));
}

}  // namespace
}  // namespace basalt::testing
