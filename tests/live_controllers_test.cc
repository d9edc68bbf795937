// The controllers of `basalt serve` (live/live_controllers.cc) against the
// stateful loopback API server (kube_fake_apiserver.h), for what Volcano's
// controllers write: a Queue created without a status gets `state: Open`; a
// vcjob's PodGroup is `<job>-<uid>` and its pods name it; the PodGroup of a
// ReplicaSet scaled to zero goes; the svc plugin's host ConfigMap is
// rewritten on the server when the job scales; a policy's action is an
// ExecuteAction event on the job.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

using kube::Json;

Json VcJob(int replicas) {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}};
  Json task = {{"name", "worker"},
               {"replicas", replicas},
               {"minAvailable", 1},
               {"template", {{"spec", {{"containers", {container}}}}}}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", "sj"}, {"namespace", "fx"}}},
          {"spec",
           {{"schedulerName", "volcano"},
            {"queue", "default"},
            {"minAvailable", 1},
            {"plugins", {{"svc", Json::array()}}},
            {"tasks", {task}}}}};
}

class LiveControllersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.Start());
    for (const Json& n : FixtureNodes()) fake_.Put(n);
  }
  void TearDown() override { fake_.Stop(); }

  std::unique_ptr<ServeApp> Start() {
    auto app = std::make_unique<ServeApp>(LoopbackServeOptions(fake_, &clock_));
    Status s = app->Start();
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(Eventually([&] { return app->Synced(); })) << "informers never synced";
    return app;
  }
  template <typename Pred>
  bool CycleUntil(ServeApp& app, Pred done, int max = 10) {
    for (int i = 0; i < max; ++i) {
      clock_.Advance(std::chrono::seconds(1));
      app.Tick();
      if (Eventually(done, std::chrono::milliseconds(300))) return true;
    }
    return done();
  }

  FakeApiServer fake_;
  ManualKubeClock clock_;
};

// Volcano's queue controller writes `Open` into a new Queue's status.
TEST_F(LiveControllersTest, QueueCreatedWithoutStatusIsOpened) {
  fake_.Put(QueueObject("default", 1));
  fake_.Put(QueueObject("research", 2));
  auto app = Start();
  ASSERT_TRUE(CycleUntil(*app, [&] {
    auto q = fake_.Get("Queue", "", "research");
    return q && q->contains("status") && (*q)["status"].value("state", "") == "Open";
  }));
  EXPECT_EQ((*fake_.Get("Queue", "", "default"))["status"]["state"], "Open");
  StopApp(*app, fake_);
}

// The vcjob's PodGroup is `<job>-<uid>` (Volcano's name since v1.5) and the
// pods' group-name annotation follows; the svc host ConfigMap follows scaling.
TEST_F(LiveControllersTest, JobPodGroupNameAndHostFilesOnScaling) {
  fake_.Put(QueueObject("default", 1));
  const Json job = fake_.Put(VcJob(2));
  const std::string group = "sj-" + job["metadata"]["uid"].get<std::string>();
  auto app = Start();
  ASSERT_TRUE(CycleUntil(*app, [&] { return fake_.Get("PodGroup", "fx", group).has_value(); }));
  EXPECT_FALSE(fake_.Get("PodGroup", "fx", "sj").has_value());
  // Pods come once the group is admitted; they name it.
  ASSERT_TRUE(CycleUntil(*app, [&] { return fake_.Get("Pod", "fx", "sj-worker-1").has_value(); }));
  EXPECT_EQ((*fake_.Get("Pod", "fx",
                        "sj-worker-0"))["metadata"]["annotations"]["scheduling.k8s.io/group-name"],
            group);
  ASSERT_TRUE(CycleUntil(*app, [&] { return fake_.Get("ConfigMap", "fx", "sj-svc").has_value(); }));
  EXPECT_EQ((*fake_.Get("ConfigMap", "fx", "sj-svc"))["data"]["VC_WORKER_NUM"], "2");
  // Running (both pods bound and started), then scaled to 3.
  ASSERT_TRUE(CycleUntil(*app, [&] {
    for (const char* name : {"sj-worker-0", "sj-worker-1"}) {
      auto pod = fake_.Get("Pod", "fx", name);
      if (!pod || !(*pod)["spec"].contains("nodeName")) return false;
      if ((*pod)["status"].value("phase", "") != "Running") {
        (*pod)["status"]["phase"] = "Running";
        fake_.Put(*pod);
      }
    }
    auto j = fake_.Get("Job", "fx", "sj");
    return j && (*j)["status"]["state"].value("phase", "") == "Running";
  }));
  Json scaled = *fake_.Get("Job", "fx", "sj");
  scaled["spec"]["tasks"][0]["replicas"] = 3;
  fake_.Put(scaled);
  ASSERT_TRUE(CycleUntil(*app, [&] {
    auto cm = fake_.Get("ConfigMap", "fx", "sj-svc");
    return cm && (*cm)["data"].value("VC_WORKER_NUM", "") == "3";
  }));
  EXPECT_EQ((*fake_.Get("ConfigMap", "fx", "sj-svc"))["data"]["VC_WORKER_HOSTS"],
            "sj-worker-0.sj,sj-worker-1.sj,sj-worker-2.sj");
  StopApp(*app, fake_);
}

// Volcano's job controller records an ExecuteAction event on the job when a
// policy's action starts (job_controller.go, processNextReq): a core/v1 Event
// with first/lastTimestamp and count, which the e2e spec
// "Checking Event Generation for job" reads through CoreV1().Events.
TEST_F(LiveControllersTest, PolicyActionIsRecordedAsJobEvent) {
  fake_.Put(QueueObject("default", 1));
  Json spec = VcJob(1);
  spec["spec"]["plugins"] = Json::object();
  spec["spec"]["policies"] = {{{"event", "PodFailed"}, {"action", "TerminateJob"}}};
  const Json job = fake_.Put(spec);
  auto app = Start();
  ASSERT_TRUE(CycleUntil(*app, [&] {
    auto pod = fake_.Get("Pod", "fx", "sj-worker-0");
    return pod && (*pod)["spec"].contains("nodeName");
  }));
  Json pod = *fake_.Get("Pod", "fx", "sj-worker-0");
  pod["status"]["phase"] = "Running";
  fake_.Put(pod);
  ASSERT_TRUE(CycleUntil(*app, [&] {
    auto j = fake_.Get("Job", "fx", "sj");
    return j && (*j)["status"]["state"].value("phase", "") == "Running";
  }));
  pod = *fake_.Get("Pod", "fx", "sj-worker-0");
  pod["status"]["phase"] = "Failed";
  fake_.Put(pod);
  auto action_event = [&]() -> std::optional<Json> {
    for (const Json& e : fake_.Events()) {
      if (e.value("reason", "") == "ExecuteAction") return e;
    }
    return std::nullopt;
  };
  ASSERT_TRUE(CycleUntil(*app, [&] { return action_event().has_value(); }));
  const Json e = *action_event();
  EXPECT_EQ(e["apiVersion"], "v1");
  EXPECT_EQ(e["message"], "Start to execute action TerminateJob ");
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["involvedObject"]["kind"], "Job");
  EXPECT_EQ(e["involvedObject"]["name"], "sj");
  EXPECT_EQ(e["involvedObject"]["uid"], job["metadata"]["uid"]);
  EXPECT_EQ(e["metadata"]["namespace"], "fx");
  EXPECT_FALSE(e.value("lastTimestamp", "").empty());
  EXPECT_EQ(e["firstTimestamp"], e["lastTimestamp"]);
  EXPECT_EQ(e["count"], 1);
  StopApp(*app, fake_);
}

// deploy/rbac.yaml grants the writes the live controllers send that a
// forbidden answer would silently undo: without `patch` on configmaps the svc
// host lists never followed a scaled job (403 on every pass).
TEST(DeployRbacTest, ClusterRoleGrantsTheControllersWrites) {
  std::map<std::string, std::set<std::string>> granted;  // "group/resource" -> verbs
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(BASALT_SOURCE_DIR) + "/deploy/rbac.yaml")) {
    if (doc["kind"].as<std::string>() != "ClusterRole") continue;
    for (const YAML::Node& rule : doc["rules"]) {
      for (const YAML::Node& group : rule["apiGroups"]) {
        for (const YAML::Node& resource : rule["resources"]) {
          for (const YAML::Node& verb : rule["verbs"])
            granted[group.as<std::string>() + "/" + resource.as<std::string>()].insert(
                verb.as<std::string>());
        }
      }
    }
  }
  const std::vector<std::pair<std::string, std::string>> writes = {
      {"/configmaps", "create"},
      {"/configmaps", "patch"},
      {"/configmaps", "delete"},
      {"/secrets", "create"},
      {"/services", "create"},
      {"/events", "create"},
      {"networking.k8s.io/networkpolicies", "create"},
      {"/pods", "create"},
      {"scheduling.volcano.sh/podgroups", "create"},
      {"batch.volcano.sh/jobs/status", "patch"}};
  for (const auto& [resource, verb] : writes)
    EXPECT_TRUE(granted[resource].count(verb)) << verb << " " << resource;
}

// Volcano's podgroup controller deletes `podgroup-<uid>` of a ReplicaSet
// scaled to zero.
TEST_F(LiveControllersTest, ReplicaSetScaledToZeroLosesItsPodGroup) {
  fake_.Put(QueueObject("default", 1));
  Json rs = fake_.Put({{"apiVersion", "apps/v1"},
                       {"kind", "ReplicaSet"},
                       {"metadata", {{"name", "web-1"}, {"namespace", "fx"}}},
                       {"spec", {{"replicas", 1}}}});
  const std::string uid = rs["metadata"]["uid"];
  Json pod = FixturePod("fx", "web-1-abcde", "", "100m");
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "ReplicaSet"},
                                         {"name", "web-1"},
                                         {"uid", uid},
                                         {"controller", true}}};
  fake_.Put(pod);
  auto app = Start();
  ASSERT_TRUE(
      CycleUntil(*app, [&] { return fake_.Get("PodGroup", "fx", "podgroup-" + uid).has_value(); }));
  rs = *fake_.Get("ReplicaSet", "fx", "web-1");
  rs["spec"]["replicas"] = 0;
  fake_.Put(rs);
  ASSERT_TRUE(CycleUntil(
      *app, [&] { return !fake_.Get("PodGroup", "fx", "podgroup-" + uid).has_value(); }));
  StopApp(*app, fake_);
}

}  // namespace
}  // namespace basalt::testing
