// Per-GPU accounting (plugins/gpu_devices.h) and the deviceshare plugin's
// parts that scenario files cannot show: the cards written onto a bound pod,
// argument errors. Card layouts in the comments: [card0 used/total, card1 ...].
#include "plugins/gpu_devices.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/validate.h"
#include "engine/cycle_runner.h"
#include "framework/arguments.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

GpuCards TwoCards(int64_t memory = 8000, int64_t sharers = 10) {
  auto cards =
      GpuCards::FromVgpuRegister("GPU-a," + std::to_string(sharers) + "," + std::to_string(memory) +
                                 ",NVIDIA-Tesla V100,true:GPU-b," + std::to_string(sharers) + "," +
                                 std::to_string(memory) + ",NVIDIA-Tesla V100,true:");
  EXPECT_OK(cards);
  return cards.ok() ? *cards : GpuCards();
}

VgpuRequest Vgpu(int64_t count, int64_t memory, int64_t cores = 0) {
  VgpuRequest r;
  r.count = count;
  r.memory = memory;
  r.cores = cores;
  return r;
}

CardUses MustFit(const GpuCards& cards, const VgpuRequest& r) {
  CardUses uses;
  std::string reason;
  EXPECT_TRUE(FitVgpu(cards, r, &uses, &reason)) << reason;
  return uses;
}

TEST(GpuCardsTest, ParsesTheDevicePluginRegistration) {
  auto cards = GpuCards::FromVgpuRegister(
      "GPU-0fc3,10,32768,NVIDIA-Tesla "
      "V100-PCIE-32GB,true,hami-core:GPU-1ab2,4,16384,NVIDIA-A10,false:");
  ASSERT_OK(cards);
  ASSERT_EQ(cards->cards().size(), 2u);
  EXPECT_EQ(cards->cards()[0].uuid, "GPU-0fc3");
  EXPECT_EQ(cards->cards()[0].max_sharers, 10);
  EXPECT_EQ(cards->cards()[0].memory, 32768);
  EXPECT_EQ(cards->cards()[0].type, "NVIDIA-Tesla V100-PCIE-32GB");
  EXPECT_TRUE(cards->cards()[0].healthy);
  EXPECT_FALSE(cards->cards()[1].healthy);
}

TEST(GpuCardsTest, RegistrationErrorsNameTheCardAndField) {
  EXPECT_EQ(GpuCards::FromVgpuRegister("GPU-a,10,lots,NVIDIA,true:").status().message(),
            "card 0: memory: expected a non-negative integer (MiB), got \"lots\"");
  EXPECT_EQ(GpuCards::FromVgpuRegister("GPU-a,10,10,NVIDIA,true:GPU-b,x,10,NVIDIA,true")
                .status()
                .message(),
            "card 1: count: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(GpuCards::FromVgpuRegister("GPU-a,10,10,NVIDIA,maybe").status().message(),
            "card 0: health: expected true or false, got \"maybe\"");
  EXPECT_FALSE(GpuCards::FromVgpuRegister("GPU-a,10,10").ok());
  EXPECT_EQ(GpuCards::FromVgpuRegister("").status().message(), "no card registered");
}

// Volcano walks the cards from the last registered one: two 3000 MiB pods
// share card b; a 4000 MiB pod no longer fits there and takes card a.
TEST(GpuCardsTest, PodsShareTheLastCardUntilItIsFull) {
  GpuCards cards = TwoCards();
  CardUses p1 = MustFit(cards, Vgpu(1, 3000));
  EXPECT_EQ(p1, (CardUses{{1, 3000, 0}}));
  cards.Add(p1);
  CardUses p2 = MustFit(cards, Vgpu(1, 3000));
  EXPECT_EQ(p2, (CardUses{{1, 3000, 0}}));
  cards.Add(p2);  // [a 0/8000, b 6000/8000]
  CardUses p3 = MustFit(cards, Vgpu(1, 4000));
  EXPECT_EQ(p3, (CardUses{{0, 4000, 0}}));
  cards.Add(p3);  // [a 4000/8000, b 6000/8000]
  EXPECT_EQ(cards.cards()[1].sharers, 2);
  // 6000 MiB free in total, but no card has 5000.
  CardUses none;
  std::string reason;
  EXPECT_FALSE(FitVgpu(cards, Vgpu(1, 5000), &none, &reason));
  EXPECT_EQ(reason, "insufficient vGPU: no GPU card can take 5000 MiB device memory");
  cards.Remove(p2);  // [a 4000/8000, b 3000/8000]
  EXPECT_EQ(MustFit(cards, Vgpu(1, 5000)), (CardUses{{1, 5000, 0}}));
}

TEST(GpuCardsTest, SeveralVgpusTakeDistinctCards) {
  GpuCards cards = TwoCards();
  EXPECT_EQ(MustFit(cards, Vgpu(2, 1000)), (CardUses{{1, 1000, 0}, {0, 1000, 0}}));
  cards.Add({{0, 7500, 0}});  // [a 7500/8000, b 0/8000]
  CardUses uses;
  std::string reason;
  EXPECT_FALSE(FitVgpu(cards, Vgpu(2, 1000), &uses, &reason));
  EXPECT_EQ(reason, "insufficient vGPU: fewer than 2 GPU cards can take 1000 MiB device memory");
  EXPECT_FALSE(FitVgpu(cards, Vgpu(3, 1), &uses, &reason));
  EXPECT_EQ(reason, "insufficient vGPU: the node has fewer than 3 GPU cards");
}

TEST(GpuCardsTest, CoresAreLimitedPerCard) {
  GpuCards cards = GpuCards(std::vector<GpuCard>{{"GPU-a", "NVIDIA", 8000, 10, true, 0, 0, 0}});
  cards.Add(MustFit(cards, Vgpu(1, 1000, 60)));
  CardUses uses;
  std::string reason;
  EXPECT_FALSE(FitVgpu(cards, Vgpu(1, 1000, 50), &uses, &reason));
  EXPECT_EQ(reason, "insufficient vGPU: no GPU card can take 1000 MiB device memory and 50% cores");
  EXPECT_TRUE(FitVgpu(cards, Vgpu(1, 1000, 40), &uses, &reason));
  // 100% cores asks for the card alone.
  EXPECT_FALSE(FitVgpu(cards, Vgpu(1, 1000, 100), &uses, &reason));
  // A card at 100% cores takes no pod that asks none.
  GpuCards full = GpuCards(std::vector<GpuCard>{{"GPU-a", "NVIDIA", 8000, 10, true, 0, 0, 0}});
  full.Add({{0, 1000, 100}});
  EXPECT_FALSE(FitVgpu(full, Vgpu(1, 1000, 0), &uses, &reason));
}

TEST(GpuCardsTest, SharerLimitHealthAndTypes) {
  GpuCards one = TwoCards(8000, 1);
  one.Add({{1, 100, 0}});  // card b has its one sharer
  EXPECT_EQ(MustFit(one, Vgpu(1, 100)), (CardUses{{0, 100, 0}}));

  auto mixed =
      GpuCards::FromVgpuRegister("GPU-a,10,8000,NVIDIA-A100,true:GPU-b,10,8000,NVIDIA-T4,false:");
  ASSERT_OK(mixed);
  EXPECT_EQ(MustFit(*mixed, Vgpu(1, 100)), (CardUses{{0, 100, 0}}));  // b is unhealthy

  auto types =
      GpuCards::FromVgpuRegister("GPU-a,10,8000,NVIDIA-A100,true:GPU-b,10,8000,NVIDIA-T4,true:");
  ASSERT_OK(types);
  VgpuRequest r = Vgpu(1, 100);
  r.use_types = {"a100"};
  EXPECT_EQ(MustFit(*types, r), (CardUses{{0, 100, 0}}));
  r.use_types.clear();
  r.nouse_types = {"T4"};
  EXPECT_EQ(MustFit(*types, r), (CardUses{{0, 100, 0}}));
  r.nouse_types.clear();
  r.mode = "mig";
  CardUses uses;
  std::string reason;
  EXPECT_FALSE(FitVgpu(*types, r, &uses, &reason));
  EXPECT_EQ(reason, "vGPU mode mig requested, the node's cards run hami-core");
}

TEST(GpuCardsTest, MemoryPercentageIsOfEachCard) {
  Resource req;
  req.Set(ResourceNames::Intern(kVgpuNumberResource), 1000);
  req.Set(ResourceNames::Intern(kVgpuMemoryPercentageResource), 50000);
  auto r = VgpuRequestOf(req, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 1);
  EXPECT_EQ(r->memory, 0);
  EXPECT_EQ(r->memory_percent, 50);
  EXPECT_EQ(MustFit(TwoCards(8000), *r), (CardUses{{1, 4000, 0}}));
}

TEST(GpuCardsTest, RequestFromResources) {
  Resource none;
  none.set_milli_cpu(1000);
  EXPECT_FALSE(VgpuRequestOf(none, {}).has_value());
  // Memory alone: one card. Neither memory nor a percentage: the whole card.
  Resource mem;
  mem.Set(ResourceNames::Intern(kVgpuMemoryResource), 3000 * 1000);
  auto r = VgpuRequestOf(mem, {{kUseGpuTypeAnnotation, "A100,H100"}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 1);
  EXPECT_EQ(r->memory, 3000);
  EXPECT_EQ(r->use_types, (std::vector<std::string>{"A100", "H100"}));
  Resource num;
  num.Set(ResourceNames::Intern(kVgpuNumberResource), 2000);
  num.Set(ResourceNames::Intern(kVgpuCoresResource), 30000);
  r = VgpuRequestOf(num, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 2);
  EXPECT_EQ(r->memory_percent, 100);
  EXPECT_EQ(r->cores, 30);
}

// binpack: 100 * used/total after the pod lands; spread: 100 for an idle card.
TEST(GpuCardsTest, PolicyScores) {
  GpuCards cards = TwoCards();
  cards.Add({{1, 2000, 0}});
  CardUses on_used{{1, 2000, 0}}, on_idle{{0, 2000, 0}};
  EXPECT_DOUBLE_EQ(VgpuScore(cards, on_used, DevicePolicy::kBinpack), 50);
  EXPECT_DOUBLE_EQ(VgpuScore(cards, on_idle, DevicePolicy::kBinpack), 25);
  EXPECT_DOUBLE_EQ(VgpuScore(cards, on_used, DevicePolicy::kSpread), 0);
  EXPECT_DOUBLE_EQ(VgpuScore(cards, on_idle, DevicePolicy::kSpread), 100);
  EXPECT_DOUBLE_EQ(VgpuScore(cards, on_idle, DevicePolicy::kNone), 0);
  EXPECT_EQ(ParseDevicePolicy("binpack"), DevicePolicy::kBinpack);
  EXPECT_EQ(ParseDevicePolicy(""), DevicePolicy::kNone);
  EXPECT_FALSE(ParseDevicePolicy("Binpack").has_value());
}

TEST(GpuCardsTest, AssignmentAnnotationsRoundTrip) {
  GpuCards cards = TwoCards();
  CardUses uses{{1, 3000, 25}, {0, 3000, 25}};
  const std::string text = EncodeVgpuIds(cards, uses);
  EXPECT_EQ(text, "GPU-b,NVIDIA,3000,25:GPU-a,NVIDIA,3000,25:");
  auto back = DecodeVgpuIds(cards, text);
  ASSERT_OK(back);
  EXPECT_EQ(*back, uses);
  // Several containers, an unknown card (skipped, as Volcano does).
  back = DecodeVgpuIds(cards, "GPU-a,NVIDIA,10,0:;GPU-zz,NVIDIA,5,0:");
  ASSERT_OK(back);
  EXPECT_EQ(*back, (CardUses{{0, 10, 0}}));
  EXPECT_FALSE(DecodeVgpuIds(cards, "GPU-a,NVIDIA,ten,0:").ok());
  EXPECT_OK(DecodeVgpuIds(cards, ""));
}

TEST(GpuCardsTest, GpuShareMemoryAndNumber) {
  // 16000 MiB over 2 cards; card 1 unhealthy in the second layout.
  GpuCards cards = GpuCards::Uniform(2, 16000, "");
  ASSERT_EQ(cards.cards().size(), 2u);
  EXPECT_EQ(cards.cards()[1].memory, 8000);
  CardUses uses;
  std::string reason;
  ASSERT_TRUE(FitShareMemory(cards, 6000, &uses, &reason));
  EXPECT_EQ(uses, (CardUses{{0, 6000, 0}}));
  cards.Add(uses);
  ASSERT_TRUE(FitShareMemory(cards, 6000, &uses, &reason));
  EXPECT_EQ(uses, (CardUses{{1, 6000, 0}}));
  cards.Add(uses);
  EXPECT_FALSE(FitShareMemory(cards, 4000, &uses, &reason));
  EXPECT_EQ(reason, "insufficient GPU share: no GPU card has 4000 MiB free");
  EXPECT_FALSE(FitShareNumber(cards, 1, &uses, &reason));
  EXPECT_EQ(reason, "insufficient GPU share: fewer than 1 idle GPU cards");

  GpuCards sick = GpuCards::Uniform(3, 30000, "1,x");
  ASSERT_EQ(sick.cards().size(), 2u);
  ASSERT_TRUE(FitShareNumber(sick, 2, &uses, &reason));
  EXPECT_EQ(EncodeGpuIndex(sick, uses), "0,2");
  auto back = DecodeGpuIndex(sick, "2", 500);
  ASSERT_OK(back);
  EXPECT_EQ(*back, (CardUses{{1, 500, 0}}));
  EXPECT_FALSE(DecodeGpuIndex(sick, "two", 0).ok());
}

Status FactoryError(std::map<std::string, std::string> args) {
  Arguments a("plugin deviceshare");
  for (auto& [k, v] : args) a.Set(k, v);
  auto p = NewDeviceSharePlugin(a);
  return p.ok() ? Status::Ok() : p.status();
}

TEST(DeviceSharePluginTest, ArgumentErrorsNameTheArgument) {
  EXPECT_EQ(FactoryError({{"deviceshare.VGPUEnable", "maybe"}}).message(),
            "plugin deviceshare: arguments.deviceshare.VGPUEnable: expected true or false, got "
            "\"maybe\"");
  EXPECT_EQ(FactoryError({{"deviceshare.ScheduleWeight", "heavy"}}).message(),
            "plugin deviceshare: arguments.deviceshare.ScheduleWeight: expected an integer, got "
            "\"heavy\"");
  EXPECT_EQ(FactoryError({{"deviceshare.SchedulePolicy", "pack"}}).message(),
            "plugin deviceshare: arguments.deviceshare.SchedulePolicy: expected \"binpack\" or "
            "\"spread\", got \"pack\"");
  EXPECT_NE(FactoryError(
                {{"deviceshare.GPUSharingEnable", "true"}, {"deviceshare.GPUNumberEnable", "true"}})
                .message()
                .find("cannot both be true"),
            std::string::npos);
  EXPECT_NE(
      FactoryError({{"deviceshare.GPUSharingEnable", "true"}, {"deviceshare.VGPUEnable", "true"}})
          .message()
          .find("gpu-share and vgpu can't be used together"),
      std::string::npos);
  // Unknown arguments are ignored (with a warning on stderr), as in Volcano.
  EXPECT_OK(FactoryError({{"deviceshare.Unknown", "1"}, {"deviceshare.VGPUEnable", "true"}}));
}

constexpr char kConf[] = R"(
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: deviceshare
    arguments: {deviceshare.VGPUEnable: true}
)";

// The bind carries the cards the pod got (Volcano's annotations), and two pods
// placed in one session see each other's cards.
constexpr char kTwoPods[] = R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  annotations: {volcano.sh/node-vgpu-register: "GPU-a,10,8000,NVIDIA-A10,true:GPU-b,10,8000,NVIDIA-A10,true:"}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10", volcano.sh/vgpu-number: "20"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec: {minMember: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec:
  schedulerName: volcano
  containers: [{name: c, resources: {limits: {volcano.sh/vgpu-number: 1, volcano.sh/vgpu-memory: 5000}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec:
  schedulerName: volcano
  containers: [{name: c, resources: {limits: {volcano.sh/vgpu-number: 1, volcano.sh/vgpu-memory: 5000}}}]
)";

TEST(DeviceSharePluginTest, BindCarriesTheAssignedCards) {
  testing::SessionFixture f(kTwoPods, kConf);
  f.RunActions({"enqueue", "allocate"});
  Decisions d = f.Close();
  ASSERT_EQ(d.binds.size(), 2u);
  std::map<std::string, std::string> ids;
  for (const BindDecision& b : d.binds) {
    ids[b.pod] = b.annotations.at("volcano.sh/vgpu-ids-new");
    EXPECT_EQ(b.annotations.at("volcano.sh/vgpu-node"), "n1");
  }
  EXPECT_EQ(ids["default/p1"], "GPU-b,NVIDIA,5000,0:");
  EXPECT_EQ(ids["default/p2"], "GPU-a,NVIDIA,5000,0:");
  // vgpu-memory is per card: the queue's allocation does not count it.
  EXPECT_EQ(d.queue_allocated.at("default").ToString().find("vgpu-memory"), std::string::npos);
}

// `basalt schedule` and `basalt simulate` write the cards onto the bound pod,
// where the next session reads them.
TEST(DeviceSharePluginTest, CardsAreWrittenOntoTheBoundPod) {
  ClusterState state;
  ClusterObjects objs;
  ASSERT_OK(DecodeText(kTwoPods, "c.yaml", &objs));
  ASSERT_OK(state.AddAll(std::move(objs)));
  auto conf = ParseSchedulerConfig(kConf, "s.conf", {}, {});
  ASSERT_OK(conf);
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  CycleRunner runner(state, *conf, plugins, actions, SessionOptions());
  ASSERT_OK(runner.Init());
  runner.SyncControllers();
  ASSERT_OK(runner.RunCycle(false));
  runner.WorldStep();
  const Pod* p1 = state.FindPod("default/p1");
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(p1->phase, "Running");
  EXPECT_EQ(p1->meta.annotations.at("volcano.sh/vgpu-ids-new"), "GPU-b,NVIDIA,5000,0:");
  EXPECT_EQ(state.FindPod("default/p2")->meta.annotations.at("volcano.sh/vgpu-ids-new"),
            "GPU-a,NVIDIA,5000,0:");
}

// `basalt validate --conf` names the argument's line, the plugin entry and the
// argument; a valid configuration passes.
TEST(DeviceSharePluginTest, ValidateReportsArgumentsWithTheirPath) {
  char dir[] = "/tmp/basalt-deviceshare-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string bad = std::string(dir) + "/bad.conf", good = std::string(dir) + "/good.conf";
  std::ofstream(bad)
      << "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n"
         "  - name: predicates\n  - name: deviceshare\n    arguments:\n"
         "      deviceshare.VGPUEnable: maybe\n";
  std::ofstream(good) << kConf;
  std::ostringstream out, err;
  EXPECT_EQ(RunValidate({}, bad, out, err), 2);
  EXPECT_EQ(out.str(),
            bad +
                ":9: tiers[1].plugins[1]: plugin deviceshare: arguments.deviceshare.VGPUEnable: "
                "expected true or false, got \"maybe\"\n");
  EXPECT_EQ(err.str(), "basalt: 1 problem found in the scheduler configuration\n");
  std::ostringstream out2, err2;
  EXPECT_EQ(RunValidate({}, good, out2, err2), 0) << err2.str();
  EXPECT_EQ(out2.str(), "ok: scheduler configuration " + good + " valid\n");
  std::remove(bad.c_str());
  std::remove(good.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace basalt
