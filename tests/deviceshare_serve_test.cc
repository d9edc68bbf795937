// `basalt serve` with the deviceshare plugin against the loopback API server:
// the cards a vGPU pod got are patched onto it before its bind, as Volcano
// does, so the device plugin on the node (and basalt's next session) read them.
#include <gtest/gtest.h>

#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

using kube::Json;

constexpr char kConf[] = R"(
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: gang
- plugins:
  - name: predicates
  - name: deviceshare
    arguments: {deviceshare.VGPUEnable: true}
)";

TEST(DeviceShareServeTest, CardsArePatchedOntoThePodBeforeItsBind) {
  FakeApiServer fake;
  ASSERT_TRUE(fake.Start());
  ManualKubeClock clock;
  // One H200 node of the recordings, with two registered 8000 MiB vGPU cards.
  for (Json node : FixtureNodes()) {
    if (node["metadata"]["name"] != "node-h200-1") continue;
    node["metadata"]["annotations"]["volcano.sh/node-vgpu-register"] =
        "GPU-a,10,8000,NVIDIA-H200,true:GPU-b,10,8000,NVIDIA-H200,true:";
    node["status"]["allocatable"]["volcano.sh/vgpu-number"] = "20";
    fake.Put(node);
  }
  fake.Put(QueueObject("default", 1));
  fake.Put(PodGroupObject("fx-1", "pg-v", 1, "default"));
  Json pod = FixturePod("fx-1", "v-1", "pg-v", "500m");
  pod["spec"]["containers"][0]["resources"]["limits"]["volcano.sh/vgpu-number"] = "1";
  pod["spec"]["containers"][0]["resources"]["limits"]["volcano.sh/vgpu-memory"] = "3000";
  fake.Put(pod);

  ServeAppOptions o = LoopbackServeOptions(fake, &clock);
  o.conf_text = kConf;
  auto app = std::make_unique<ServeApp>(std::move(o));
  ASSERT_OK(app->Start());
  ASSERT_TRUE(Eventually([&] { return app->Synced(); })) << "informers never synced";
  // Binds go out on the bind workers' threads: a tick hands the bind over and
  // returns, so each tick waits (in real time, bounded) for it to land.
  for (int i = 0; i < 4 && fake.TotalBinds() == 0; ++i) {
    clock.Advance(std::chrono::seconds(1));
    app->Tick();
    Eventually([&] { return fake.TotalBinds() > 0; }, std::chrono::milliseconds(2000));
  }
  ASSERT_EQ(fake.TotalBinds(), 1);

  Json stored = *fake.Get("Pod", "fx-1", "v-1");
  EXPECT_EQ(stored["spec"].value("nodeName", ""), "node-h200-1");
  const Json& ann = stored["metadata"]["annotations"];
  EXPECT_EQ(ann.value("volcano.sh/vgpu-ids-new", ""), "GPU-b,NVIDIA,3000,0:") << stored.dump();
  EXPECT_EQ(ann.value("volcano.sh/vgpu-node", ""), "node-h200-1");
  EXPECT_EQ(ann.value("scheduling.k8s.io/group-name", ""), "pg-v");  // merged, not replaced

  // The patch went first, then the bind.
  int patch_at = -1, bind_at = -1, i = 0;
  for (const auto& r : fake.http().requests()) {
    if (r.method == "PATCH" && r.path == "/api/v1/namespaces/fx-1/pods/v-1" && patch_at < 0)
      patch_at = i;
    if (r.method == "POST" && r.path == "/api/v1/namespaces/fx-1/pods/v-1/binding" && bind_at < 0)
      bind_at = i;
    ++i;
  }
  EXPECT_GE(patch_at, 0);
  EXPECT_GT(bind_at, patch_at);
  StopApp(*app, fake);
  fake.Stop();
}

}  // namespace
}  // namespace basalt::testing
