// The FGD reproduction mode (docs/fgd.md): per-GPU accounting, the
// fragmentation measure, each policy's score on tiny hand-made nodes, workload
// inflation, and a small end-to-end run on a slice of the openb trace.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/fgd/cluster.h"
#include "sim/fgd/experiment.h"
#include "sim/fgd/fragmentation.h"
#include "sim/fgd/policy.h"
#include "sim/fgd/report.h"
#include "sim/fgd/trace.h"
#include "testing.h"

namespace basalt::fgd {
namespace {

NodeState Node(int gpus, std::vector<int> left = {}, int64_t cpu = 64000, int64_t memory = 262144,
               int model = 0) {
  NodeState n;
  n.cpu_left = cpu;
  n.memory_left = memory;
  n.gpus = gpus;
  n.model = gpus > 0 ? model : -1;
  for (int g = 0; g < gpus; ++g) {
    n.gpu_left[static_cast<size_t>(g)] =
        g < static_cast<int>(left.size()) ? left[static_cast<size_t>(g)] : 1000;
  }
  return n;
}

PodSpec Pod(int num_gpu, int gpu_milli, int64_t cpu = 1000, int64_t memory = 1024,
            uint32_t models = 0) {
  PodSpec p;
  p.name = "p";
  p.cpu_milli = cpu;
  p.memory_mib = memory;
  p.num_gpu = num_gpu;
  p.gpu_milli = gpu_milli;
  p.models = models;
  return p;
}

// A meter over hand-written shapes, for one GPU model.
FragmentationMeter Meter(std::vector<PodShape> shapes, int models = 1) {
  return FragmentationMeter(shapes, models);
}

PodShape Shape(int num_gpu, int gpu_milli, double weight, int64_t cpu = 1000, uint32_t models = 0) {
  PodShape s;
  s.cpu_milli = cpu;
  s.num_gpu = num_gpu;
  s.gpu_milli = gpu_milli;
  s.models = models;
  s.weight = weight;
  return s;
}

// ---- per-GPU accounting ----

TEST(FgdAccountingTest, SharingPodTakesMilliFromOneCard) {
  NodeState n = Node(2);
  Place(n, Pod(1, 300), 1);
  EXPECT_EQ(n.gpu_left[0], 1000);
  EXPECT_EQ(n.gpu_left[1], 700);
  EXPECT_EQ(n.cpu_left, 63000);
  EXPECT_EQ(n.memory_left, 262144 - 1024);
  EXPECT_EQ(n.GpuLeftTotal(), 1700);
  EXPECT_EQ(n.pods_by_tag[0], 1);  // tag 0: sharing
}

TEST(FgdAccountingTest, WholeCardPodsTakeLowestFreeCards) {
  NodeState n = Node(4, {1000, 400, 1000, 1000});
  ASSERT_TRUE(Fits(n, Pod(2, 1000)));
  Place(n, Pod(2, 1000), -1);
  // Card 1 is partly used, so the two whole cards are 0 and 2.
  EXPECT_EQ(n.gpu_left[0], 0);
  EXPECT_EQ(n.gpu_left[1], 400);
  EXPECT_EQ(n.gpu_left[2], 0);
  EXPECT_EQ(n.gpu_left[3], 1000);
  EXPECT_EQ(n.pods_by_tag[2], 1);
  // One whole card is left; the 400 free milli do not add up to another.
  EXPECT_TRUE(Fits(n, Pod(1, 1000)));
  EXPECT_FALSE(Fits(n, Pod(2, 1000)));
}

TEST(FgdAccountingTest, SharingPodNeedsOneCardWithEnoughFree) {
  // 1,200 milli free in total, but no single card has 700.
  NodeState n = Node(2, {600, 600});
  EXPECT_FALSE(Fits(n, Pod(1, 700)));
  EXPECT_TRUE(Fits(n, Pod(1, 600)));
}

TEST(FgdAccountingTest, ModelCpuAndMemoryAreRespected) {
  NodeState t4 = Node(2, {}, 8000, 16384, /*model=*/1);
  EXPECT_FALSE(Fits(t4, Pod(1, 1000, 1000, 1024, /*models=*/0b001)));  // model 0 only
  EXPECT_TRUE(Fits(t4, Pod(1, 1000, 1000, 1024, /*models=*/0b011)));   // model 0 or 1
  EXPECT_FALSE(Fits(t4, Pod(1, 500, 9000)));                           // CPU
  EXPECT_FALSE(Fits(t4, Pod(0, 0, 1000, 20000)));                      // memory
  EXPECT_TRUE(Fits(t4, Pod(0, 0, 8000, 16384)));                       // exactly full
  EXPECT_FALSE(Fits(Node(0), Pod(1, 100)));                            // no GPUs
}

TEST(FgdAccountingTest, BestFitCardIsTheFullestThatFitsThenTheLowestIndex) {
  EXPECT_EQ(BestFitCard(Node(4, {1000, 300, 500, 500}), 400), 2);
  EXPECT_EQ(BestFitCard(Node(4, {1000, 300, 500, 500}), 600), 0);
  EXPECT_EQ(BestFitCard(Node(2, {100, 200}), 300), -1);
}

TEST(FgdAccountingTest, ClusterKeepsAllocatedTotal) {
  std::vector<NodeSpec> specs(2);
  specs[0] = {"a", 8000, 8192, 2, 0};
  specs[1] = {"b", 8000, 8192, 0, -1};
  Cluster c(specs);
  EXPECT_EQ(c.gpu_capacity_milli(), 2000);
  c.Place(0, Pod(1, 250), 0);
  c.Place(0, Pod(1, 1000), -1);
  c.Place(1, Pod(0, 0), -1);
  EXPECT_EQ(c.gpu_allocated_milli(), 1250);
  EXPECT_EQ(c.node(0).gpu_left[0], 750);
  EXPECT_EQ(c.node(0).gpu_left[1], 0);
}

// ---- trace parsing ----

TEST(FgdTraceTest, ParsesNodesPodsAndModelLists) {
  Trace t;
  ASSERT_OK(
      ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nn0,96000,786432,8,G2\nn1,32000,1024,0,\n",
                    "nodes.csv", t));
  ASSERT_OK(
      ParsePodList("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                   "p0,1000,10,1,500,T4|G2\np1,2000,10,2,1000,\np2,3000,10,0,0,\n",
                   "pods.csv", t));
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[0].model, 0);
  EXPECT_EQ(t.nodes[1].model, -1);
  EXPECT_EQ(t.GpuCapacityMilli(), 8000);
  ASSERT_EQ(t.models.size(), 2u);  // G2 from the nodes, T4 from the pod
  EXPECT_EQ(t.pods[0].models, 0b11u);
  EXPECT_TRUE(t.pods[0].MayUseModel(0));
  EXPECT_EQ(t.pods[1].models, 0u);
  EXPECT_TRUE(t.pods[0].SharesGpu());
  EXPECT_EQ(t.pods[1].TotalGpuMilli(), 2000);
}

TEST(FgdTraceTest, BadRowsNameFileRowAndColumn) {
  Trace t;
  Status st = ParsePodList("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,2,500\n",
                           "pods.csv", t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("pods.csv:row 2: gpu_milli:"), std::string::npos) << st.message();

  st = ParsePodList("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,x,10,1,500\n", "pods.csv", t);
  EXPECT_NE(st.message().find("pods.csv:row 2: cpu_milli: \"x\" is not an integer"),
            std::string::npos)
      << st.message();

  st = ParsePodList("name,cpu_milli,memory_mib,num_gpu\np0,1,1,1\n", "pods.csv", t);
  EXPECT_NE(st.message().find("missing column \"gpu_milli\""), std::string::npos) << st.message();

  st = ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,10,9,G2\n", "nodes.csv", t);
  EXPECT_NE(st.message().find("nodes.csv:row 2: gpu: 9 is outside [0, 8]"), std::string::npos)
      << st.message();

  st = ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,10,2,\n", "nodes.csv", t);
  EXPECT_NE(st.message().find("nodes.csv:row 2: model:"), std::string::npos) << st.message();

  EXPECT_FALSE(LoadTrace("/nonexistent/nodes.csv", "/nonexistent/pods.csv").ok());
}

// ---- the fragmentation measure ----

TEST(FgdFragmentTest, CountsIdleMilliEachShapeCannotUse) {
  // Shapes: half are 0.5-GPU pods, half 1-GPU pods; node has cards 1000 and 300.
  auto meter = Meter({Shape(1, 500, 0.5), Shape(1, 1000, 0.5)});
  // 0.5-GPU pods fit (card 0): only card 1's 300 is lost -> 0.5 * 300.
  // 1-GPU pods fit (card 0): card 1's 300 is lost       -> 0.5 * 300.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(Node(2, {1000, 300})), 300.0);
  // Cards 400 and 300: neither shape fits, all 700 idle milli are fragment.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(Node(2, {400, 300})), 700.0);
  // A full node has no idle GPU, hence no fragment.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(Node(2, {0, 0})), 0.0);
}

TEST(FgdFragmentTest, CpuShapesModelsAndCpuShortageCountAllIdle) {
  auto meter = Meter(
      {Shape(0, 0, 0.25), Shape(1, 500, 0.25, 1000, /*models=*/0b10), Shape(1, 500, 0.5, 4000)}, 2);
  // Node of model 0 with 2,000 idle milli and 8 cores: the CPU shape (0.25)
  // and the model-1 shape (0.25) count all 2,000; the last shape fits, 0 lost.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(Node(2, {}, 8000)), 1000.0);
  // Same node with 3 cores left: the last shape lacks CPU, so it counts all.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(Node(2, {}, 3000)), 2000.0);
}

TEST(FgdFragmentTest, MemoryCountsOnlyForMemoryAwareMeters) {
  PodShape s = Shape(1, 500, 1.0);
  s.memory_mib = 4096;
  NodeState short_of_memory = Node(2, {}, 64000, /*memory=*/2048);
  // The paper's measure ignores memory: the shape fits, nothing is lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter({s}, 1).NodeFragment(short_of_memory), 0.0);
  // FGD-Mem's: the shape cannot fit for memory, both idle cards are lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter({s}, 1, /*count_memory=*/true).NodeFragment(short_of_memory),
                   2000.0);
}

TEST(FgdFragmentTest, UnitCountingMetersCountCardsThatCpuOrMemoryWouldStrand) {
  const bool memory = true, units = true;
  // Whole-GPU shape needing 8 cores; node with 4 idle cards and 16 cores.
  std::vector<PodShape> whole = {Shape(1, 1000, 1.0, 8000)};
  NodeState four_cards = Node(4, {}, 16000);
  // The paper's measure: one unit fits, so no card is lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter(whole, 1).NodeFragment(four_cards), 0.0);
  // Counting units: CPU for 2 units only, so 2 of the 4 cards are lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter(whole, 1, !memory, units).NodeFragment(four_cards), 2000.0);
  // A 2-GPU shape on 3 idle cards: one unit, the third card is lost.
  std::vector<PodShape> pairs = {Shape(2, 1000, 1.0, 1000)};
  EXPECT_DOUBLE_EQ(FragmentationMeter(pairs, 1, !memory, units).NodeFragment(Node(3)), 1000.0);
  EXPECT_DOUBLE_EQ(FragmentationMeter(pairs, 1).NodeFragment(Node(3)), 0.0);
  // Sharing shape (0.5 GPU, 4 cores) on cards {1000, 700, 600, 200} with 8
  // cores: 3 cards could host it, CPU allows 2 units, which take the two
  // freest cards (1,700 milli); 800 of the 2,500 idle milli are lost.
  std::vector<PodShape> half = {Shape(1, 500, 1.0, 4000)};
  NodeState mixed = Node(4, {1000, 700, 600, 200}, 8000);
  EXPECT_DOUBLE_EQ(FragmentationMeter(half, 1, !memory, units).NodeFragment(mixed), 800.0);
  EXPECT_DOUBLE_EQ(FragmentationMeter(half, 1).NodeFragment(mixed), 200.0);
  // Memory limits the units too when the meter counts it: 1 unit of 4 GiB.
  half[0].memory_mib = 4096;
  NodeState short_of_memory = Node(4, {1000, 700, 600, 200}, 64000, /*memory=*/6000);
  EXPECT_DOUBLE_EQ(FragmentationMeter(half, 1, memory, units).NodeFragment(short_of_memory),
                   1500.0);
  EXPECT_DOUBLE_EQ(FragmentationMeter(half, 1, !memory, units).NodeFragment(short_of_memory),
                   200.0);
}

TEST(FgdFragmentTest, TargetWorkloadCanWeighShapesByGpuDemand) {
  std::vector<PodSpec> pods;
  for (int k = 0; k < 3; ++k) pods.push_back(Pod(1, 500));  // 3 pods x 0.5 GPU
  pods.push_back(Pod(2, 1000));                             // 1 pod x 2 GPUs
  pods.push_back(Pod(0, 0));                                // no GPU
  auto by_count = TargetWorkload(pods, 100.0);
  auto by_demand = TargetWorkload(pods, 100.0, /*by_gpu_demand=*/true);
  ASSERT_EQ(by_count.size(), 3u);
  ASSERT_EQ(by_demand.size(), 3u);
  EXPECT_DOUBLE_EQ(by_count[0].weight, 0.6);  // the sharing shape, most common
  // By demand: 1,500 and 2,000 milli of 3,500; the CPU-only shape weighs 0.
  EXPECT_DOUBLE_EQ(by_demand[0].weight, 1500.0 / 3500.0);
  double cpu_only = -1;
  for (const auto& s : by_demand) {
    if (s.num_gpu == 0) cpu_only = s.weight;
  }
  EXPECT_DOUBLE_EQ(cpu_only, 0.0);
}

TEST(FgdFragmentTest, TargetWorkloadKeepsCommonShapesInStepsOfTen) {
  std::vector<PodSpec> pods;
  // 12 distinct shapes: shape i appears 100 - i times (1,134 pods).
  for (int i = 0; i < 12; ++i) {
    for (int k = 0; k < 100 - i; ++k) pods.push_back(Pod(1, 100 + 10 * i));
  }
  // 95% of 1,134 = 1,077.3: the first 10 shapes hold 955 pods, so a second
  // step adds the remaining two.
  auto all = TargetWorkload(pods, 95.0);
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(all[0].gpu_milli, 100);
  double sum = 0;
  for (const auto& s : all) sum += s.weight;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  // 80% = 907.2 pods: one step of 10 shapes (955 pods) is enough.
  auto common = TargetWorkload(pods, 80.0);
  ASSERT_EQ(common.size(), 10u);
  EXPECT_DOUBLE_EQ(common[0].weight, 100.0 / 955.0);
}

// ---- each policy's score ----

TEST(FgdPolicyTest, DotProductPrefersTheLeastAlignedNode) {
  // Free (64 of 128 cores, 2 of 8 GPUs) = (0.5, 0.25); request (8 cores, 1
  // GPU) = (0.0625, 0.125); product (0.03125 + 0.03125) / 2 = 0.03125;
  // score 100 * (1 - 0.03125) = 96.875 -> 96.
  EXPECT_EQ(DotProductScore(Node(2, {}, 64000), Pod(1, 1000, 8000)), 96);
  // An emptier node aligns more with the request, so it scores lower.
  EXPECT_LT(DotProductScore(Node(8, {}, 128000), Pod(1, 1000, 8000)), 96);
}

TEST(FgdPolicyTest, GpuClusteringBandsByKindOfPodsOnTheNode) {
  NodeState shared = Node(8, {500});  // one sharing pod so far
  shared.pods_by_tag[0] = 1;
  // Same kind only: 75 + 25 * (8000 - 7500) / 8000 = 75 + 1.
  EXPECT_EQ(GpuClusteringScore(shared, Pod(1, 300)), 76);
  // Another kind: the node hosts kinds, not this one: 0 + 1.
  EXPECT_EQ(GpuClusteringScore(shared, Pod(1, 1000)), 1);
  // Idle 2-GPU node: 25 + 25 * 6000 / 8000 = 25 + 18.
  EXPECT_EQ(GpuClusteringScore(Node(2), Pod(1, 1000)), 43);
  // Mixed node hosting this kind among others: 50 + fill.
  shared.pods_by_tag[1] = 1;
  EXPECT_EQ(GpuClusteringScore(shared, Pod(1, 300)), 51);
  EXPECT_EQ(GpuClusteringScore(shared, Pod(0, 0)), 0);
}

TEST(FgdPolicyTest, GpuPackingPrefersUsedCardsThenUsedNodesThenIdleNodes) {
  // A used card: 100 - (50% free on it) / 10 = 95.
  EXPECT_EQ(GpuPackingScore(Node(8, {500}), Pod(1, 300)), 95);
  // A whole card on a used node: 50 - 1.
  EXPECT_EQ(GpuPackingScore(Node(8, {500}), Pod(1, 1000)), 49);
  // Idle nodes: 33 - free cards, but at least the free cards.
  EXPECT_EQ(GpuPackingScore(Node(8), Pod(1, 300)), 25);
  EXPECT_EQ(GpuPackingScore(Node(2), Pod(1, 300)), 31);
  EXPECT_EQ(GpuPackingScore(Node(8), Pod(0, 0)), 0);
}

TEST(FgdPolicyTest, BestFitScoresWhatWouldBeLeft) {
  // Left: 32 of 128 cores (0.25) and 1 of 8 GPUs (0.125); waste 0.1875 -> 81.
  EXPECT_EQ(BestFitScore(Node(2, {}, 64000), Pod(1, 1000, 32000)), 81);
  EXPECT_GT(BestFitScore(Node(1, {}, 32000), Pod(1, 1000, 32000)), 81);
}

TEST(FgdPolicyTest, FgdScoresTheFragmentDecreaseAndPicksTheCard) {
  auto meter = Meter({Shape(1, 500, 1.0)});
  int card = -2;
  // Cards {1000, 1000}; a 0.6-GPU pod leaves 400 that no 0.5 pod can use:
  // F goes 0 -> 400; sigmoid(-0.4) * 100 = 40.1 -> 40. Both cards are equal,
  // the first one wins.
  EXPECT_EQ(FgdScore(meter, Node(2), Pod(1, 600), &card), 40);
  EXPECT_EQ(card, 0);
  // Cards {600, 1000}, a 0.5 pod: card 0 would leave 100 unusable (score
  // sigmoid(-0.1) -> 47), card 1 leaves 500, still usable (score 50).
  EXPECT_EQ(FgdScore(meter, Node(2, {600, 1000}), Pod(1, 500), &card), 50);
  EXPECT_EQ(card, 1);
  // Whole-card pods: F unchanged -> sigmoid(0) = 50.
  EXPECT_EQ(FgdScore(meter, Node(2), Pod(1, 1000), &card), 50);
}

Cluster TwoNodes(std::vector<int> left0, std::vector<int> left1) {
  std::vector<NodeSpec> specs = {{"a", 64000, 262144, 2, 0}, {"b", 64000, 262144, 2, 0}};
  Cluster c(specs);
  // Reach the wanted free milli by placing sharing pods.
  for (int g = 0; g < 2; ++g) {
    if (left0[static_cast<size_t>(g)] < 1000)
      c.Place(0, Pod(1, 1000 - left0[static_cast<size_t>(g)], 0, 0), g);
    if (left1[static_cast<size_t>(g)] < 1000)
      c.Place(1, Pod(1, 1000 - left1[static_cast<size_t>(g)], 0, 0), g);
  }
  return c;
}

TEST(FgdPolicyTest, SelectionBreaksTiesTowardsTheLowestNode) {
  auto meter = Meter({Shape(1, 500, 1.0)});
  Rng rng(1);
  Cluster c = TwoNodes({1000, 1000}, {1000, 1000});
  for (const auto& name : PolicyNames()) {
    if (name == "Random") continue;
    auto policy = MakePolicy(name, rng, meter);
    ASSERT_OK(policy);
    EXPECT_EQ((*policy)->SelectNode(c, {0, 1}, Pod(1, 500)), 0u) << name;
  }
}

TEST(FgdPolicyTest, FgdAndFgdMemAvoidLeavingUnusableSlivers) {
  auto meter = Meter({Shape(1, 500, 1.0)});
  Rng rng(1);
  // Node a: cards {600, 0}; node b: cards {500, 1000}. A 0.5 pod on a leaves
  // a 100 sliver no pod can use (F: 0 -> 100, score 47); on b it fills a card
  // exactly (F stays 0, score 50).
  Cluster c = TwoNodes({600, 0}, {500, 1000});
  for (const char* name : {"FGD", "FGD-Mem", "FGD-Units"}) {
    auto policy = MakePolicy(name, rng, meter);
    ASSERT_OK(policy);
    EXPECT_EQ((*policy)->SelectNode(c, {0, 1}, Pod(1, 500)), 1u) << name;
  }
  // BestFit only sees that a would have less left (100 vs 1,000 milli).
  auto best_fit = MakeBestFitPolicy();
  EXPECT_EQ(best_fit->SelectNode(c, {0, 1}, Pod(1, 500)), 0u);
}

TEST(FgdPolicyTest, FgdUnitsKeepsCpuForTheCardsOfANode) {
  // Every GPU pod asks one card and 8 cores. Node a: 2 cards, 16 cores; node
  // b: 2 cards, 64 cores. A CPU-only pod of 8 cores leaves one unit's CPU on a,
  // which the paper's measure (one unit still fits) does not see: FGD ties and
  // takes a. FGD-Units sees a's second card stranded and takes b.
  auto meter = Meter({Shape(1, 1000, 1.0, 8000)});
  std::vector<NodeSpec> specs = {{"a", 16000, 262144, 2, 0}, {"b", 64000, 262144, 2, 0}};
  Cluster c(specs);
  Rng rng(1);
  auto fgd = MakePolicy("FGD", rng, meter);
  auto units = MakePolicy("FGD-Units", rng, meter);
  ASSERT_OK(fgd);
  ASSERT_OK(units);
  EXPECT_EQ((*fgd)->SelectNode(c, {0, 1}, Pod(0, 0, 8000)), 0u);
  EXPECT_EQ((*units)->SelectNode(c, {0, 1}, Pod(0, 0, 8000)), 1u);
}

TEST(FgdPolicyTest, RandomIsUniformAndReplaysItsSeed) {
  Rng a(7), b(7);
  auto pa = MakeRandomPolicy(a);
  auto pb = MakeRandomPolicy(b);
  Cluster c = TwoNodes({1000, 1000}, {1000, 1000});
  std::vector<int> picks(2, 0);
  for (int i = 0; i < 2000; ++i) {
    size_t x = pa->SelectNode(c, {0, 1}, Pod(1, 500));
    EXPECT_EQ(x, pb->SelectNode(c, {0, 1}, Pod(1, 500)));
    ++picks[x];
  }
  EXPECT_GT(picks[0], 850);
  EXPECT_GT(picks[1], 850);
  EXPECT_FALSE(MakePolicy("Tetris", a, Meter({})).ok());
}

// ---- the experiment ----

TEST(FgdExperimentTest, InflationReachesTheTargetAndKeepsEveryTracePod) {
  std::vector<PodSpec> pods = {Pod(1, 1000), Pod(1, 500), Pod(0, 0), Pod(2, 1000)};
  auto order = InflatedOrder(pods, /*capacity=*/10000, 1.3, 42);
  int64_t total = 0;
  std::vector<int> seen(pods.size(), 0);
  for (int i : order) {
    total += pods[static_cast<size_t>(i)].TotalGpuMilli();
    ++seen[static_cast<size_t>(i)];
  }
  EXPECT_GE(total, 13000);
  for (int s : seen) EXPECT_GE(s, 1);
  EXPECT_EQ(order, InflatedOrder(pods, 10000, 1.3, 42));
  EXPECT_NE(order, InflatedOrder(pods, 10000, 1.3, 43));
}

const std::string kOpenb =
    std::string(BASALT_SOURCE_DIR) + "/../shared/traces/alibaba-openb-gpu-v2023";

// The first `nodes` GPU nodes and every `every`-th pod of the default trace.
Trace OpenbSlice(size_t nodes, size_t every) {
  Trace t;
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto keep = [](const std::string& text, const std::function<bool(size_t)>& keep_row) {
    std::istringstream in(text);
    std::string line, out;
    for (size_t i = 0; std::getline(in, line); ++i) {
      if (i == 0 || keep_row(i)) out += line + "\n";
    }
    return out;
  };
  Status st = ParseNodeList(keep(read(kOpenb + "/csv/openb_node_list_gpu_node.csv"),
                                 [&](size_t i) { return i <= nodes; }),
                            "nodes", t);
  EXPECT_OK(st);
  st = ParsePodList(keep(read(kOpenb + "/csv/openb_pod_list_default.csv"),
                         [&](size_t i) { return i % every == 0; }),
                    "pods", t);
  EXPECT_OK(st);
  return t;
}

TEST(FgdExperimentTest, SliceOfTheTraceRunsEndToEnd) {
  if (!std::filesystem::exists(kOpenb)) GTEST_SKIP() << "openb trace not present";
  // The slice's nodes are openb-node-0000..0099 (P100/T4/G2 mixes); the pods
  // are every 8th of the default trace (~1,000).
  Trace t = OpenbSlice(100, 8);
  ExperimentConfig config;
  config.workload = "slice";
  config.policies = {"Random", "BestFit", "FGD", "FGD-Mem"};
  config.seeds = {42, 43};
  auto r = RunExperiment(t, config);
  ASSERT_OK(r);
  const auto& s = r->summary;
  ASSERT_EQ(r->runs.size(), 8u);
  for (const auto& run : r->runs) {
    ASSERT_EQ(run.unallocated_pct.size(), 131u);
    // Nothing departs: allocation never falls as load arrives, and it cannot
    // exceed what arrived.
    for (size_t k = 1; k < run.unallocated_pct.size(); ++k) {
      EXPECT_LE(run.unallocated_pct[k], run.unallocated_pct[k - 1] + 1e-9)
          << run.policy << " " << k;
    }
    EXPECT_GE(run.unallocated_pct[50], 49.0);
    EXPECT_GT(run.failed, 0);  // 130% of capacity cannot all fit
  }
  for (const char* p : {"Random", "BestFit", "FGD", "FGD-Mem"}) {
    ASSERT_TRUE(s["policies"].contains(p)) << p;
    EXPECT_EQ(s["policies"][p]["count"].get<int>(), 2);
    EXPECT_EQ(s["policies"][p]["curve"].size(), 51u);  // 80..130
  }
  // Deterministic per seed.
  auto again = RunExperiment(t, config);
  ASSERT_OK(again);
  EXPECT_EQ(again->runs[5].unallocated_pct, r->runs[5].unallocated_pct);
}

int RunCli(const std::string& args, std::string* out, std::string* err) {
  const auto dir = std::filesystem::temp_directory_path() / "basalt_fgd_cli";
  std::filesystem::create_directories(dir);
  const std::string cmd = std::string(BASALT_BINARY) + " fgd " + args + " >" +
                          (dir / "out").string() + " 2>" + (dir / "err").string();
  int rc = WEXITSTATUS(std::system(cmd.c_str()));
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  *out = read(dir / "out");
  *err = read(dir / "err");
  return rc;
}

TEST(FgdCliTest, BadInputExitsTwoWithAClearMessage) {
  std::string out, err;
  EXPECT_EQ(RunCli("--trace /nonexistent", &out, &err), 2);
  EXPECT_NE(err.find("--trace is not a folder"), std::string::npos) << err;
  if (!std::filesystem::exists(kOpenb)) GTEST_SKIP() << "openb trace not present";
  EXPECT_EQ(RunCli("--trace " + kOpenb + " --policies FGD,Tetris --seeds 1", &out, &err), 2);
  EXPECT_NE(err.find("unknown policy \"Tetris\""), std::string::npos) << err;
  const auto bad = std::filesystem::temp_directory_path() / "basalt_fgd_bad_pods.csv";
  std::ofstream(bad) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,1,1500\n";
  EXPECT_EQ(RunCli("--trace " + kOpenb + " --pods " + bad.string() + " --seeds 1", &out, &err), 2);
  EXPECT_NE(err.find("basalt_fgd_bad_pods.csv:row 2: gpu_milli: 1500 is outside [0, 1000]"),
            std::string::npos)
      << err;
}

TEST(FgdCliTest, SmallRunPrintsOneJsonObject) {
  if (!std::filesystem::exists(kOpenb)) GTEST_SKIP() << "openb trace not present";
  // The default pod list on the first 60 GPU nodes: the trace alone is far
  // more than 130% of their capacity, so no copies are added and the loads
  // past 130% are simply not recorded.
  const auto dir = std::filesystem::temp_directory_path() / "basalt_fgd_small";
  std::filesystem::create_directories(dir);
  {
    std::ifstream in(kOpenb + "/csv/openb_node_list_gpu_node.csv");
    std::ofstream nodes(dir / "nodes.csv");
    std::string line;
    for (int i = 0; i <= 60 && std::getline(in, line); ++i) nodes << line << "\n";
  }
  std::string out, err;
  ASSERT_EQ(RunCli("--trace " + kOpenb + " --nodes " + (dir / "nodes.csv").string() +
                       " --pods openb_pod_list_default --policies BestFit,FGD --seeds 2 --out " +
                       (dir / "out").string(),
                   &out, &err),
            0)
      << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["workload"], "openb_pod_list_default");
  EXPECT_EQ(j["nodes"], 60);
  EXPECT_EQ(j["policies"]["FGD"]["count"], 2);
  EXPECT_TRUE(j["policies"]["FGD"].contains("published"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "curves.csv"));
  // The human table is on stderr (stdout parsed as JSON above); no progress
  // line off a terminal.
  EXPECT_NE(err.find("fgd: openb_pod_list_default, 2 seeds: GPUs at 100% arrived load"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("  policy   allocated"), std::string::npos) << err;
  EXPECT_NE(err.find("  FGD "), std::string::npos) << err;
  EXPECT_EQ(err.find("fgd: run"), std::string::npos) << err;
  // The report: one series per policy run, and the published band of each.
  std::ifstream html_in(dir / "out" / "report.html");
  std::stringstream html;
  html << html_in.rdbuf();
  const std::string page = html.str();
  const std::string open = "<script type=\"application/json\" id=\"fgd-data\">";
  const size_t start = page.find(open);
  ASSERT_NE(start, std::string::npos);
  const size_t end = page.find("</script>", start);
  auto data = nlohmann::json::parse(page.substr(start + open.size(), end - start - open.size()));
  ASSERT_EQ(data["series"].size(), 2u);
  ASSERT_EQ(data["published"].size(), 6u);
  EXPECT_EQ(data["published"][5]["policy"], "FGD");
  EXPECT_EQ(data["published"][5]["seeds"], 10);
}

// ---- the HTML report ----

TEST(FgdReportTest, PublishedCurvesAreMeanAndSdOfTheAuthorsRuns) {
  const auto path = std::filesystem::temp_directory_path() / "basalt_fgd_allo.csv";
  std::ofstream(path) << "workload,sc_policy,tune,seed,total_gpus,79,80,81\n"
                         "w,06-FGD,1.3,42,10,1,90,94\n"
                         "w,06-FGD,1.3,43,10,1,92,96\n"
                         "other,06-FGD,1.3,42,10,1,10,10\n"
                         "w,03-GpuClustering,1.3,42,10,1,85,88\n";
  auto curves = LoadPublishedCurves(path.string(), "w", 80, 81);
  ASSERT_OK(curves);
  ASSERT_EQ(curves->size(), 2u);
  const auto& fgd = (*curves)[0];
  EXPECT_EQ(fgd.policy, "FGD");
  EXPECT_EQ(fgd.seeds, 2);
  EXPECT_EQ(fgd.arrived_pct, (std::vector<int>{80, 81}));
  // Unallocated = 100 - allocated: {10, 8} at 80%, {6, 4} at 81%.
  EXPECT_DOUBLE_EQ(fgd.mean[0], 9.0);
  EXPECT_DOUBLE_EQ(fgd.mean[1], 5.0);
  EXPECT_NEAR(fgd.sd[0], std::sqrt(2.0), 1e-3);
  EXPECT_EQ((*curves)[1].policy, "Clustering");
  EXPECT_EQ((*curves)[1].sd[0], 0.0);
  // No such file: no band; a bad number: the file, row and column.
  auto none = LoadPublishedCurves("/nonexistent/allo.csv", "w", 80, 81);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
  std::ofstream(path) << "workload,sc_policy,tune,seed,total_gpus,80\nw,06-FGD,1.3,42,10,9x\n";
  auto bad = LoadPublishedCurves(path.string(), "w", 80, 80);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("basalt_fgd_allo.csv:row 2: 80: \"9x\" is not a number"),
            std::string::npos)
      << bad.status().message();
  auto no_column = LoadPublishedCurves(path.string(), "w", 80, 81);
  ASSERT_FALSE(no_column.ok());
  EXPECT_NE(no_column.status().message().find("no column for arrived load 81"), std::string::npos);
}

TEST(FgdReportTest, PageHoldsOneSeriesPerPolicyAndThePublishedBands) {
  nlohmann::ordered_json summary;
  summary["workload"] = "w";
  for (const char* policy : {"FGD", "FGD-Units"}) {
    auto& entry = summary["policies"][policy];
    entry["mean"] = 4.5;
    entry["sd"] = 0.1;
    entry["count"] = 10;
    entry["curve"] = {{{"arrived_pct", 80}, {"unallocated_mean", 20.0}, {"unallocated_sd", 0.1}},
                      {{"arrived_pct", 81}, {"unallocated_mean", 19.0}, {"unallocated_sd", 0.2}}};
  }
  PublishedCurve band{"FGD", {80, 81}, {19.5, 18.5}, {0.3, 0.4}, 10};
  const std::string page =
      RenderFgdReport(summary, {band}, "/* lib */ var s = '</script>';", "chart.js@test");
  auto data = ReportData(summary, {band});
  EXPECT_EQ(data["arrived_pct"], nlohmann::ordered_json::parse("[80, 81]"));
  ASSERT_EQ(data["series"].size(), 2u);
  EXPECT_EQ(data["series"][1]["policy"], "FGD-Units");
  EXPECT_EQ(data["series"][1]["points"][1]["sd"], 0.2);
  ASSERT_EQ(data["published"].size(), 1u);
  EXPECT_EQ(data["published"][0]["points"][1]["mean"], 18.5);
  EXPECT_NE(page.find(data.dump()), std::string::npos);
  // The library is inlined, with "</" escaped so it cannot close its element.
  EXPECT_NE(page.find("/* lib */ var s = '<\\/script>';"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  // One canvas per policy plus the overview.
  EXPECT_NE(page.find("id=\"chart-1\""), std::string::npos);
  EXPECT_NE(page.find("id=\"chart-all\""), std::string::npos);
  // Without the library the page says so and keeps the table.
  const std::string bare = RenderFgdReport(summary, {}, "", "missing");
  EXPECT_NE(bare.find("charts library is missing"), std::string::npos);
  EXPECT_NE(bare.find("<td>FGD-Units</td>"), std::string::npos);
}

}  // namespace
}  // namespace basalt::fgd
