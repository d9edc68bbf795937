// The JobFlow controller of `basalt serve` (live/live_jobflow.cc) against the
// stateful loopback API server (kube_fake_apiserver.h): jobs created from the
// JobTemplates' JSON in dependency order, once each (adopted on 409, never
// again after a restart or once the flow lists them), the JobFlow status
// merge-patched on /status only when it changes, jobRetainPolicy `delete`;
// and a resource the server does not serve leaves the informers synced and
// healthy.
#include <gtest/gtest.h>

#include "kube/informer.h"
#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

using kube::Json;

constexpr const char* kJobsPath = "/apis/batch.volcano.sh/v1alpha1/namespaces/fx/jobs";
constexpr const char* kFlowStatusPath =
    "/apis/flow.volcano.sh/v1alpha1/namespaces/fx/jobflows/f/status";

// A JobTemplate with a field basalt does not model (`env`), which must reach
// the job as written.
Json Template(const std::string& name) {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"env", {{{"name", "FROM"}, {"value", name}}}},
                    {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}}}}};
  Json task = {
      {"name", "main"}, {"replicas", 1}, {"template", {{"spec", {{"containers", {container}}}}}}};
  return {{"apiVersion", "flow.volcano.sh/v1alpha1"},
          {"kind", "JobTemplate"},
          {"metadata", {{"name", name}, {"namespace", "fx"}}},
          {"spec",
           {{"schedulerName", "volcano"},
            {"queue", "default"},
            {"minAvailable", 1},
            {"tasks", {task}}}}};
}

Json FlowObject(const std::string& retain) {
  return {{"apiVersion", "flow.volcano.sh/v1alpha1"},
          {"kind", "JobFlow"},
          {"metadata", {{"name", "f"}, {"namespace", "fx"}}},
          {"spec",
           {{"jobRetainPolicy", retain},
            {"flows", {{{"name", "a"}}, {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}}}}}}};
}

class LiveJobFlowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.Start());
    for (const Json& n : FixtureNodes()) fake_.Put(n);
    fake_.Put(QueueObject("default", 1));
  }
  void TearDown() override { fake_.Stop(); }

  std::unique_ptr<ServeApp> Start(const std::string& identity) {
    auto app = std::make_unique<ServeApp>(LoopbackServeOptions(fake_, &clock_, identity));
    Status s = app->Start();
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(Eventually([&] { return app->Synced(); })) << "informers never synced";
    return app;
  }

  // Cycles one period apart until `done` (given the informers a moment after
  // each cycle to show what it wrote), at most `max` cycles.
  template <typename Pred>
  bool CycleUntil(ServeApp& app, Pred done, int max = 8) {
    for (int i = 0; i < max; ++i) {
      clock_.Advance(std::chrono::seconds(1));
      app.Tick();
      if (Eventually(done, std::chrono::milliseconds(300))) return true;
    }
    return done();
  }
  void Cycles(ServeApp& app, int n) {
    CycleUntil(
        app, [] { return false; }, n);
  }

  size_t Requests(const std::string& method, const std::string& path) {
    size_t n = 0;
    for (const auto& r : fake_.http().requests()) n += r.method == method && r.path == path;
    return n;
  }
  size_t JobCreates(const std::string& name) {
    size_t n = 0;
    for (const auto& r : fake_.http().requests()) {
      if (r.method != "POST" || r.path != kJobsPath) continue;
      Json body = Json::parse(r.body, nullptr, false);
      n += body.is_object() && body["metadata"].value("name", "") == name;
    }
    return n;
  }
  bool JobExists(const std::string& name) { return fake_.Get("Job", "fx", name).has_value(); }
  Json FlowStatus() {
    auto flow = fake_.Get("JobFlow", "fx", "f");
    return flow && flow->contains("status") ? (*flow)["status"] : Json::object();
  }
  std::string FlowPhase() {
    Json st = FlowStatus();
    return st.contains("state") ? st["state"].value("phase", "") : "";
  }
  // Stands in for the job's pods finishing: the server's job says Completed,
  // and again should a status patch the vcjob controller computed before it
  // saw that land afterwards. Cycles until `done`.
  template <typename Pred>
  bool CompleteJobUntil(ServeApp& app, const std::string& name, Pred done) {
    return CycleUntil(app, [&] {
      auto job = fake_.Get("Job", "fx", name);
      if (job) {
        Json& state = (*job)["status"]["state"];  // made an object when absent
        if (!state.is_object() || state.value("phase", "") != "Completed") {
          state["phase"] = "Completed";
          fake_.Put(*job);
        }
      }
      return done();
    });
  }

  FakeApiServer fake_;
  ManualKubeClock clock_;
};

TEST_F(LiveJobFlowTest, CreatesJobsInDependencyOrderAndWritesStatusOnlyWhenChanged) {
  fake_.Put(Template("a"));
  fake_.Put(Template("b"));
  Json flow = fake_.Put(FlowObject("retain"));
  auto app = Start("basalt-test-0");
  ASSERT_TRUE(CycleUntil(*app, [&] { return JobExists("f-a"); }));
  Json a = *fake_.Get("Job", "fx", "f-a");
  EXPECT_EQ(a["metadata"]["labels"]["volcano.sh/createdByJobTemplate"], "fx.a");
  EXPECT_EQ(a["metadata"]["annotations"]["volcano.sh/createdByJobTemplate"], "fx.a");
  Json owner = a["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "JobFlow");
  EXPECT_EQ(owner["name"], "f");
  EXPECT_EQ(owner["uid"], flow["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(a["spec"], Template("a")["spec"]) << "the template's spec, as written";
  // B waits for A, however many cycles pass.
  Cycles(*app, 3);
  EXPECT_FALSE(JobExists("f-b"));
  ASSERT_TRUE(CycleUntil(*app, [&] {
    Json st = FlowStatus();
    return st.contains("jobStatusList") && st["jobStatusList"].size() == 1;
  }));
  EXPECT_EQ(FlowStatus()["jobStatusList"][0]["name"], "f-a");
  EXPECT_EQ(FlowPhase(), "Pending");
  ASSERT_TRUE(CompleteJobUntil(*app, "f-a", [&] { return JobExists("f-b"); }));
  ASSERT_TRUE(CompleteJobUntil(*app, "f-b", [&] { return FlowPhase() == "Succeed"; }));
  Json st = FlowStatus();
  EXPECT_EQ(st["completedJobs"], Json({"f-a", "f-b"})) << st.dump();
  EXPECT_EQ(st["jobStatusList"].size(), 2u) << st.dump();
  EXPECT_EQ(st["jobStatusList"][1]["state"], "Completed") << st.dump();
  EXPECT_TRUE(st["conditions"].contains("f-b")) << st.dump();
  // Settled: more cycles write no status and create nothing.
  Cycles(*app, 2);
  const size_t patches = Requests("PATCH", kFlowStatusPath);
  Cycles(*app, 3);
  EXPECT_EQ(Requests("PATCH", kFlowStatusPath), patches);
  EXPECT_EQ(JobCreates("f-a"), 1u);
  EXPECT_EQ(JobCreates("f-b"), 1u);
  EXPECT_TRUE(JobExists("f-a")) << "retain: the jobs stay";
  StopApp(*app, fake_);
}

// The job appeared on the server between the informers' view and the create
// (another writer, or our own create whose reply was lost): 409 adopts it.
// Neither a restart nor the job's deletion once listed makes it again.
TEST_F(LiveJobFlowTest, AdoptsOnConflictAndNeverCreatesTwice) {
  fake_.Put(Template("a"));
  fake_.Put(Template("b"));
  fake_.Put(FlowObject("retain"));
  bool raced = false;
  fake_.SetHook([&](const FakeRequest& r) {
    if (raced || r.method != "POST" || r.path != kJobsPath) return;
    raced = true;
    fake_.Put(Json::parse(r.body));  // the same job lands first
  });
  auto app = Start("basalt-test-0");
  ASSERT_TRUE(CycleUntil(*app, [&] { return raced && JobExists("f-a"); }));
  ASSERT_TRUE(CycleUntil(*app, [&] {
    Json st = FlowStatus();
    return st.contains("jobStatusList") && st["jobStatusList"].size() == 1;
  }));
  EXPECT_EQ(app->metrics().Value("basalt_controller_writes_total", {"Job", "create", "exists"}), 1);
  EXPECT_EQ(JobCreates("f-a"), 1u);
  StopApp(*app, fake_);
  // A new process sees the job (and the flow's list of it): nothing to create.
  auto again = Start("basalt-test-1");
  Cycles(*again, 3);
  EXPECT_EQ(JobCreates("f-a"), 1u);
  // Gone (TTL, a user) after the flow listed it: not made again.
  fake_.Delete("Job", "fx", "f-a");
  Cycles(*again, 3);
  EXPECT_EQ(JobCreates("f-a"), 1u);
  EXPECT_FALSE(JobExists("f-b"));
  StopApp(*again, fake_);
}

// jobRetainPolicy `delete`: once the flow Succeeded its jobs go (with their
// pods and PodGroups) and are not made again.
TEST_F(LiveJobFlowTest, RetainPolicyDeleteRemovesTheJobsAfterSuccess) {
  fake_.Put(Template("a"));
  fake_.Put(Template("b"));
  fake_.Put(FlowObject("delete"));
  auto app = Start("basalt-test-0");
  ASSERT_TRUE(CycleUntil(*app, [&] { return JobExists("f-a"); }));
  ASSERT_TRUE(CompleteJobUntil(*app, "f-a", [&] { return JobExists("f-b"); }));
  ASSERT_TRUE(CompleteJobUntil(*app, "f-b", [&] { return FlowPhase() == "Succeed"; }));
  ASSERT_TRUE(CycleUntil(*app, [&] { return !JobExists("f-a") && !JobExists("f-b"); }));
  Cycles(*app, 3);
  EXPECT_FALSE(JobExists("f-a"));
  EXPECT_EQ(JobCreates("f-a"), 1u);
  EXPECT_EQ(JobCreates("f-b"), 1u);
  for (const Json& pg : fake_.List("PodGroup"))
    EXPECT_NE(pg["metadata"].value("namespace", ""), "fx") << pg.dump();
  EXPECT_EQ(FlowPhase(), "Succeed");
  StopApp(*app, fake_);
}

// A resource the server does not serve (its CRD is not installed) answers 404:
// the informer is synced, empty and healthy (so /readyz is not held at 503),
// and says so in its stats rather than counting failures.
TEST_F(LiveJobFlowTest, ResourceNotServedIsSyncedHealthyAndEmpty) {
  kube::ClientOptions opt;
  opt.server = fake_.url();
  opt.max_attempts = 1;
  kube::Client client(opt, std::make_unique<kube::CurlTransport>(kube::CurlOptions{}));
  ClusterState state;
  kube::StateSink sink(&state);
  kube::Informer informer(&client, {"JobFlow", {"/apis/example.basalt.dev/v1", "jobflows"}}, &sink);
  std::atomic<bool> stop{false};
  EXPECT_FALSE(informer.Step(stop));  // nothing to watch yet
  EXPECT_FALSE(informer.Step(stop));
  EXPECT_TRUE(informer.synced());
  EXPECT_TRUE(informer.healthy());
  kube::InformerStats stats = informer.stats();
  EXPECT_TRUE(stats.not_served);
  EXPECT_EQ(stats.failures, 0);
  EXPECT_NE(stats.last_error.find("404"), std::string::npos) << stats.last_error;
  EXPECT_TRUE(state.job_flows().empty());
}

}  // namespace
}  // namespace basalt::testing
