// Decoding manifests (api/decode.h): the object model built from good input, and
// for bad input a message naming the file and line, the object and the field
// (DESIGN.md: "Bad input: exit code 2 and a message naming the file, the object
// and the field"). Nothing user-supplied may crash or throw.
#include "api/decode.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "decode_test_util.h"

namespace basalt {
namespace {

using namespace decode_test;  // NOLINT: the shared manifest builders

// =====================================================================

// A pod's request is the sum of its containers, plus the implicit pods: 1.
TEST(DecodeTest, PodRequestSumsContainers) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 1, memory: 1Gi, nvidia.com/gpu: 1}}}, "
      "{name: b, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}"));
  ASSERT_EQ(objs.pods.size(), 1u);
  EXPECT_EQ(objs.pods[0].spec.request,
            *Resource::Parse("cpu=1500m,memory=1536Mi,nvidia.com/gpu=1,pods=1"));
}

// Init containers run one at a time: the request is the max of the app sum and
// each init container. cpu: max(1 + 0.5, 4) = 4; memory: max(1.5Gi, 1Gi) = 1.5Gi.
TEST(DecodeTest, PodRequestMaxWithInitContainers) {
  ClusterObjects objs = DecodeOk(
      PodWithSpec("{containers: [{name: a, resources: {requests: {cpu: 1, memory: 1Gi}}}, "
                  "{name: b, resources: {requests: {cpu: 500m, memory: 512Mi}}}], "
                  "initContainers: [{name: i, resources: {requests: {cpu: 4, memory: 1Gi}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request, *Resource::Parse("cpu=4,memory=1536Mi,pods=1"));
}

// A restartable init container (restartPolicy: Always) keeps running: it adds to
// the app containers and to every later init container.
// app = 2 + sidecar 1 = 3 cpu; init after the sidecar = 3 + 1 = 4 -> request 4.
TEST(DecodeTest, PodRequestAddsSidecars) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 2}}}], initContainers: ["
      "{name: s, restartPolicy: Always, resources: {requests: {cpu: 1, memory: 100Mi}}}, "
      "{name: i, resources: {requests: {cpu: 3}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request, *Resource::Parse("cpu=4,memory=100Mi,pods=1"));
}

// Without a later init container, the sidecar simply adds: 2 + 1 = 3.
TEST(DecodeTest, PodRequestSidecarOnly) {
  ClusterObjects objs = DecodeOk(
      PodWithSpec("{containers: [{name: a, resources: {requests: {cpu: 2}}}], initContainers: ["
                  "{name: s, restartPolicy: Always, resources: {requests: {cpu: 1}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request.milli_cpu(), 3000);
}

// The overhead is added to the app containers before the max with init
// containers, as Volcano does: max(1 + 0.25, 2) = 2 (Kubernetes would say 2.25).
TEST(DecodeTest, PodOverheadJoinsTheAppSum) {
  ClusterObjects with_init =
      DecodeOk(PodWithSpec("{containers: [{name: a, resources: {requests: {cpu: 1}}}], overhead: "
                           "{cpu: 250m, memory: 64Mi}, "
                           "initContainers: [{name: i, resources: {requests: {cpu: 2}}}]}"));
  EXPECT_EQ(with_init.pods[0].spec.request, *Resource::Parse("cpu=2,memory=64Mi,pods=1"));
  ClusterObjects without_init = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 1}}}], overhead: {cpu: 250m}}"));
  EXPECT_EQ(without_init.pods[0].spec.request.milli_cpu(), 1250);
}

// A limit stands in for a missing request, per resource (the API server's defaulting).
TEST(DecodeTest, LimitsUsedWhenRequestsAbsent) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {limits: {cpu: 2, memory: 1Gi, nvidia.com/gpu: 1}, "
      "requests: {memory: 512Mi}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request,
            *Resource::Parse("cpu=2,memory=512Mi,nvidia.com/gpu=1,pods=1"));
}

// Every pod carries pods: 1, even with no containers or resources.
TEST(DecodeTest, ImplicitPodsOne) {
  ClusterObjects objs = DecodeOk(PodWithSpec("{containers: [{name: a}]}"));
  EXPECT_EQ(objs.pods[0].spec.request, *Resource::Parse("pods=1"));
  EXPECT_TRUE(objs.pods[0].spec.request.IsEmptyIgnoringPods());
}

// Names Volcano does not track are dropped; hugepages and extended resources stay.
TEST(DecodeTest, UntrackedResourceNamesAreDropped) {
  ClusterObjects objs = DecodeOk(PodRequesting(
      "cpu: 1, ephemeral-storage: 10Gi, hugepages-2Mi: 4Mi, example.com/foo: 2, requests.cpu: 1"));
  EXPECT_EQ(objs.pods[0].spec.request,
            *Resource::Parse("cpu=1,hugepages-2Mi=4Mi,example.com/foo=2,pods=1"));
  ResourceId eph = ResourceNames::Intern("ephemeral-storage");
  EXPECT_FALSE(objs.pods[0].spec.request.Has(eph));
}

// Pod fields: namespace default, priority, node name, phase, selectors, tolerations.
TEST(DecodeTest, PodFields) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  uid: u-1
  labels: {app: web}
  annotations: {scheduling.k8s.io/group-name: pg}
  deletionTimestamp: "2024-05-01T10:00:00Z"
spec:
  priority: 100
  priorityClassName: high
  nodeName: n1
  schedulerName: volcano
  nodeSelector: {zone: a}
  tolerations: [{key: k, operator: Exists, effect: NoSchedule}, {key: j, value: v}]
  schedulingGates: [{name: g}]
  preemptionPolicy: Never
  containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}]}]
status: {phase: Pending, nominatedNodeName: n2}
)"));
  const Pod& p = objs.pods.at(0);
  EXPECT_EQ(p.meta.Key(), "default/p");
  EXPECT_EQ(p.meta.uid, "u-1");
  EXPECT_EQ(p.meta.labels.at("app"), "web");
  EXPECT_EQ(p.meta.annotations.at("scheduling.k8s.io/group-name"), "pg");
  EXPECT_TRUE(p.meta.deleting);
  EXPECT_EQ(p.meta.source, "c.yaml:1");
  EXPECT_TRUE(p.spec.has_priority);
  EXPECT_EQ(p.spec.priority, 100);
  EXPECT_EQ(p.spec.priority_class_name, "high");
  EXPECT_EQ(p.spec.node_name, "n1");
  EXPECT_EQ(p.spec.scheduler_name, "volcano");
  EXPECT_EQ(p.spec.node_selector.at("zone"), "a");
  ASSERT_EQ(p.spec.tolerations.size(), 2u);
  EXPECT_EQ(p.spec.tolerations[0].op, "Exists");
  EXPECT_EQ(p.spec.tolerations[1].op, "Equal");  // default
  EXPECT_EQ(p.spec.scheduling_gates, 1);
  EXPECT_EQ(p.spec.preemption_policy, "Never");
  ASSERT_EQ(p.spec.host_ports.size(), 1u);
  EXPECT_EQ(p.spec.host_ports[0].port, 8080);
  EXPECT_EQ(p.spec.host_ports[0].protocol, "TCP");
  EXPECT_EQ(p.phase, "Pending");
  EXPECT_EQ(p.nominated_node_name, "n2");
}

// Node affinity terms decode with their operators and values.
TEST(DecodeTest, NodeAffinity) {
  ClusterObjects objs = DecodeOk(
      PodWithSpec("{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                  "{nodeSelectorTerms: "
                  "[{matchExpressions: [{key: cores, operator: Gt, values: [\"4\"]}], matchFields: "
                  "[{key: metadata.name, "
                  "operator: In, values: [n1, n2]}]}]}, "
                  "preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, "
                  "preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}]}}}"));
  const PodSpec& s = objs.pods.at(0).spec;
  ASSERT_EQ(s.required_node_affinity.size(), 1u);
  EXPECT_EQ(s.required_node_affinity[0].match_expressions.at(0).op, "Gt");
  EXPECT_EQ(s.required_node_affinity[0].match_expressions.at(0).values,
            std::vector<std::string>{"4"});
  EXPECT_EQ(s.required_node_affinity[0].match_fields.at(0).values,
            (std::vector<std::string>{"n1", "n2"}));
  ASSERT_EQ(s.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(s.preferred_node_affinity[0].weight, 10);
  EXPECT_EQ(s.preferred_node_affinity[0].preference.match_expressions.at(0).key, "zone");
}

// A node without allocatable uses its capacity.
TEST(DecodeTest, NodeAllocatableFallsBackToCapacity) {
  ClusterObjects objs = DecodeOk(NodeWith("{capacity: {cpu: 8, memory: 32Gi, pods: 110}}"));
  ASSERT_EQ(objs.nodes.size(), 1u);
  EXPECT_EQ(objs.nodes[0].allocatable, *Resource::Parse("cpu=8,memory=32Gi,pods=110"));
  EXPECT_EQ(objs.nodes[0].capacity, objs.nodes[0].allocatable);
}

// Allocatable wins over capacity when both are given.
TEST(DecodeTest, NodeAllocatablePreferred) {
  ClusterObjects objs = DecodeOk(NodeWith("{capacity: {cpu: 8}, allocatable: {cpu: 7500m}}"));
  EXPECT_EQ(objs.nodes[0].allocatable.milli_cpu(), 7500);
  EXPECT_EQ(objs.nodes[0].capacity.milli_cpu(), 8000);
}

// Node taints, unschedulable (YAML 1.1 "yes" included) and the Ready condition.
TEST(DecodeTest, NodeFields) {
  ClusterObjects objs = DecodeOk(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\n"
      "spec: {unschedulable: yes, taints: [{key: gpu, value: \"true\", effect: NoSchedule}]}\n"
      "status: {capacity: {cpu: 1}, conditions: [{type: Ready, status: \"False\"}]}\n");
  const Node& n = objs.nodes.at(0);
  EXPECT_EQ(n.meta.Key(), "n1");  // cluster-scoped: no namespace
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].value, "true");
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");
  EXPECT_FALSE(n.ready);
}

// A queue without spec: weight 1, state Open, reclaimable unset (= reclaimable),
// no capability/deserved/guarantee.
TEST(DecodeTest, QueueDefaults) {
  ClusterObjects objs =
      DecodeOk("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\n");
  const Queue& q = objs.queues.at(0);
  EXPECT_EQ(q.weight, 1);
  EXPECT_EQ(q.state, "Open");
  EXPECT_FALSE(q.reclaimable.has_value());
  EXPECT_TRUE(q.IsReclaimable());
  EXPECT_FALSE(q.capability.has_value());
  EXPECT_FALSE(q.deserved.has_value());
  EXPECT_FALSE(q.guarantee.has_value());
  EXPECT_EQ(q.parent, "");
}

// Weight 0 becomes 1, as Volcano's webhook does.
TEST(DecodeTest, QueueWeightZeroBecomesOne) {
  EXPECT_EQ(DecodeOk(QueueWith("{weight: 0}")).queues.at(0).weight, 1);
}

// Queue spec fields and status state.
TEST(DecodeTest, QueueFields) {
  ClusterObjects objs =
      DecodeOk(QueueWith("{weight: 3, priority: 5, reclaimable: false, parent: root, "
                         "capability: {cpu: 10, nvidia.com/gpu: 4}, deserved: {cpu: 5}, "
                         "guarantee: {resource: {memory: 1Gi}}}") +
               "status: {state: Closed}\n");
  const Queue& q = objs.queues.at(0);
  EXPECT_EQ(q.weight, 3);
  EXPECT_EQ(q.priority, 5);
  EXPECT_EQ(q.reclaimable, false);
  EXPECT_FALSE(q.IsReclaimable());
  EXPECT_EQ(q.parent, "root");
  EXPECT_EQ(*q.capability, *Resource::Parse("cpu=10,nvidia.com/gpu=4"));
  EXPECT_EQ(*q.deserved, *Resource::Parse("cpu=5"));
  EXPECT_EQ(*q.guarantee, *Resource::Parse("memory=1Gi"));
  EXPECT_EQ(q.state, "Closed");
}

// An empty capability is present (and empty), unlike an absent one.
TEST(DecodeTest, QueueEmptyCapabilityIsPresent) {
  ClusterObjects objs = DecodeOk(QueueWith("{capability: {}}"));
  ASSERT_TRUE(objs.queues.at(0).capability.has_value());
  EXPECT_TRUE(objs.queues.at(0).capability->IsZero());
}

// PodGroup fields.
TEST(DecodeTest, PodGroupFields) {
  ClusterObjects objs =
      DecodeOk(PodGroupWith("{minMember: 3, minTaskMember: {ps: 1, worker: 2}, queue: q1, "
                            "priorityClassName: high, minResources: {cpu: 3, memory: 3Gi}}") +
               "status: {phase: Inqueue}\n");
  const PodGroup& pg = objs.podgroups.at(0);
  EXPECT_EQ(pg.meta.Key(), "default/pg");
  EXPECT_EQ(pg.min_member, 3);
  EXPECT_EQ(pg.min_task_member, (std::map<std::string, int32_t>{{"ps", 1}, {"worker", 2}}));
  EXPECT_EQ(pg.queue, "q1");
  EXPECT_EQ(pg.priority_class_name, "high");
  EXPECT_EQ(*pg.min_resources, *Resource::Parse("cpu=3,memory=3Gi"));
  EXPECT_EQ(pg.phase, PodGroupPhase::kInqueue);
}

// A PodGroup without status is Pending and has no minResources.
TEST(DecodeTest, PodGroupDefaults) {
  ClusterObjects objs = DecodeOk(PodGroupWith("{minMember: 1}"));
  const PodGroup& pg = objs.podgroups.at(0);
  EXPECT_EQ(pg.phase, PodGroupPhase::kPending);
  EXPECT_FALSE(pg.min_resources.has_value());
}

// vcjob fields, policies and task templates.
TEST(DecodeTest, VcJobFields) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: team}
spec:
  minAvailable: 3
  minSuccess: 2
  queue: q1
  schedulerName: volcano
  priorityClassName: high
  policies:
  - {event: PodEvicted, action: RestartJob}
  - {events: [PodFailed, Unknown], action: AbortJob, timeout: 10m}
  tasks:
  - name: ps
    replicas: 1
    template:
      metadata: {labels: {role: ps}, annotations: {a: b}}
      spec:
        containers: [{name: c, resources: {requests: {cpu: 1, memory: 1Gi}}}]
  - name: worker
    replicas: 2
    minAvailable: 2
    maxRetry: 5
    policies: [{exitCode: 3, action: CompleteJob}]
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: 2, nvidia.com/gpu: 1}}}]
status:
  state: {phase: Running}
  retryCount: 1
  version: 2
)"));
  const VcJob& j = objs.jobs.at(0);
  EXPECT_EQ(j.meta.Key(), "team/j");
  EXPECT_EQ(j.min_available, 3);
  EXPECT_EQ(j.min_success, 2);
  EXPECT_EQ(j.queue, "q1");
  EXPECT_EQ(j.scheduler_name, "volcano");
  EXPECT_EQ(j.priority_class_name, "high");
  EXPECT_EQ(j.max_retry, 3);  // default
  ASSERT_EQ(j.policies.size(), 2u);
  EXPECT_EQ(j.policies[0].events, std::vector<std::string>{"PodEvicted"});
  EXPECT_EQ(j.policies[0].action, "RestartJob");
  EXPECT_EQ(j.policies[1].events, (std::vector<std::string>{"PodFailed", "Unknown"}));
  EXPECT_EQ(j.policies[1].timeout, "10m");
  ASSERT_EQ(j.tasks.size(), 2u);
  EXPECT_EQ(j.tasks[0].name, "ps");
  EXPECT_EQ(j.tasks[0].replicas, 1);
  EXPECT_FALSE(j.tasks[0].min_available.has_value());
  EXPECT_EQ(j.tasks[0].template_meta.labels.at("role"), "ps");
  EXPECT_EQ(j.tasks[0].template_meta.annotations.at("a"), "b");
  EXPECT_EQ(j.tasks[0].template_spec.request, *Resource::Parse("cpu=1,memory=1Gi,pods=1"));
  EXPECT_EQ(j.tasks[1].min_available, 2);
  EXPECT_EQ(j.tasks[1].max_retry, 5);
  EXPECT_EQ(j.tasks[1].policies.at(0).exit_code, 3);
  EXPECT_EQ(j.tasks[1].template_spec.request, *Resource::Parse("cpu=2,nvidia.com/gpu=1,pods=1"));
  EXPECT_EQ(j.phase, "Running");
  EXPECT_EQ(j.retry_count, 1);
  EXPECT_EQ(j.version, 2);
}

// A vcjob without status is Pending.
TEST(DecodeTest, VcJobDefaults) {
  ClusterObjects objs = DecodeOk(
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\n"
      "spec: {tasks: [{name: t, replicas: 1, template: {spec: {}}}]}\n");
  const VcJob& j = objs.jobs.at(0);
  EXPECT_EQ(j.meta.namespace_, "default");
  EXPECT_EQ(j.phase, "Pending");
  EXPECT_EQ(j.retry_count, 0);
}

// PriorityClass, owner objects and namespaces decode.
TEST(DecodeTest, PriorityClassOwnersAndNamespaces) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globalDefault: true
preemptionPolicy: Never
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: web}
---
apiVersion: batch/v1
kind: Job
metadata: {name: bj}
---
apiVersion: v1
kind: Namespace
metadata: {name: web, annotations: {scheduling.volcano.sh/queue-name: q1}}
)"));
  ASSERT_EQ(objs.priority_classes.size(), 1u);
  EXPECT_EQ(objs.priority_classes[0].value, 1000);
  EXPECT_TRUE(objs.priority_classes[0].global_default);
  EXPECT_EQ(objs.priority_classes[0].preemption_policy, "Never");
  ASSERT_EQ(objs.owners.size(), 2u);
  EXPECT_EQ(objs.owners[0].kind, "ReplicaSet");
  EXPECT_EQ(objs.owners[0].meta.Key(), "web/rs");
  EXPECT_EQ(objs.owners[1].api_version, "batch/v1");
  EXPECT_EQ(objs.owners[1].meta.Key(), "default/bj");
  EXPECT_TRUE(objs.jobs.empty());  // a batch/v1 Job is an owner, not a vcjob
  ASSERT_EQ(objs.namespaces.size(), 1u);
  EXPECT_EQ(objs.namespaces[0].annotations.at("scheduling.volcano.sh/queue-name"), "q1");
}

// JSON input decodes like YAML.
TEST(DecodeTest, JsonInput) {
  ClusterObjects objs = DecodeOk(R"({
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "p", "namespace": "ns", "labels": {"a": "b"}},
  "spec": {"priority": 7, "containers": [{"name": "c", "resources": {"requests": {"cpu": "250m", "memory": 1073741824}}}]},
  "status": {"phase": "Pending"}
})",
                                 "c.json");
  const Pod& p = objs.pods.at(0);
  EXPECT_EQ(p.meta.Key(), "ns/p");
  EXPECT_EQ(p.spec.priority, 7);
  EXPECT_EQ(p.spec.request, *Resource::Parse("cpu=250m,memory=1Gi,pods=1"));
  EXPECT_EQ(p.meta.source, "c.json:1");
}

// Several documents, empty ones skipped, each remembering the line it starts on.
TEST(DecodeTest, MultiDocument) {
  ClusterObjects objs = DecodeOk(Y(R"(
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: 1}}
---
---
# a comment-only document
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: 2}}
...
)"));
  ASSERT_EQ(objs.nodes.size(), 2u);
  EXPECT_EQ(objs.nodes[0].meta.name, "n1");
  EXPECT_EQ(objs.nodes[0].meta.source, "c.yaml:2");
  EXPECT_EQ(objs.nodes[1].meta.name, "n2");
  EXPECT_EQ(objs.nodes[1].meta.source, "c.yaml:10");
}

// A List's items decode in order, each with its own line.
TEST(DecodeTest, ListItems) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {capacity: {cpu: 1}}}
- apiVersion: v1
  kind: Node
  metadata: {name: b}
  status: {capacity: {cpu: 1}}
)"));
  ASSERT_EQ(objs.nodes.size(), 2u);
  EXPECT_EQ(objs.nodes[0].meta.source, "c.yaml:4");
  EXPECT_EQ(objs.nodes[1].meta.source, "c.yaml:5");
}

// Anchors and aliases that do not form a cycle are fine.
TEST(DecodeTest, AnchorsAndAliases) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: &l {zone: a, rack: r1}}
status: {capacity: &c {cpu: 4, memory: 8Gi}, allocatable: *c}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
status: {capacity: {cpu: 4}}
)"));
  EXPECT_EQ(objs.nodes.at(0).meta.labels.at("rack"), "r1");
  EXPECT_EQ(objs.nodes.at(0).allocatable, *Resource::Parse("cpu=4,memory=8Gi"));
}

// Timestamps: fractional seconds and offsets are honoured; untimed objects are 0.
TEST(DecodeTest, CreationTimestamps) {
  ClusterObjects objs = DecodeOk(Y(R"(
apiVersion: v1
kind: Node
metadata: {name: a, creationTimestamp: "2024-05-01T10:00:00Z"}
status: {capacity: {cpu: 1}}
---
apiVersion: v1
kind: Node
metadata: {name: b, creationTimestamp: "2024-05-01T12:00:00.123456+02:00"}
status: {capacity: {cpu: 1}}
---
apiVersion: v1
kind: Node
metadata: {name: c}
status: {capacity: {cpu: 1}}
)"));
  EXPECT_EQ(objs.nodes[0].meta.creation_timestamp, 1714557600);
  EXPECT_EQ(objs.nodes[1].meta.creation_timestamp, 1714557600);
  EXPECT_EQ(objs.nodes[2].meta.creation_timestamp, 0);
}

// RFC 3339 details: epoch, leap day, negative offsets, lowercase separators.
TEST(DecodeTest, ParseTimestampValues) {
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseTimestamp("2024-02-29T00:00:00Z"), 1709164800);
  EXPECT_EQ(*ParseTimestamp("2024-05-01T05:30:00-04:30"), 1714557600);
  EXPECT_EQ(*ParseTimestamp("2024-05-01t10:00:00.9z"), 1714557600);
  EXPECT_EQ(*ParseTimestamp("1969-12-31T23:59:59Z"), -1);
  EXPECT_FALSE(ParseTimestamp("2023-02-29T00:00:00Z").ok());
  EXPECT_FALSE(ParseTimestamp("2024-05-01T10:00:00.Z").ok());
  EXPECT_FALSE(ParseTimestamp("2024-05-01 10:00:00Z").ok());
  EXPECT_FALSE(ParseTimestamp("2024-05-01T10:00:00+2:00").ok());
}

// YAML 1.1 booleans as Kubernetes reads them.
TEST(DecodeTest, YamlBooleans) {
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON"}) {
    EXPECT_EQ(ParseYamlBool(t), true) << t;
  }
  for (const char* f :
       {"false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"}) {
    EXPECT_EQ(ParseYamlBool(f), false) << f;
  }
  for (const char* x : {"", "1", "0", "tRue", "enabled"})
    EXPECT_EQ(ParseYamlBool(x), std::nullopt) << x;
}

// LoadPath reads every *.yaml, *.yml and *.json below a folder, sorted by path,
// and ignores other files.
TEST(DecodeTest, LoadPathFolderOrder) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("basalt-decode-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "b" / "deeper");
  auto write = [&](const fs::path& rel, const std::string& node_name) {
    std::ofstream(dir / rel) << "apiVersion: v1\nkind: Node\nmetadata: {name: " << node_name
                             << "}\nstatus: {capacity: {cpu: 1}}\n";
  };
  write("z.yaml", "z");
  write("a.yml", "a");
  write("b/deeper/d.json", "bd");
  write("b/c.yaml", "bc");
  write("notes.txt", "ignored");
  ClusterObjects objs;
  Status st = LoadPath(dir.string(), &objs);
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<std::string> names;
  for (const Node& n : objs.nodes) names.push_back(n.meta.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "bc", "bd", "z"}));
  EXPECT_EQ(objs.nodes[1].meta.source, (dir / "b" / "c.yaml").string() + ":1");
  // A single file loads on its own, whatever its extension.
  ClusterObjects one;
  ASSERT_TRUE(LoadPath((dir / "notes.txt").string(), &one).ok());
  EXPECT_EQ(one.nodes.at(0).meta.name, "ignored");
  fs::remove_all(dir);
}

// An error inside a folder names the file it is in.
TEST(DecodeTest, LoadPathErrorNamesFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("basalt-decode-err-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bad.yaml")
      << "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {priority: z}\n";
  ClusterObjects objs;
  Status st = LoadPath(dir.string(), &objs);
  EXPECT_EQ(st.message(), (dir / "bad.yaml").string() +
                              ":1: Pod x/p: spec.priority: expected an integer, got \"z\"");
  fs::remove_all(dir);
}

// CheckYamlTree on its own: the path and line of a duplicate key, and the node
// budget (one per node visited: the root map, the list, three scalars).
TEST(DecodeTest, CheckYamlTreeDirectly) {
  YAML::Node dup = YAML::Load("a:\n  b: 1\n  c: [x, {d: 1, d: 2}]\n");
  size_t budget = 100;
  int line = -1;
  Status st = CheckYamlTree(dup, &budget, &line);
  EXPECT_EQ(st.message(), "a.c[1].d: duplicate key");
  EXPECT_EQ(line, 2);
  YAML::Node ok = YAML::Load("a: [1, 2, 3]\n");
  budget = 5;
  EXPECT_TRUE(CheckYamlTree(ok, &budget, &line).ok());
  EXPECT_EQ(budget, 0u);
  budget = 4;
  Status over = CheckYamlTree(ok, &budget, &line);
  EXPECT_EQ(over.message(), "a[2]: document too large (aliases expand it beyond the node limit)");
}

// =====================================================================
// Robustness: random mutations of a valid manifest never crash or throw.
// =====================================================================

const char* kFuzzSeed = R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
spec: {taints: [{key: k, value: v, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: 2}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: &m {name: q1}
spec: {weight: 2, capability: {cpu: 10}, reclaimable: true}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default, creationTimestamp: "2024-05-01T10:00:00Z"}
spec: {minMember: 2, queue: q1, minResources: {cpu: 2}}
status: {phase: Inqueue}
---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
  annotations: {scheduling.k8s.io/group-name: pg}
spec:
  priority: 10
  nodeName: n1
  tolerations: [{key: k, operator: Exists}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
  containers:
  - name: c
    resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {nvidia.com/gpu: 1}}
  initContainers: [{name: i, restartPolicy: Always, resources: {requests: {cpu: 1}}}]
status: {phase: Running}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default}
spec:
  minAvailable: 1
  policies: [{event: PodEvicted, action: RestartJob}]
  tasks: [{name: t, replicas: 2, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]
---
{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}, "status": {"capacity": {"cpu": "1"}}}]}
)";

// Mutates `text` once: delete, insert, replace or duplicate a range, or truncate.
std::string Mutate(const std::string& text, std::mt19937& rng) {
  static const std::string kAlphabet = " \n\t:-[]{},&*!|>'\"#%@`?.0123456789eEiKMGmn~yZ\\";
  std::string s = text;
  auto pos = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n)(rng); };
  int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t at = pos(s.size() - 1);
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
      case 0:
        s.erase(at, 1 + pos(8));
        break;
      case 1:
        s.insert(at, 1, kAlphabet[pos(kAlphabet.size() - 1)]);
        break;
      case 2:
        s[at] = kAlphabet[pos(kAlphabet.size() - 1)];
        break;
      case 3: {
        size_t len = std::min<size_t>(1 + pos(60), s.size() - at);
        s.insert(pos(s.size()), s.substr(at, len));
        break;
      }
      case 4:
        s.resize(at);
        break;
      default: {
        size_t other = pos(s.size() - 1);
        std::swap(s[at], s[other]);
        break;
      }
    }
  }
  return s;
}

// Thousands of mutated manifests (fixed seed): DecodeText always returns a
// status, never throws or crashes; some still decode, most do not.
TEST(DecodeRobustnessTest, RandomMutationsNeverThrow) {
  ASSERT_TRUE(DecodeOk(kFuzzSeed).pods.size() == 1);
  std::mt19937 rng(20240501);
  int ok = 0, failed = 0;
  for (int i = 0; i < 2500; ++i) {
    std::string text = Mutate(kFuzzSeed, rng);
    ClusterObjects objs;
    try {
      Status st = DecodeText(text, "fuzz.yaml", &objs);
      (st.ok() ? ok : failed)++;
      if (!st.ok()) {
        ASSERT_EQ(st.message().rfind("fuzz.yaml", 0), 0u)
            << "message must start with the file: " << st.message();
      }
    } catch (...) {
      FAIL() << "DecodeText threw on input:\n" << text;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace basalt
