// The CronJob controller of `basalt serve` (live/live_cronjob.cc) against the
// stateful loopback API server (kube_fake_apiserver.h): the job due is POSTed
// from the template as stored (fields basalt does not model kept), with the
// scheduled-time annotation and the CronJob as controller owner; the status is
// merge-patched on /status; Forbid makes no second job while one is active.
#include <gtest/gtest.h>

#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

using kube::Json;

constexpr const char* kJobsPath = "/apis/batch.volcano.sh/v1alpha1/namespaces/fx/jobs";
constexpr const char* kStatusPath =
    "/apis/batch.volcano.sh/v1alpha1/namespaces/fx/cronjobs/tick/status";

// Every minute, created long ago: a job is due at the first pass.
Json CronJobObject() {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"env", {{{"name", "FROM"}, {"value", "cron"}}}},
                    {"resources", {{"requests", {{"cpu", "500m"}}}}}};
  Json task = {
      {"name", "main"}, {"replicas", 1}, {"template", {{"spec", {{"containers", {container}}}}}}};
  Json job_template = {
      {"metadata", {{"labels", {{"team", "a"}}}}},
      {"spec", {{"schedulerName", "volcano"}, {"queue", "default"}, {"tasks", {task}}}}};
  Json spec = {
      {"schedule", "* * * * *"}, {"concurrencyPolicy", "Forbid"}, {"jobTemplate", job_template}};
  Json meta = {
      {"name", "tick"}, {"namespace", "fx"}, {"creationTimestamp", "2020-01-01T00:00:00Z"}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "CronJob"},
          {"metadata", meta},
          {"spec", spec}};
}

class LiveCronJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.Start());
    for (const Json& n : FixtureNodes()) fake_.Put(n);
    fake_.Put(QueueObject("default", 1));
  }
  void TearDown() override { fake_.Stop(); }

  template <typename Pred>
  bool CycleUntil(ServeApp& app, Pred done, int max = 8) {
    for (int i = 0; i < max; ++i) {
      clock_.Advance(std::chrono::seconds(1));
      app.Tick();
      if (Eventually(done, std::chrono::milliseconds(300))) return true;
    }
    return done();
  }
  std::vector<Json> CreatedJobs() {
    std::vector<Json> out;
    for (const auto& r : fake_.http().requests()) {
      if (r.method == "POST" && r.path == kJobsPath) out.push_back(Json::parse(r.body));
    }
    return out;
  }
  Json Status() {
    auto cj = fake_.Get("CronJob", "fx", "tick");
    return cj && cj->contains("status") ? (*cj)["status"] : Json::object();
  }

  FakeApiServer fake_;
  ManualKubeClock clock_;
};

TEST_F(LiveCronJobTest, CreatesTheJobDueAndRecordsItInTheStatus) {
  Json cron = fake_.Put(CronJobObject());
  auto app = std::make_unique<ServeApp>(LoopbackServeOptions(fake_, &clock_, "basalt-test-0"));
  ASSERT_TRUE(app->Start().ok());
  ASSERT_TRUE(Eventually([&] { return app->Synced(); }));
  ASSERT_TRUE(CycleUntil(*app, [&] { return !CreatedJobs().empty(); }));
  Json job = CreatedJobs()[0];
  const std::string name = job["metadata"].value("name", "");
  EXPECT_EQ(name.rfind("tick-", 0), 0u) << name;
  EXPECT_EQ(job["metadata"]["labels"]["team"], "a");
  EXPECT_TRUE(job["metadata"]["annotations"].contains("volcano.sh/cronjob-scheduled-timestamp"))
      << job.dump();
  Json owner = job["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "CronJob");
  EXPECT_EQ(owner["uid"], cron["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(job["spec"], CronJobObject()["spec"]["jobTemplate"]["spec"]) << "as written";
  ASSERT_TRUE(CycleUntil(*app, [&] {
    Json st = Status();
    return st.contains("active") && st["active"].size() == 1 && st.contains("lastScheduleTime");
  })) << Status().dump();
  EXPECT_EQ(Status()["active"][0]["name"], name);
  // Forbid: while that job is active no other is made, minute after minute.
  for (int i = 0; i < 4; ++i)
    CycleUntil(
        *app, [] { return false; }, 1);
  EXPECT_EQ(CreatedJobs().size(), 1u);
  size_t patches = 0;
  for (const auto& r : fake_.http().requests())
    patches += r.method == "PATCH" && r.path == kStatusPath;
  EXPECT_GE(patches, 1u);
  StopApp(*app, fake_);
}

}  // namespace
}  // namespace basalt::testing
