// `basalt explain`: why a pod, vcjob or PodGroup is pending — the report's
// facts (RunExplain), its text, its JSON, and the binary's exit codes.
#include "cli/explain.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/explain_probe.h"
#include "kube_fake_apiserver.h"
#include "testing.h"

namespace basalt {
namespace {

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

std::string Example(const std::string& rel) {
  return std::string(BASALT_SOURCE_DIR) + "/examples/" + rel;
}

constexpr const char* kProportionConf = R"(
actions: "enqueue, allocate, backfill"
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

ExplainReport Explain(const std::string& target, const std::string& cluster,
                      const std::string& conf) {
  ExplainRequest req;
  req.target = target;
  req.cluster_text = cluster;
  req.conf_text = conf;
  auto report = RunExplain(req);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? *report : ExplainReport{};
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Three nodes with two GPUs and one tainted node with eight: a bare 4-GPU pod
// fits nowhere. The nodes are grouped by reason with their counts, and the
// closest untainted node is short of exactly 2 GPUs (4 asked, 2 idle).
constexpr const char* kGpuCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, nvidia.com/gpu: "2", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "8", memory: 16Gi, nvidia.com/gpu: "2", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
status: {allocatable: {cpu: "8", memory: 16Gi, nvidia.com/gpu: "2", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n4}
spec:
  taints: [{key: gpu, value: "true", effect: NoSchedule}]
status: {allocatable: {cpu: "8", memory: 16Gi, nvidia.com/gpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  schedulerName: volcano
  containers:
  - name: c
    resources:
      requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "4"}
      limits: {nvidia.com/gpu: "4"}
)";

TEST(ExplainTest, InsufficientResourcesOnAllNodes) {
  ExplainReport r = Explain("trainer", kGpuCluster, kProportionConf);
  EXPECT_EQ(r.kind, "Pod");
  EXPECT_EQ(r.verdict, "Pending");
  ASSERT_EQ(r.tasks.size(), 1u);
  const TaskExplanation& t = r.tasks[0];
  EXPECT_EQ(t.fitting_nodes, 0);
  ASSERT_EQ(t.node_groups.size(), 2u);
  EXPECT_EQ(t.node_groups[0].reasons, std::vector<std::string>{"Insufficient nvidia.com/gpu"});
  EXPECT_EQ(t.node_groups[0].nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(t.node_groups[1].reasons.size(), 1u);
  EXPECT_TRUE(Contains(t.node_groups[1].reasons[0], "untolerated taint"))
      << t.node_groups[1].reasons[0];
  EXPECT_EQ(t.node_groups[1].nodes, std::vector<std::string>{"n4"});
  ASSERT_TRUE(t.closest_node.has_value());
  EXPECT_EQ(t.closest_node->node, "n1");
  EXPECT_EQ(ResourceText(t.closest_node->missing), "nvidia.com/gpu 2");
  EXPECT_TRUE(Contains(t.failed_scheduling, "0/4 nodes are available")) << t.failed_scheduling;
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text, "3 nodes: Insufficient nvidia.com/gpu (n1, n2, n3)")) << text;
  EXPECT_TRUE(Contains(text, "1 node: node(s) had untolerated taint")) << text;
  EXPECT_TRUE(Contains(text, "needs nvidia.com/gpu 2 more on n1")) << text;
  // Nothing runs, so neither preempt nor reclaim would find a victim.
  ASSERT_TRUE(r.what_if.has_value());
  EXPECT_TRUE(r.what_if->victims.empty());
}

// The capacity-card model: q2's quota is 3 H200 cards, job-c asks 5. Enqueue
// refuses the PodGroup and the report names the plugin and its numbers.
constexpr const char* kCardConf = R"(
actions: "enqueue, allocate, backfill, reclaim"
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
      overCommitFactor: 1
      cardUnlimitedCpuMemory: true
  - name: nodeorder
)";

constexpr const char* kCardCluster = R"(
apiVersion: v1
kind: Node
metadata:
  name: h200-1
  labels:
    nvidia.com/gpu.product: NVIDIA-H200
    nvidia.com/gpu.count: "8"
    nvidia.com/gpu.memory: "143771"
status:
  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: q2
  annotations: {volcano.sh/card.quota: '{"NVIDIA-H200":3}'}
spec: {weight: 1}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: job-c
  namespace: default
  annotations: {volcano.sh/card.request: '{"NVIDIA-H200":5}'}
spec:
  minAvailable: 5
  queue: q2
  tasks:
  - name: w
    replicas: 5
    template:
      metadata:
        annotations: {volcano.sh/card.name: NVIDIA-H200}
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}
            limits: {nvidia.com/gpu: "1"}
)";

TEST(ExplainTest, QuotaRefusalNamesCapacityCardAndNumbers) {
  ExplainReport r = Explain("job/job-c", kCardCluster, kCardConf);
  EXPECT_EQ(r.kind, "Job");
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_EQ(r.podgroup, "default/job-c");
  EXPECT_EQ(r.phase_after, "Pending");
  EXPECT_EQ(r.queue.name, "q2");
  EXPECT_TRUE(r.enqueue_considered);
  EXPECT_FALSE(r.enqueue_admitted);
  ASSERT_EQ(r.enqueue_rejections.size(), 1u);
  EXPECT_EQ(r.enqueue_rejections[0].plugin, "capacity-card");
  EXPECT_EQ(r.enqueue_rejections[0].reason, "InsufficientScalarQuota");
  EXPECT_EQ(r.enqueue_rejections[0].message,
            "Queue <q2> has insufficient <NVIDIA-H200> quota: requested <5>, total would be <5>, "
            "but capability is <3>");
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text, "Enqueue: refused")) << text;
  EXPECT_TRUE(Contains(
      text, "capacity-card refused admission: Queue <q2> has insufficient <NVIDIA-H200> quota"))
      << text;
  // Refused at enqueue: the job controller never made pods, nothing to place.
  EXPECT_TRUE(r.tasks.empty());
}

// Two 3-CPU nodes and a gang of three 2-CPU pods (minAvailable 3): enqueue
// admits it (6 CPU fit the cluster's 6), the job controller creates the pods,
// and in the next cycle only two fit (one per node): one short.
constexpr const char* kGangCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "3", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "3", memory: 8Gi, pods: "110"}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: mpi, namespace: default}
spec:
  minAvailable: 3
  queue: default
  tasks:
  - name: worker
    replicas: 3
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: "2", memory: 1Gi}
)";

TEST(ExplainTest, GangShortfall) {
  ExplainReport r = Explain("mpi", kGangCluster, kProportionConf);
  EXPECT_EQ(r.kind, "Job");
  // Cycle 1 admits the PodGroup; its pods exist from cycle 2 on.
  EXPECT_EQ(r.cycle, 2);
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_EQ(r.min_member, 3);
  EXPECT_EQ(r.tasks_total, 3);
  EXPECT_EQ(r.placed_after, 0);
  EXPECT_EQ(r.placeable, 2);
  ASSERT_EQ(r.tasks.size(), 3u);
  // Each pod alone fits either node: the gang, not the nodes, holds it back.
  EXPECT_EQ(r.tasks[0].fitting_nodes, 2);
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text,
                       "Gang: minAvailable 3, 3 pods; placed 0 before the session, 0 after; "
                       "2 more could be placed now; 1 short"))
      << text;
  EXPECT_TRUE(Contains(text, "only 2 of 3 pods can be placed on the cluster as it is (1 short)"))
      << text;
  EXPECT_EQ(ExplainJson(r)["gang"]["shortfall"], 1);
}

// A hard tier-1 gang of two 4-cpu pods on two leaves of one 4-cpu node each:
// every pod fits a node, but no leaf holds the gang. The report names the
// constraint, allocate's shortfall per HyperNode and what would let it run.
// The constraints apply through the network-topology-aware plugin (docs/topology.md).
std::string TopologyConf() {
  return std::string(kProportionConf) + "  - name: network-topology-aware\n";
}

constexpr const char* kTopologyCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: leaf0}
spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: n0}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: leaf1}
spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: n1}}}]}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: g, namespace: default}
spec: {minMember: 2, queue: default, networkTopology: {mode: hard, highestTierAllowed: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: g-0, namespace: default, annotations: {scheduling.k8s.io/group-name: g}}
spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: g-1, namespace: default, annotations: {scheduling.k8s.io/group-name: g}}
spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
)";

TEST(ExplainTest, NetworkTopologyShortfall) {
  ExplainReport r = Explain("podgroup/g", kTopologyCluster, TopologyConf());
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_EQ(r.network_topology, "hard, highest tier 1");
  EXPECT_EQ(r.network_topology_reason,
            "no HyperNode within the allowed tier can hold the gang; leaf0 (tier 1) lacks cpu 4; "
            "leaf1 (tier 1) lacks cpu 4");
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text, "Network topology: hard, highest tier 1; no HyperNode")) << text;
  EXPECT_EQ(ExplainJson(r)["networkTopology"]["constraint"], "hard, highest tier 1");
}

// The same two pods as one SubGroup hard-constrained to a leaf (the job
// itself unconstrained): the report names the SubGroup, its tier and each
// leaf's shortfall.
TEST(ExplainTest, SubGroupShortfall) {
  std::string cluster = kTopologyCluster;
  const std::string job_constraint = "networkTopology: {mode: hard, highestTierAllowed: 1}}";
  cluster.replace(cluster.find(job_constraint), job_constraint.size(),
                  "subGroupPolicy: [{name: pair, subGroupSize: 2, matchLabelKeys: [pair], "
                  "networkTopology: {mode: hard, highestTierAllowed: 1}}]}");
  // Both pods carry the policy's matchLabelKeys label (one SubGroup, pair-p).
  const std::string pod_meta = "namespace: default, annotations: {scheduling.k8s.io/group-name: g}";
  for (size_t at = cluster.find(pod_meta); at != std::string::npos;
       at = cluster.find(pod_meta, at + 1)) {
    cluster.insert(at + std::string("namespace: default, ").size(), "labels: {pair: p}, ");
  }
  ExplainReport r = Explain("podgroup/g", cluster, TopologyConf());
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_EQ(r.network_topology, "none; SubGroups of pair");
  EXPECT_EQ(r.network_topology_reason,
            "subGroup pair-p (hard, highest tier 1): no HyperNode within the allowed tier can "
            "hold its pods; leaf0 (tier 1) lacks cpu 4; leaf1 (tier 1) lacks cpu 4");
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text, "Network topology: none; SubGroups of pair; subGroup pair-p")) << text;
}

// A queue closed after the PodGroup was created: enqueue refuses it and the
// report says the queue is closed.
constexpr const char* kClosedCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: frozen}
spec: {weight: 1}
status: {state: Closed}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: batch, namespace: default}
spec:
  minMember: 1
  queue: frozen
  minResources: {cpu: "1"}
---
apiVersion: v1
kind: Pod
metadata:
  name: batch-0
  namespace: default
  annotations: {scheduling.k8s.io/group-name: batch}
spec:
  schedulerName: volcano
  containers:
  - name: c
    resources:
      requests: {cpu: "1"}
)";

TEST(ExplainTest, ClosedQueue) {
  ExplainReport r = Explain("default/batch-0", kClosedCluster, kProportionConf);
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_EQ(r.queue.name, "frozen");
  EXPECT_EQ(r.queue.state, "Closed");
  EXPECT_TRUE(r.enqueue_considered);
  EXPECT_FALSE(r.enqueue_admitted);
  ASSERT_FALSE(r.hints.empty());
  EXPECT_TRUE(Contains(r.hints[0], "queue frozen is Closed")) << r.hints[0];
  EXPECT_TRUE(Contains(ExplainText(r), "Queue frozen: Closed")) << ExplainText(r);
  // The same PodGroup asked for by kind gives the same verdict.
  ExplainReport pg = Explain("podgroup/batch", kClosedCluster, kProportionConf);
  EXPECT_EQ(pg.kind, "PodGroup");
  EXPECT_EQ(pg.queue.state, "Closed");
}

// The tidal example without reclaim in the configuration: the inference pod
// is pending on a node full of training; reclaim, run in the what-if session,
// would evict one of the training workers (4 cards frees room for 2) and
// pipeline the pod there.
constexpr const char* kTidalNoReclaimConf = R"(
actions: "enqueue, allocate, backfill"
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

TEST(ExplainTest, ReclaimWouldAdmitNamingVictims) {
  ExplainRequest req;
  req.target = "pod/inference-high-6d4cf56db6-7xk2p";
  req.cluster_paths = {Example("tidal/cluster")};
  req.conf_text = kTidalNoReclaimConf;
  auto report = RunExplain(req);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const ExplainReport& r = *report;
  EXPECT_EQ(r.verdict, "Pending");
  EXPECT_TRUE(r.session_victims.empty());  // reclaim is not configured
  ASSERT_TRUE(r.what_if.has_value());
  EXPECT_EQ(r.what_if->actions, (std::vector<std::string>{"preempt", "reclaim"}));
  ASSERT_FALSE(r.what_if->victims.empty());
  for (const ExplainVictim& v : r.what_if->victims) {
    EXPECT_EQ(v.queue, "queue-training") << v.pod;
    EXPECT_EQ(v.podgroup, "default/training-low") << v.pod;
    EXPECT_EQ(v.action, "reclaim") << v.pod;
    EXPECT_EQ(v.node, "gpu-4090-1") << v.pod;
  }
  ASSERT_EQ(r.what_if->placements.size(), 1u);
  EXPECT_EQ(r.what_if->placements[0].first, "default/inference-high-6d4cf56db6-7xk2p");
  EXPECT_TRUE(r.what_if->admits);
  const std::string text = ExplainText(r);
  EXPECT_TRUE(Contains(text, "reclaim would evict default/training-low-worker")) << text;
  EXPECT_TRUE(Contains(text, "(enough to run it)")) << text;
}

// With reclaim configured, the explained session itself evicts for the pod.
TEST(ExplainTest, ConfiguredReclaimEvictsInTheSession) {
  ExplainRequest req;
  req.target = "default/inference-high-6d4cf56db6-7xk2p";
  req.cluster_paths = {Example("tidal/cluster")};
  req.conf_path = Example("tidal/scheduler.conf");
  auto report = RunExplain(req);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->verdict, "Pipelined");
  ASSERT_FALSE(report->session_victims.empty());
  EXPECT_EQ(report->session_victims[0].queue, "queue-training");
}

// -o json through the binary: stable keys, the same bytes every run.
TEST(ExplainTest, JsonOutputIsStable) {
  const std::string args = "explain default/inference-high-6d4cf56db6-7xk2p --conf " +
                           Example("tidal/scheduler.conf") + " --cluster " +
                           Example("tidal/cluster") + " -o json";
  RunResult a = Basalt(args);
  RunResult b = Basalt(args);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  EXPECT_EQ(a.out, b.out);
  auto j = nlohmann::json::parse(a.out);
  for (const char* key : {"target", "cycle", "verdict", "podgroup", "queue", "cluster", "enqueue",
                          "gang", "pods", "events", "sessionVictims", "whatIf", "hints"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["target"]["kind"], "Pod");
}

// A target that does not exist, and a bad output format, exit 2 with a message.
TEST(ExplainTest, BadTargetExitsTwo) {
  RunResult r = Basalt("explain job/nope --cluster " + Example("tidal/cluster"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.out, "no Job named default/nope")) << r.out;
  RunResult o = Basalt("explain nope --cluster " + Example("tidal/cluster") + " -o xml");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(Contains(o.out, "-o: unknown output format")) << o.out;
  RunResult t = Basalt("explain a/b/c/d --cluster " + Example("tidal/cluster"));
  EXPECT_EQ(t.exit_code, 2);
}

// The live path: the same question against the loopback API server, the
// cluster listed once through a kubeconfig.
TEST(ExplainTest, LiveClusterThroughKubeconfig) {
  testing::FakeApiServer fake;
  ASSERT_TRUE(fake.Start());
  fake.RequireToken("explain-token");
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("basalt-explain-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string kubeconfig = (dir / "kubeconfig").string();
  std::ofstream(kubeconfig)
      << "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
         "clusters: [{name: k, cluster: {server: '"
      << fake.url() << "'}}]\nusers: [{name: u, user: {token: explain-token}}]\n";
  for (const char* name : {"n1", "n2"}) {
    fake.Put({{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}}},
              {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}}}}});
  }
  fake.Put({{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "big"}, {"namespace", "default"}}},
            {"spec",
             {{"schedulerName", "volcano"},
              {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "6"}}}}}}}}}},
            {"status", {{"phase", "Pending"}}}});
  RunResult r = Basalt("explain pod/big --kubeconfig " + kubeconfig);
  EXPECT_EQ(r.exit_code, 1) << r.out;  // Pending
  EXPECT_TRUE(Contains(r.out, "Pod default/big: Pending")) << r.out;
  EXPECT_TRUE(Contains(r.out, "2 nodes: Insufficient cpu (n1, n2)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "needs cpu 2 more on n1")) << r.out;
  // A live report says it is a look ahead, not the cluster's state.
  EXPECT_TRUE(Contains(r.out, "nothing here was written to the cluster")) << r.out;
  RunResult missing = Basalt("explain pod/none --kubeconfig " + kubeconfig);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(Contains(missing.out, "no Pod named default/none in the cluster")) << missing.out;
  RunResult bad = Basalt("explain pod/big --kubeconfig " + (dir / "absent").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.out, "absent")) << bad.out;
  fake.Stop();
  fs::remove_all(dir);
}

// overcommit's refusal of vision-train shows the arithmetic that refused it:
// llm-finetune, admitted before it in the same enqueue pass, reserved 6 of
// the 8 GPUs; 6 + 4 > 8 x 1.2.
TEST(ExplainTest, OvercommitRefusalShowsItsNumbers) {
  ExplainRequest req;
  req.target = "job/vision-train";
  req.cluster_paths = {Example("gang-training/cluster")};
  req.conf_path = Example("gang-training/scheduler.conf");
  auto report = RunExplain(req);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->verdict, "Pending");
  const std::string numbers =
      "nvidia.com/gpu: 0 reserved at session open + 6 admitted before it in this pass + 4 asked "
      "= 10 > 8 allocatable \u00d7 1.2 - 0 used = 9.6";
  bool found = false;
  for (const ExplainEvent& e : report->enqueue_rejections) {
    if (e.plugin != "overcommit") continue;
    found = true;
    EXPECT_EQ(e.message, "resource in cluster is overused");  // Volcano's words, kept
    EXPECT_EQ(e.numbers, numbers);
  }
  EXPECT_TRUE(found) << ExplainText(*report);
  EXPECT_TRUE(Contains(ExplainText(*report), numbers)) << ExplainText(*report);
  EXPECT_EQ(ExplainJson(*report)["enqueue"]["rejections"][0]["numbers"], numbers);
}

// proportion's refusal names the queue's numbers, with what enqueue admitted
// to the queue before it in the same pass.
TEST(ExplainTest, ProportionRefusalShowsItsNumbers) {
  ExplainRequest req;
  req.target = "job/b";
  req.conf_text =
      "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
      "  - name: proportion\n";
  req.cluster_text = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec: {weight: 1, capability: {cpu: "4"}}
)" + std::string(R"(---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: a, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  minAvailable: 1
  queue: q
  schedulerName: volcano
  tasks:
  - {name: w, replicas: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "3"}}}]}}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: b, namespace: default, creationTimestamp: "2026-01-01T00:01:00Z"}
spec:
  minAvailable: 1
  queue: q
  schedulerName: volcano
  tasks:
  - {name: w, replicas: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}}}
)");
  auto report = RunExplain(req);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->verdict, "Pending") << ExplainText(*report);
  const std::string text = ExplainText(*report);
  EXPECT_TRUE(Contains(text,
                       "cpu: 2 asked + 0 allocated + 3 reserved by admitted PodGroups (3 of it "
                       "admitted before it in this pass) - 0 elastic = 5 > 4 capability of "
                       "queue q"))
      << text;
}

// A pod whose group annotation names a PodGroup nobody created waits for it:
// the verdict says so, and the exit code says it waits.
TEST(ExplainTest, PodGroupMissingIsAVerdict) {
  ExplainRequest req;
  req.target = "pod/p";
  req.cluster_text = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, annotations: {scheduling.k8s.io/group-name: ghost}}
spec: {schedulerName: volcano, containers: [{name: c}]}
)";
  auto report = RunExplain(req);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->verdict, "PodGroupMissing");
  ASSERT_EQ(report->hints.size(), 1u);
  EXPECT_TRUE(Contains(report->hints[0], "names PodGroup default/ghost, which does not exist"))
      << report->hints[0];
  EXPECT_EQ(ExplainExitCode(*report), 1);
}

// The exit code is the verdict's (0 runs, 1 waits); -o yaml is the JSON
// document as YAML, -o table the text.
TEST(ExplainTest, ExitCodeAndOutputFormats) {
  const std::string args = " --conf " + Example("gang-training/scheduler.conf") + " --cluster " +
                           Example("gang-training/cluster");
  RunResult runs = Basalt("explain job/llm-finetune" + args);
  EXPECT_EQ(runs.exit_code, 0) << runs.out;
  RunResult waits = Basalt("explain job/vision-train" + args);
  EXPECT_EQ(waits.exit_code, 1) << waits.out;
  EXPECT_TRUE(Contains(waits.out, "Job default/vision-train: Pending")) << waits.out;
  RunResult table = Basalt("explain job/vision-train -o table" + args);
  EXPECT_EQ(table.out, waits.out);
  RunResult yaml = Basalt("explain job/vision-train -o yaml" + args);
  EXPECT_EQ(yaml.exit_code, 1) << yaml.out;
  EXPECT_TRUE(Contains(yaml.out, "verdict: Pending")) << yaml.out;
  EXPECT_TRUE(Contains(yaml.out, "plugin: overcommit")) << yaml.out;
}

}  // namespace
}  // namespace basalt
