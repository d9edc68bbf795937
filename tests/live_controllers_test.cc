// The controllers of `basalt serve` (live/live_controllers.cc) against the
// stateful loopback API server (kube_fake_apiserver.h), for what Volcano's
// controllers write: a Queue created without a status gets `state: Open`; a
// vcjob's PodGroup is `<job>-<uid>` and its pods name it; the PodGroup of a
// ReplicaSet scaled to zero goes; the svc plugin's host ConfigMap is
// rewritten on the server when the job scales.
#include <gtest/gtest.h>

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
