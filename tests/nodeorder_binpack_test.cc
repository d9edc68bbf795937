// Tests of the `nodeorder` (src/plugins/nodeorder.cc) and `binpack`
// (src/plugins/binpack.cc) scoring plugins. Expected scores are worked out by
// hand in the comments, with Kubernetes' integer steps where it has them.
#include <string>
#include <vector>

#include "framework/statement.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

using testing::SessionFixture;

// ---- manifest builders ----

std::string NodeYaml(const std::string& name, const std::string& alloc,
                     const std::string& extra = "") {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + extra +
         "}\nstatus: {allocatable: {" + alloc + ", pods: \"110\"}}\n---\n";
}

std::string TaintedNodeYaml(const std::string& name, const std::string& taints) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\nspec: {taints: [" + taints +
         "]}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n";
}

// A pending pod in its own PodGroup. `requests` is a flow-map body.
std::string PendingPod(const std::string& name, const std::string& requests,
                       const std::string& spec = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default, annotations: {scheduling.k8s.io/group-name: pg-" + name +
         "}}\nspec: {" + (spec.empty() ? "" : spec + ", ") +
         "schedulerName: volcano, containers: [{name: c, resources: {requests: {" + requests +
         "}}}]}\n---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: "
         "pg-" +
         name + ", namespace: default}\nspec: {minMember: 1, queue: default}\n---\n";
}

// A pod running on `node`. `meta` adds metadata entries (e.g. a deletionTimestamp).
std::string RunningPod(const std::string& name, const std::string& node,
                       const std::string& requests, const std::string& meta = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default" + meta +
         "}\nspec: {nodeName: " + node + ", containers: [{name: c, resources: {requests: {" +
         requests + "}}}]}\nstatus: {phase: Running}\n---\n";
}

// nodeorder alone (optionally after predicates), with an `arguments:` flow-map body.
std::string NodeOrderConf(const std::string& args, bool with_predicates = false) {
  return std::string("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n") +
         (with_predicates ? "  - name: predicates\n" : "") +
         "  - name: nodeorder\n    arguments: {" + args + "}\n";
}

// Only one scoring formula on: every other weight is 0.
std::string Only(const std::string& which) {
  std::string args;
  for (const char* k :
       {"leastrequested", "mostrequested", "balancedresource", "nodeaffinity", "tainttoleration"}) {
    if (!args.empty()) args += ", ";
    args += std::string(k) + ".weight: " + (which == k ? "1" : "0");
  }
  return args;
}

std::string BinpackConf(const std::string& args) {
  return "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: binpack\n    arguments: {" +
         args + "}\n";
}

const char* kNode48 = "cpu: \"4\", memory: 8Gi";

double Score(SessionFixture& fx, const std::string& pod, const std::string& node) {
  return fx.ssn().NodeScores(fx.Task("default/" + pod), {&fx.NodeNamed(node)})[0];
}

std::vector<double> Scores(SessionFixture& fx, const std::string& pod,
                           const std::vector<std::string>& nodes) {
  std::vector<const NodeInfo*> view;
  for (const auto& n : nodes) view.push_back(&fx.NodeNamed(n));
  return fx.ssn().NodeScores(fx.Task("default/" + pod), view);
}

TaskInfo& MutableTask(SessionFixture& fx, const std::string& key) {
  return fx.ssn().task(fx.Task(key).id);
}
NodeInfo& MutableNode(SessionFixture& fx, const std::string& name) {
  return fx.ssn().node(fx.NodeNamed(name).id);
}

// ---- least allocated ----

// Least allocated: (alloc - req) * 100 / alloc per resource, averaged.
TEST(NodeOrderLeastAllocated, EmptyNode) {
  // cpu (4000-1000)*100/4000 = 75; memory (8Gi-2Gi)*100/8Gi = 75 -> (75*50+75*50)/100 = 75.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 75);
}

// Each step is an integer division, as in Kubernetes.
TEST(NodeOrderLeastAllocated, IntegerArithmetic) {
  // cpu (3000-1000)*100/3000 = 66 (66.7); memory 7Gi*100/8Gi = 87 (87.5);
  // (66*50 + 87*50)/100 = 76 (76.5).
  SessionFixture fx(
      NodeYaml("n1", "cpu: \"3\", memory: 8Gi") + PendingPod("p1", "cpu: \"1\", memory: 1Gi"),
      NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 76);
}

// Pods already on the node count in "requested".
TEST(NodeOrderLeastAllocated, CountsPodsOnNode) {
  // requested cpu 2000+1000 -> (4000-3000)*100/4000 = 25; memory 2Gi+2Gi -> 50; (25*50+50*50)/100
  // = 37.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"2\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 37);
}

// A pod without a memory request counts Kubernetes' default 200Mi.
TEST(NodeOrderLeastAllocated, MissingMemoryRequestCountsDefault) {
  // cpu 75; memory (1000Mi-200Mi)*100/1000Mi = 80; (75*50+80*50)/100 = 77.
  SessionFixture fx(NodeYaml("n1", "cpu: \"4\", memory: 1000Mi") + PendingPod("p1", "cpu: \"1\""),
                    NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 77);
}

// A BestEffort pod on the node counts 100m cpu and 200Mi memory.
TEST(NodeOrderLeastAllocated, BestEffortPodOnNodeCountsDefaults) {
  // cpu 100+1000 -> (4000-1100)*100/4000 = 72 (72.5); memory 200Mi+200Mi -> 600*100/1000 = 60;
  // (72*50+60*50)/100 = 66.
  SessionFixture fx(NodeYaml("n1", "cpu: \"4\", memory: 1000Mi") + RunningPod("r1", "n1", "") +
                        PendingPod("p1", "cpu: \"1\""),
                    NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 66);
}

// A resource requested beyond capacity scores 0.
TEST(NodeOrderLeastAllocated, OverCapacityScoresZero) {
  // cpu 2000 > 1000 -> 0; memory 75; (0*50+75*50)/100 = 37.
  SessionFixture fx(
      NodeYaml("n1", "cpu: \"1\", memory: 8Gi") + PendingPod("p1", "cpu: \"2\", memory: 2Gi"),
      NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 37);
}

// A resource with zero allocatable is left out of the average altogether.
TEST(NodeOrderLeastAllocated, ZeroAllocatableSkipped) {
  // memory allocatable 0 -> skipped; score = cpu alone = 75.
  SessionFixture fx(NodeYaml("n1", "cpu: \"4\"") + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 75);
}

// leastrequested.weight multiplies the score.
TEST(NodeOrderLeastAllocated, WeightMultiplies) {
  // 75 * 3 = 225.
  SessionFixture fx(
      NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
      NodeOrderConf(
          "leastrequested.weight: 3, balancedresource.weight: 0, tainttoleration.weight: 0"));
  EXPECT_EQ(Score(fx, "p1", "n1"), 225);
}

// ---- most allocated ----

// Most allocated: req * 100 / alloc per resource, averaged.
TEST(NodeOrderMostAllocated, CountsPodsOnNode) {
  // cpu (2000+1000)*100/4000 = 75; memory (2Gi+2Gi)*100/8Gi = 50; (75+50)/2 = 62.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"2\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("mostrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 62);
}

// Requests beyond capacity are capped at capacity (100).
TEST(NodeOrderMostAllocated, CappedAtCapacity) {
  // cpu 8000 capped to 4000 -> 100; memory 2Gi -> 25; (100+25)/2 = 62.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"8\", memory: 2Gi"),
                    NodeOrderConf(Only("mostrequested")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 62);
}

// mostrequested.weight is 0 by default: the default score has no most-allocated part.
TEST(NodeOrderMostAllocated, OffByDefault) {
  // Only leastrequested (1) and mostrequested (default 0) left on: 75 + 0.
  SessionFixture fx(
      NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
      NodeOrderConf(
          "balancedresource.weight: 0, nodeaffinity.weight: 0, tainttoleration.weight: 0"));
  EXPECT_EQ(Score(fx, "p1", "n1"), 75);
}

// ---- balanced allocation ----

// Two fractions: score = int((1 - |f_cpu - f_mem| / 2) * 100).
TEST(NodeOrderBalanced, CpuAndMemory) {
  // f_cpu 1000/4000 = 0.25, f_mem 4Gi/8Gi = 0.5; std 0.125 -> 87.5 -> 87.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 4Gi"),
                    NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 87);
}

// The GPU joins when the pod requests it and the node has it: population std of three.
TEST(NodeOrderBalanced, GpuJoins) {
  // f = 0.25, 0.5, 0.25 (1 of 4 GPUs); mean 1/3; var = (2*(1/12)^2 + (1/6)^2)/3 = 0.0138889;
  // std 0.117851 -> (1-0.117851)*100 = 88.2 -> 88.
  SessionFixture fx(NodeYaml("n1", "cpu: \"4\", memory: 8Gi, nvidia.com/gpu: \"4\"") +
                        PendingPod("p1", "cpu: \"1\", memory: 4Gi, nvidia.com/gpu: \"1\""),
                    NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 88);
}

// A GPU the node lacks, or one the pod does not request, is left out.
TEST(NodeOrderBalanced, GpuLeftOutUnlessBothSides) {
  // Both cases reduce to cpu 0.25 / memory 0.5 -> 87.
  SessionFixture fx(NodeYaml("n1", kNode48) +
                        NodeYaml("n2", "cpu: \"4\", memory: 8Gi, nvidia.com/gpu: \"4\"") +
                        PendingPod("gpu", "cpu: \"1\", memory: 4Gi, nvidia.com/gpu: \"1\"") +
                        PendingPod("plain", "cpu: \"1\", memory: 4Gi"),
                    NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "gpu", "n1"), 87);
  EXPECT_EQ(Score(fx, "plain", "n2"), 87);
}

// Balanced allocation uses the plain requests (no 100m / 200Mi defaults).
TEST(NodeOrderBalanced, UsesPlainRequests) {
  // r1 requests memory 2Gi only. f_cpu (0+1000)/4000 = 0.25; f_mem (2Gi+0)/8Gi = 0.25 -> std 0 ->
  // 100.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\""),
                    NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 100);
}

// A fraction above 1 counts as 1.
TEST(NodeOrderBalanced, FractionCappedAtOne) {
  // f_cpu min(8000/4000, 1) = 1; f_mem 0.5; std 0.25 -> 75.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"8\", memory: 4Gi"),
                    NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 75);
}

// A pod requesting no cpu, memory or GPU scores 0 (Kubernetes skips BestEffort pods).
TEST(NodeOrderBalanced, BestEffortScoresZero) {
  SessionFixture fx(
      NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\"") + PendingPod("p1", ""),
      NodeOrderConf(Only("balancedresource")));
  EXPECT_EQ(Score(fx, "p1", "n1"), 0);
}

// ---- node affinity ----

// Preferred terms: the sum of the matching terms' weights times nodeaffinity.weight,
// not normalised across nodes (as Volcano does).
TEST(NodeOrderNodeAffinity, SumOfMatchingWeights) {
  // n1 matches zone=a (30) -> 30*1; n2 matches both (30+50) -> 80; n3 none -> 0.
  const std::string pref =
      "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
      "{weight: 30, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}, "
      "{weight: 50, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}]}}";
  SessionFixture fx(NodeYaml("n1", kNode48, ", labels: {zone: a, disk: hdd}") +
                        NodeYaml("n2", kNode48, ", labels: {zone: a, disk: ssd}") +
                        NodeYaml("n3", kNode48) + PendingPod("p1", "cpu: \"1\"", pref),
                    NodeOrderConf(Only("nodeaffinity")));
  EXPECT_EQ(Scores(fx, "p1", {"n1", "n2", "n3"}), (std::vector<double>{30, 80, 0}));
}

// The default nodeaffinity.weight is 2.
TEST(NodeOrderNodeAffinity, DefaultWeightTwo) {
  // 80 * 2 = 160.
  const std::string pref =
      "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
      "{weight: 80, preference: {matchExpressions: [{key: zone, operator: Exists}]}}]}}";
  SessionFixture fx(
      NodeYaml("n1", kNode48, ", labels: {zone: a}") + PendingPod("p1", "cpu: \"1\"", pref),
      NodeOrderConf(
          "leastrequested.weight: 0, balancedresource.weight: 0, tainttoleration.weight: 0"));
  EXPECT_EQ(Score(fx, "p1", "n1"), 160);
}

// ---- taint toleration (batch) ----

// Intolerable PreferNoSchedule taints, normalised and reversed across the nodes:
// 100 - 100 * count / max, times tainttoleration.weight (3).
TEST(NodeOrderTaintToleration, FewerTaintsScoreHigher) {
  // counts n1 3, n2 1, n3 0 (n3's only taint is tolerated), n4 0 (NoSchedule does not count);
  // n1 100-100*3/3 = 0; n2 100-100*1/3 = 100-33 = 67 -> 201; n3, n4 100 -> 300.
  SessionFixture fx(
      TaintedNodeYaml("n1",
                      "{key: a, effect: PreferNoSchedule}, {key: b, effect: PreferNoSchedule}, "
                      "{key: d, effect: PreferNoSchedule}") +
          TaintedNodeYaml("n2", "{key: a, effect: PreferNoSchedule}") +
          TaintedNodeYaml("n3", "{key: c, effect: PreferNoSchedule}") +
          TaintedNodeYaml("n4", "{key: c, effect: NoSchedule}") +
          PendingPod("p1", "cpu: \"1\"", "tolerations: [{key: c, operator: Exists}]"),
      NodeOrderConf(
          "leastrequested.weight: 0, balancedresource.weight: 0, nodeaffinity.weight: 0"));
  EXPECT_EQ(Scores(fx, "p1", {"n1", "n2", "n3", "n4"}), (std::vector<double>{0, 201, 300, 300}));
}

// With no intolerable taint anywhere every node gets the full 100 * 3.
TEST(NodeOrderTaintToleration, NoTaintsGivesFullScore) {
  SessionFixture fx(
      NodeYaml("n1", kNode48) + NodeYaml("n2", kNode48) + PendingPod("p1", "cpu: \"1\""),
      NodeOrderConf(Only("tainttoleration")));
  // Only("tainttoleration") sets its weight to 1: 100 each.
  EXPECT_EQ(Scores(fx, "p1", {"n1", "n2"}), (std::vector<double>{100, 100}));
}

// ---- all together ----

// Volcano's default weights: least 75*1 + balanced 100*1 + affinity 0 + taints 100*3 = 475.
TEST(NodeOrderDefaults, DefaultWeightsSum) {
  // least: 75 (see EmptyNode); balanced: f 0.25 / 0.25 -> 100; taint toleration 300.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(""));
  EXPECT_EQ(Score(fx, "p1", "n1"), 475);
}

// Image locality, pod affinity and topology spread weights are accepted and add 0.
TEST(NodeOrderDefaults, UnmodelledWeightsAddNothing) {
  SessionFixture fx(
      NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
      NodeOrderConf("imagelocality.weight: 7, podaffinity.weight: 7, podtopologyspread.weight: 7"));
  EXPECT_EQ(Score(fx, "p1", "n1"), 475);
}

// Every weight rejects a non-integer (the factory fails, naming the key).
TEST(NodeOrderArguments, WrongTypeIsAnError) {
  for (const char* key :
       {"leastrequested.weight", "mostrequested.weight", "balancedresource.weight",
        "nodeaffinity.weight", "podaffinity.weight", "tainttoleration.weight",
        "imagelocality.weight", "podtopologyspread.weight"}) {
    Arguments args("plugin nodeorder");
    args.Set(key, "1.5");
    auto plugin = NewNodeOrderPlugin(args);
    ASSERT_FALSE(plugin.ok()) << key;
    EXPECT_NE(plugin.status().message().find(key), std::string::npos) << plugin.status().message();
  }
}

// ---- the session's node view ----

// With predicates configured, a pod allocated in the session counts in "requested".
TEST(NodeOrderSessionView, AllocationCountsWithPredicates) {
  // Before: 75. After p1 (2 cpu, 4Gi) lands: cpu (4000-3000)*100/4000 = 25, memory (8-6)/8 = 25
  // -> 25.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p2", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested"), /*with_predicates=*/true));
  EXPECT_EQ(Score(fx, "p2", "n1"), 75);
  Statement::CommitAtOnce(fx.ssn()).Allocate(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Score(fx, "p2", "n1"), 25);
}

// A pipelined pod counts too (it is in Kubernetes' view of the node).
TEST(NodeOrderSessionView, PipelinedPodCounts) {
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p2", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested"), /*with_predicates=*/true));
  Statement::CommitAtOnce(fx.ssn()).Pipeline(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Score(fx, "p2", "n1"), 25);
}

// A pod evicted in the session leaves the view at once.
TEST(NodeOrderSessionView, EvictionLeavesView) {
  // With r1 (2 cpu, 4Gi): 25; after evicting r1: 75.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p2", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested"), /*with_predicates=*/true));
  EXPECT_EQ(Score(fx, "p2", "n1"), 25);
  Statement::CommitAtOnce(fx.ssn()).Evict(MutableTask(fx, "default/r1"), "preempt", "test");
  EXPECT_EQ(Score(fx, "p2", "n1"), 75);
}

// Without predicates in the configuration Volcano's node view stays as the
// snapshot was: session allocations do not change the scores.
TEST(NodeOrderSessionView, FrozenWithoutPredicates) {
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p2", "cpu: \"1\", memory: 2Gi"),
                    NodeOrderConf(Only("leastrequested"), /*with_predicates=*/false));
  Statement::CommitAtOnce(fx.ssn()).Allocate(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Score(fx, "p2", "n1"), 75);
}

// ---- binpack ----

// Score = Σ w_r (req_r + used_r) / alloc_r / Σ w_r * 100 * binpack.weight.
TEST(Binpack, CpuAndMemory) {
  // cpu (1000+1000)/4000 = 0.5; memory (2Gi+2Gi)/8Gi = 0.5; (0.5+0.5)/2 * 100 = 50.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    BinpackConf(""));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 50);
}

// binpack.cpu and binpack.memory weigh the two resources.
TEST(Binpack, ResourceWeights) {
  // cpu 0.5 * 3 = 1.5; memory (1Gi+1Gi)/8Gi = 0.25 * 1; (1.5+0.25)/4 * 100 = 43.75.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 1Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 1Gi"),
                    BinpackConf("binpack.cpu: 3, binpack.memory: 1"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 43.75);
}

// binpack.weight scales the whole score.
TEST(Binpack, WeightScales) {
  // 50 * 10 = 500.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    BinpackConf("binpack.weight: 10"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 500);
}

// If any weighted resource would overflow the node the score is 0.
TEST(Binpack, OverflowScoresZero) {
  // cpu 3500+1000 > 4000 -> 0, although memory (1Gi+1Gi)/8Gi would score.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: 3500m, memory: 1Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 1Gi"),
                    BinpackConf(""));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 0);
}

// Only resources the task requests count: a memory-only pod is scored on memory.
TEST(Binpack, OnlyRequestedResourcesCount) {
  // memory (2Gi+2Gi)/8Gi = 0.5; cpu not requested -> not in the denominator; 0.5/1 * 100 = 50.
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"3\", memory: 2Gi") +
                        PendingPod("p1", "memory: 2Gi"),
                    BinpackConf(""));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 50);
}

// An extra resource listed in binpack.resources counts with its weight.
TEST(Binpack, ExtraResourceCounts) {
  // gpu (1000+1000)/4000 * 2 = 1.0; (0.5 + 0.5 + 1.0)/(1+1+2) * 100 = 50.
  SessionFixture fx(
      NodeYaml("n1", "cpu: \"4\", memory: 8Gi, nvidia.com/gpu: \"4\"") +
          RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi, nvidia.com/gpu: \"1\"") +
          PendingPod("p1", "cpu: \"1\", memory: 2Gi, nvidia.com/gpu: \"1\""),
      BinpackConf("binpack.resources: nvidia.com/gpu, binpack.resources.nvidia.com/gpu: 2"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 50);
}

// A resource the node does not have scores 0 but keeps its weight in the denominator.
TEST(Binpack, MissingNodeResourceDilutes) {
  // (0.5 + 0.5 + 0)/(1+1+2) * 100 = 25.
  SessionFixture fx(
      NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi") +
          PendingPod("p1", "cpu: \"1\", memory: 2Gi, nvidia.com/gpu: \"1\""),
      BinpackConf("binpack.resources: \"nvidia.com/gpu\", binpack.resources.nvidia.com/gpu: 2"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 25);
}

// A requested resource without a configured weight is ignored.
TEST(Binpack, UnlistedResourceIgnored) {
  // example.com/foo not listed: (0.5+0.5)/2 * 100 = 50.
  SessionFixture fx(NodeYaml("n1", "cpu: \"4\", memory: 8Gi, example.com/foo: \"2\"") +
                        RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi, example.com/foo: \"2\""),
                    BinpackConf(""));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 50);
}

// Negative per-resource weights become 1.
TEST(Binpack, NegativeWeightsBecomeOne) {
  // cpu (1000+2000)/4000 = 0.75, memory 0.5, gpu 0.5, all weight 1: 1.75/3 * 100 = 58.33...
  SessionFixture fx(
      NodeYaml("n1", "cpu: \"4\", memory: 8Gi, nvidia.com/gpu: \"4\"") +
          RunningPod("r1", "n1", "cpu: \"2\", memory: 2Gi, nvidia.com/gpu: \"1\"") +
          PendingPod("p1", "cpu: \"1\", memory: 2Gi, nvidia.com/gpu: \"1\""),
      BinpackConf("binpack.cpu: -5, binpack.memory: -1, binpack.resources: nvidia.com/gpu, "
                  "binpack.resources.nvidia.com/gpu: -3"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 1.75 / 3 * 100);
}

// binpack.cpu wins over a "cpu" entry in binpack.resources.
TEST(Binpack, CpuKeyWinsOverResourcesList) {
  // Same as ResourceWeights (cpu 3, memory 1): 43.75.
  SessionFixture fx(
      NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 1Gi") +
          PendingPod("p1", "cpu: \"1\", memory: 1Gi"),
      BinpackConf("binpack.cpu: 3, binpack.resources: cpu, binpack.resources.cpu: 9"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 43.75);
}

// binpack.weight 0 disables the plugin (no node order function at all).
TEST(Binpack, ZeroWeightDisables) {
  SessionFixture fx(NodeYaml("n1", kNode48) + RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    BinpackConf("binpack.weight: 0"));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 0);
}

// "used" is the node's Used: pipelined pods are not in it, allocated ones are.
TEST(Binpack, PipelinedNotUsedAllocatedUsed) {
  // After pipelining p1 (2 cpu, 4Gi): used 0 -> (0.25+0.25)/2*100 = 25.
  // After allocating p3 (2 cpu, 4Gi) too: (0.75+0.75)/2*100 = 75.
  SessionFixture fx(NodeYaml("n1", kNode48) + PendingPod("p1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p2", "cpu: \"1\", memory: 2Gi") +
                        PendingPod("p3", "cpu: \"2\", memory: 4Gi"),
                    BinpackConf(""));
  Statement::CommitAtOnce(fx.ssn()).Pipeline(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_DOUBLE_EQ(Score(fx, "p2", "n1"), 25);
  Statement::CommitAtOnce(fx.ssn()).Allocate(MutableTask(fx, "default/p3"), MutableNode(fx, "n1"));
  EXPECT_DOUBLE_EQ(Score(fx, "p2", "n1"), 75);
}

// A Releasing pod still counts in Used.
TEST(Binpack, ReleasingCountsAsUsed) {
  // Same numbers as CpuAndMemory with r1 terminating: 50.
  SessionFixture fx(NodeYaml("n1", kNode48) +
                        RunningPod("r1", "n1", "cpu: \"1\", memory: 2Gi",
                                   ", deletionTimestamp: \"2026-01-01T00:00:00Z\"") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    BinpackConf(""));
  EXPECT_DOUBLE_EQ(Score(fx, "p1", "n1"), 50);
}

// Every binpack argument rejects a wrong type (the factory fails, naming the key).
TEST(BinpackArguments, WrongTypeIsAnError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"binpack.weight", "heavy"},
      {"binpack.cpu", "1.5"},
      {"binpack.memory", "x"},
      {"binpack.resources.nvidia.com/gpu", "two"}};
  for (const auto& [key, value] : cases) {
    Arguments args("plugin binpack");
    args.Set("binpack.resources", "nvidia.com/gpu");
    args.Set(key, value);
    auto plugin = NewBinpackPlugin(args);
    ASSERT_FALSE(plugin.ok()) << key;
    EXPECT_NE(plugin.status().message().find(key), std::string::npos) << plugin.status().message();
  }
}

// binpack.resources must be a comma-separated string, not a YAML list.
TEST(BinpackArguments, ResourcesListIsAnError) {
  Arguments args("plugin binpack");
  args.Set("binpack.resources[0]", "nvidia.com/gpu");
  auto plugin = NewBinpackPlugin(args);
  ASSERT_FALSE(plugin.ok());
  EXPECT_NE(plugin.status().message().find("binpack.resources"), std::string::npos);
}

// binpack prefers the fuller node; nodeorder's least-allocated prefers the emptier one.
TEST(BinpackAllocate, PacksOntoFullerNode) {
  // n1 has r1 (2 cpu, 4Gi): binpack (0.75+0.75)/2*100 = 75 vs n2 25 -> n1.
  SessionFixture fx(NodeYaml("n1", kNode48) + NodeYaml("n2", kNode48) +
                        RunningPod("r1", "n1", "cpu: \"2\", memory: 4Gi") +
                        PendingPod("p1", "cpu: \"1\", memory: 2Gi"),
                    BinpackConf(""));
  fx.RunActions({"enqueue", "allocate"});
  Decisions d = fx.Close();
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].node, "n1");
}

}  // namespace
}  // namespace basalt
