// The capacity-card plugin's parts that scenario files cannot show directly:
// card discovery on node objects, argument errors, the name rules of
// alternatives, and the tidal example run as a user runs it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/card_annotations.h"
#include "api/decode.h"
#include "framework/arguments.h"
#include "plugins/builtin.h"
#include "plugins/card_discovery.h"
#include "testing.h"

namespace basalt {
namespace {

Node DecodeNode(const std::string& yaml) {
  ClusterObjects objs;
  Status st = DecodeText(yaml, "node.yaml", &objs);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(objs.nodes.size(), 1u);
  return objs.nodes.empty() ? Node() : objs.nodes.front();
}

std::string Describe(const std::vector<NodeCard>& cards) {
  std::string s;
  for (const NodeCard& c : cards)
    s += c.model + "=" + std::to_string(c.milli_count) + "@" + c.resource + ";";
  return s;
}

TEST(CardDiscoveryTest, WholeCardsFromProductLabel) {
  Node n = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: h200-1
  labels: {nvidia.com/gpu.product: NVIDIA-H200, nvidia.com/gpu.count: "8", nvidia.com/gpu.memory: "143771"}
status:
  allocatable: {cpu: "96", memory: 1Ti, nvidia.com/gpu: "8", rdma/hca: "4", hugepages-1Gi: 8Gi, pods: "110"}
)");
  EXPECT_EQ(Describe(DiscoverNodeCards(n)), "NVIDIA-H200=8000@nvidia.com/gpu;");
}

TEST(CardDiscoveryTest, MigSlicesBesideWholeCards) {
  // Seven whole H200s and one split into MIG slices (mixed strategy).
  Node n = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: h200-mig
  labels:
    nvidia.com/gpu.product: NVIDIA-H200
    nvidia.com/gpu.count: "8"
    nvidia.com/gpu.memory: "143771"
    nvidia.com/mig-1g.18gb.count: "3"
    nvidia.com/mig-3g.71gb.count: "1"
status:
  allocatable: {cpu: "96", memory: 1Ti, nvidia.com/gpu: "7", nvidia.com/mig-1g.18gb: "3", nvidia.com/mig-3g.71gb: "1", pods: "110"}
)");
  EXPECT_EQ(Describe(DiscoverNodeCards(n)),
            "NVIDIA-H200=7000@nvidia.com/gpu;"
            "NVIDIA-H200/mig-1g.18gb-mixed=3000@nvidia.com/mig-1g.18gb;"
            "NVIDIA-H200/mig-3g.71gb-mixed=1000@nvidia.com/mig-3g.71gb;");
}

TEST(CardDiscoveryTest, MpsNameFromMemoryAndReplicas) {
  // 81920 MiB = 80 GiB; 4 cards x 8 replicas.
  Node n = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: a100-mps
  labels: {nvidia.com/gpu.product: NVIDIA-A100, nvidia.com/gpu.count: "4", nvidia.com/gpu.memory: "81920", nvidia.com/gpu.replicas: "8"}
status:
  allocatable: {nvidia.com/gpu.shared: "32", pods: "110"}
)");
  EXPECT_EQ(Describe(DiscoverNodeCards(n)), "NVIDIA-A100/mps-80g*1/8=32000@nvidia.com/gpu.shared;");
}

TEST(CardDiscoveryTest, MpsMemoryRoundsToNearestGiB) {
  // 24564 MiB (an RTX 4090) is 23.99 GiB: 24g.
  Node n = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: rtx-mps
  labels: {nvidia.com/gpu.product: NVIDIA-GeForce-RTX-4090, nvidia.com/gpu.memory: "24564", nvidia.com/gpu.replicas: "2"}
status:
  allocatable: {nvidia.com/gpu.shared: "16", pods: "110"}
)");
  EXPECT_EQ(Describe(DiscoverNodeCards(n)),
            "NVIDIA-GeForce-RTX-4090/mps-24g*1/2=16000@nvidia.com/gpu.shared;");
}

TEST(CardDiscoveryTest, BrokenOrMissingLabelsNeverCrash) {
  // MPS without the replicas label: no MPS model. No product label: no cards.
  Node mps = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {nvidia.com/gpu.product: NVIDIA-A100, nvidia.com/gpu.memory: "not-a-number"}
status:
  allocatable: {nvidia.com/gpu.shared: "32", nvidia.com/gpu: "1", pods: "110"}
)");
  EXPECT_EQ(Describe(DiscoverNodeCards(mps)), "NVIDIA-A100=1000@nvidia.com/gpu;");
  Node bare = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata: {name: n2}
status:
  allocatable: {nvidia.com/gpu: "8", pods: "110"}
)");
  EXPECT_TRUE(DiscoverNodeCards(bare).empty());
  Node gone = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata:
  name: n3
  labels: {nvidia.com/gpu.product: NVIDIA-H200, "/gpu.product": x, "nvidia.com/.product": y, "nvidia.com/g-pu.product": z}
status:
  allocatable: {nvidia.com/gpu: "0", pods: "110"}
)");
  EXPECT_TRUE(DiscoverNodeCards(gone).empty());
}

TEST(CardDiscoveryTest, ClusterTotalsSumPerModel) {
  Node a = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata: {name: a, labels: {nvidia.com/gpu.product: NVIDIA-H200}}
status: {allocatable: {nvidia.com/gpu: "8", nvidia.com/mig-1g.18gb: "7", pods: "110"}}
)");
  Node b = DecodeNode(R"(
apiVersion: v1
kind: Node
metadata: {name: b, labels: {nvidia.com/gpu.product: NVIDIA-H200}}
status: {allocatable: {nvidia.com/gpu: "4", pods: "110"}}
)");
  auto totals = ClusterCardTotals({&a, &b});
  EXPECT_EQ(totals["NVIDIA-H200"], 12000);
  EXPECT_EQ(totals["NVIDIA-H200/mig-1g.18gb-mixed"], 7000);
  EXPECT_EQ(totals.size(), 2u);
}

TEST(CardNameTest, ResourceToldFromName) {
  EXPECT_EQ(CardResourceFromName("NVIDIA-H200/mig-1g.18gb-mixed"), "nvidia.com/mig-1g.18gb");
  EXPECT_EQ(CardResourceFromName("NVIDIA-A100/mps-80g*1/8"), "nvidia.com/gpu.shared");
  EXPECT_EQ(CardResourceFromName("NVIDIA-A100"), "");
  EXPECT_EQ(CardResourceFromName("X/mig-mixed"), "");
  EXPECT_EQ(CardResourceFromName("X/mig--mixed"), "");
}

TEST(CardNameTest, AlternativesMustShareOneResource) {
  EXPECT_OK(ParseCardName("NVIDIA-GeForce-RTX-4090|NVIDIA-GeForce-RTX-4090-D"));
  EXPECT_OK(ParseCardName("NVIDIA-H800/mps-80g*1/2|NVIDIA-A100/mps-80g*1/8"));
  Result<std::vector<std::string>> mixed = ParseCardName("NVIDIA-A100|NVIDIA-H800/mps-80g*1/2");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("mix Kubernetes resources"), std::string::npos)
      << mixed.status().message();
  EXPECT_NE(mixed.status().message().find("nvidia.com/gpu.shared"), std::string::npos);
  Result<std::vector<std::string>> two_mig =
      ParseCardName("NVIDIA-H200/mig-1g.18gb-mixed|NVIDIA-H200/mig-2g.35gb-mixed");
  ASSERT_FALSE(two_mig.ok());
  EXPECT_NE(two_mig.status().message().find("nvidia.com/mig-2g.35gb"), std::string::npos);
  EXPECT_FALSE(ParseCardRequest(R"({"NVIDIA-A100|NVIDIA-H200/mig-1g.18gb-mixed": 2})").ok());
}

Arguments Args(std::initializer_list<std::pair<std::string, std::string>> kv) {
  Arguments a("plugin capacity-card");
  for (const auto& [k, v] : kv) a.Set(k, v);
  return a;
}

TEST(CapacityCardArgumentsTest, SeedArgumentsAccepted) {
  EXPECT_OK(NewCapacityCardPlugin(Args({{"overCommitFactor", "2"},
                                        {"cardUnlimitedCpuMemory", "true"},
                                        {"nodeOrderWeight", "1.5"},
                                        {"podOwnerReferenceToServiceType.ReplicaSet", "inference"},
                                        {"podOwnerReferenceToServiceType.Job", "training"}})));
}

TEST(CapacityCardArgumentsTest, BadArgumentsNamed) {
  struct Case {
    std::initializer_list<std::pair<std::string, std::string>> args;
    const char* want;
  };
  const Case cases[] = {
      {{{"nodeOrderWeight", "0"}}, "arguments.nodeOrderWeight: must be positive"},
      {{{"nodeOrderWeight", "heavy"}}, "nodeOrderWeight"},
      {{{"overCommitFactor", "-1"}}, "arguments.overCommitFactor: must be positive"},
      {{{"cardUnlimitedCpuMemory", "maybe"}}, "cardUnlimitedCpuMemory"},
      {{{"podOwnerReferenceToServiceType.ReplicaSet", "online"}},
       "podOwnerReferenceToServiceType.ReplicaSet: expected inference or training, got \"online\""},
      {{{"podOwnerReferenceToServiceType", "ReplicaSet"}}, "expected a map of owner kind"},
  };
  for (const Case& c : cases) {
    auto p = NewCapacityCardPlugin(Args(c.args));
    ASSERT_FALSE(p.ok()) << c.want;
    EXPECT_NE(p.status().message().find(c.want), std::string::npos) << p.status().message();
    EXPECT_NE(p.status().message().find("plugin capacity-card"), std::string::npos)
        << p.status().message();
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The scheduler configuration of examples/tidal (scheduler.conf), verbatim.
constexpr char kSeed000Conf[] = R"(actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
    enableReclaimable: false
  - name: conformance
    enableReclaimable: false
- plugins:
  - name: predicates
  - name: capacity-card
    arguments:
      overCommitFactor: 2
      cardUnlimitedCpuMemory: true
      podOwnerReferenceToServiceType:
        ReplicaSet: inference
        Deployment: inference
        Job: training
  - name: nodeorder
)";

TEST(TidalExampleTest, UsesTheSeedConfigurationVerbatim) {
  EXPECT_EQ(ReadFile(std::string(BASALT_SOURCE_DIR) + "/examples/tidal/scheduler.conf"),
            kSeed000Conf);
}

// Inference pods arrive on a node full of a training gang: reclaim evicts one
// worker, AbortJob stops the other, both inference pods bind, nothing of the
// training job is left running.
TEST(TidalExampleTest, InferenceReclaimsAndTheGangLeavesWhole) {
  const std::string dir = std::string(BASALT_SOURCE_DIR) + "/examples/tidal";
  testing::RunResult r = testing::Basalt("schedule --conf " + dir + "/scheduler.conf --cluster " +
                                         dir + "/cluster --cycles 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  std::vector<std::string> evicted;
  for (const auto& c : out["cycles"]) {
    for (const auto& e : c["evictions"])
      evicted.push_back(e["pod"].get<std::string>() + "/" + e["action"].get<std::string>());
  }
  // One worker is reclaimed (the later one in task order); the policy stops the other.
  EXPECT_EQ(evicted, std::vector<std::string>({"default/training-low-worker2-0/reclaim"}));
  ASSERT_EQ(out["cycles"][0]["pipelined"].size(), 1u);
  EXPECT_EQ(out["cycles"][0]["pipelined"][0]["pod"], "default/inference-high-6d4cf56db6-7xk2p");
  EXPECT_EQ(out["final"]["jobs"][0]["name"], "default/training-low");
  EXPECT_EQ(out["final"]["jobs"][0]["phase"], "Aborted");
  std::vector<std::string> running;
  for (const auto& p : out["final"]["pods"]) {
    if (p["phase"] == "Running")
      running.push_back(p["pod"].get<std::string>() + "@" + p["node"].get<std::string>());
  }
  EXPECT_EQ(running,
            std::vector<std::string>({"default/inference-high-6d4cf56db6-7xk2p@gpu-4090-1",
                                      "default/inference-high-6d4cf56db6-9qz4m@gpu-4090-1"}));
}

}  // namespace
}  // namespace basalt
