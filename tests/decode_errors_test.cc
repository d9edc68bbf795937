// Decoding bad manifests (api/decode.h): a message naming the file and line, the
// object and the field, exit code 2 at the command line (docs/design.md, failure
// policy). Nothing user-supplied may crash or throw.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "api/decode.h"
#include "decode_test_util.h"
#include "state/cluster_state.h"

namespace basalt {
namespace {

using namespace decode_test;  // NOLINT: the shared manifest builders

// =====================================================================
// Malformed input: every message names file:line, object and field.
// =====================================================================

// A bad quantity in a container's requests.
TEST(DecodeErrorTest, BadQuantityInRequests) {
  std::string msg = DecodeError(PodRequesting("cpu: abc"));
  EXPECT_HAS(
      msg,
      std::string(kPodPrefix) +
          "spec.containers[0].resources.requests.cpu: invalid quantity \"abc\": expected a number");
}

// A bad quantity in a container's limits.
TEST(DecodeErrorTest, BadQuantityInLimits) {
  std::string msg =
      DecodeError(PodWithSpec("{containers: [{name: c, resources: {limits: {memory: 1Gb}}}]}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.containers[0].resources.limits.memory: invalid quantity \"1Gb\": "
                      "unknown suffix \"Gb\"");
}

// A bad quantity in an init container.
TEST(DecodeErrorTest, BadQuantityInInitContainer) {
  std::string msg =
      DecodeError(PodWithSpec("{containers: [{name: c}], initContainers: [{name: i}, {name: j, "
                              "resources: {requests: {cpu: 1.2.3}}}]}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.initContainers[1].resources.requests.cpu: invalid quantity \"1.2.3\": "
                      "more than one "
                      "decimal point");
}

// A bad quantity in the pod overhead.
TEST(DecodeErrorTest, BadQuantityInOverhead) {
  std::string msg = DecodeError(PodWithSpec("{containers: [{name: c}], overhead: {cpu: \"1 m\"}}"));
  EXPECT_HAS(msg,
             std::string(kPodPrefix) + "spec.overhead.cpu: invalid quantity \"1 m\": whitespace");
}

// A bad quantity in a node's allocatable.
TEST(DecodeErrorTest, BadQuantityInNodeAllocatable) {
  std::string msg = DecodeError(NodeWith("{allocatable: {cpu: lots}}"));
  EXPECT_HAS(msg, "c.yaml:1: Node n1: status.allocatable.cpu: invalid quantity \"lots\"");
}

// A bad quantity in a node's capacity.
TEST(DecodeErrorTest, BadQuantityInNodeCapacity) {
  std::string msg = DecodeError(NodeWith("{capacity: {memory: 8GiB}}"));
  EXPECT_HAS(msg, "c.yaml:1: Node n1: status.capacity.memory: invalid quantity \"8GiB\"");
}

// A bad quantity in a queue's capability, deserved and guarantee.
TEST(DecodeErrorTest, BadQuantityInQueueResources) {
  EXPECT_HAS(DecodeError(QueueWith("{capability: {cpu: x}}")),
             "c.yaml:1: Queue q1: spec.capability.cpu: invalid quantity \"x\"");
  EXPECT_HAS(DecodeError(QueueWith("{deserved: {memory: 1Kb}}")),
             "c.yaml:1: Queue q1: spec.deserved.memory: invalid quantity \"1Kb\"");
  EXPECT_HAS(
      DecodeError(QueueWith("{guarantee: {resource: {nvidia.com/gpu: --1}}}")),
      "c.yaml:1: Queue q1: spec.guarantee.resource.nvidia.com/gpu: invalid quantity \"--1\"");
}

// A bad quantity in a PodGroup's minResources.
TEST(DecodeErrorTest, BadQuantityInMinResources) {
  EXPECT_HAS(DecodeError(PodGroupWith("{minMember: 1, minResources: {cpu: 1e}}")),
             "c.yaml:1: PodGroup default/pg: spec.minResources.cpu: invalid quantity \"1e\"");
}

// A bad quantity inside a vcjob task template.
TEST(DecodeErrorTest, BadQuantityInJobTemplate) {
  std::string msg = DecodeError(Y(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default}
spec:
  tasks:
  - name: t
    replicas: 1
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: 2x}}}]
)"));
  EXPECT_HAS(
      msg,
      "c.yaml:1: Job default/j: spec.tasks[0].template.spec.containers[0].resources.requests.cpu: "
      "invalid quantity \"2x\"");
}

// A negative quantity is refused.
TEST(DecodeErrorTest, NegativeQuantity) {
  EXPECT_HAS(DecodeError(PodRequesting("cpu: \"-1\"")),
             std::string(kPodPrefix) +
                 "spec.containers[0].resources.requests.cpu: negative quantity \"-1\"");
}

// A quantity above the 2^62 limit is refused (see the overflow policy in resource.h).
TEST(DecodeErrorTest, QuantityAboveLimit) {
  EXPECT_HAS(DecodeError(NodeWith("{allocatable: {memory: 5Ei}}")),
             "c.yaml:1: Node n1: status.allocatable.memory: quantity \"5Ei\" is too large (the "
             "limit is 4Ei)");
  EXPECT_HAS(DecodeError(NodeWith("{allocatable: {cpu: 5e15}}")),
             "status.allocatable.cpu: quantity \"5e15\" is too large");
}

// A quantity past int64 is out of range, not wrapped.
TEST(DecodeErrorTest, QuantityPastInt64) {
  EXPECT_HAS(DecodeError(NodeWith("{allocatable: {memory: 8Ei}}")),
             "status.allocatable.memory: invalid quantity \"8Ei\": out of range");
}

// An unprefixed resource name Kubernetes does not know is an error, not a silent drop.
TEST(DecodeErrorTest, UnknownResourceName) {
  EXPECT_HAS(DecodeError(PodRequesting("gpu: 1")),
             std::string(kPodPrefix) +
                 "spec.containers[0].resources.requests.gpu: unknown resource name \"gpu\" "
                 "(extended resources need a domain prefix, e.g. nvidia.com/gpu)");
  EXPECT_HAS(DecodeError(PodRequesting("Example.com/x: 1")),
             "requests.Example.com/x: unknown resource name");
}

// A quantity must be a scalar.
TEST(DecodeErrorTest, QuantityNotScalar) {
  EXPECT_HAS(DecodeError(PodRequesting("cpu: {value: 1}")),
             std::string(kPodPrefix) +
                 "spec.containers[0].resources.requests.cpu: expected a quantity, got an object");
}

// An unknown kind names the kind and the supported ones.
TEST(DecodeErrorTest, UnknownKind) {
  std::string msg =
      DecodeError("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\n");
  EXPECT_HAS(
      msg,
      "c.yaml:1: Service default/s: kind: unsupported kind \"Service\" with apiVersion \"v1\"");
  EXPECT_HAS(msg, "scheduling.volcano.sh/v1beta1 Queue, PodGroup");
}

// A known kind with an unsupported apiVersion.
TEST(DecodeErrorTest, UnsupportedApiVersion) {
  EXPECT_HAS(DecodeError("apiVersion: v2\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"),
             "c.yaml:1: Pod default/p1: apiVersion: \"v2\" is not supported for Pod (want v1)");
  EXPECT_HAS(
      DecodeError("apiVersion: scheduling.volcano.sh/v1alpha1\nkind: Queue\nmetadata: {name: q}\n"),
      "c.yaml:1: Queue q: apiVersion: \"scheduling.volcano.sh/v1alpha1\" is not supported for "
      "Queue "
      "(want scheduling.volcano.sh/v1beta1)");
}

// A document without kind, or with a kind that is not a string.
TEST(DecodeErrorTest, MissingOrNonStringKind) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nmetadata: {name: p}\n"), "c.yaml:1: kind: missing");
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: [Pod]\n"),
             "c.yaml:1: kind: expected a string, got a list");
}

// A document that is not an object.
TEST(DecodeErrorTest, DocumentNotAnObject) {
  EXPECT_HAS(DecodeError("just a string\n"), "c.yaml:1: expected an object, got a scalar");
  EXPECT_HAS(DecodeError("- 1\n- 2\n"), "c.yaml:1: expected an object, got a list");
}

// metadata.name is required.
TEST(DecodeErrorTest, MissingMetadataName) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {namespace: default}\nspec: {}\n"),
             "c.yaml:1: Pod: metadata.name: missing");
}

// metadata is required and must be an object.
TEST(DecodeErrorTest, MetadataMissingOrNotAnObject) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Node\nstatus: {capacity: {cpu: 1}}\n"),
             "c.yaml:1: Node: metadata: missing");
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Node\nmetadata: [n1]\n"),
             "c.yaml:1: Node: metadata: expected an object, got a list");
}

// labels must be an object of strings.
TEST(DecodeErrorTest, LabelsNotAMap) {
  EXPECT_HAS(
      DecodeError(
          "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, labels: app}\n"),
      std::string(kPodPrefix) + "metadata.labels: expected an object, got a scalar");
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, "
                         "annotations: {a: [1]}}\n"),
             std::string(kPodPrefix) + "metadata.annotations.a: expected a string, got a list");
}

// spec.priority must be an int32.
TEST(DecodeErrorTest, PriorityWrongType) {
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: high}")),
             std::string(kPodPrefix) + "spec.priority: expected an integer, got \"high\"");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 3000000000}")),
             std::string(kPodPrefix) +
                 "spec.priority: value 3000000000 out of range [-2147483648, 2147483647]");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 99999999999999999999999}")),
             "spec.priority: value 99999999999999999999999 out of range");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 1e3}")),
             "spec.priority: expected an integer, got \"1e3\"");
}

// PodGroup minMember must be a non-negative integer.
TEST(DecodeErrorTest, MinMemberWrongType) {
  EXPECT_HAS(DecodeError(PodGroupWith("{minMember: two}")),
             "c.yaml:1: PodGroup default/pg: spec.minMember: expected an integer, got \"two\"");
  EXPECT_HAS(DecodeError(PodGroupWith("{minMember: -1}")), "spec.minMember: value -1 out of range");
  EXPECT_HAS(
      DecodeError(PodGroupWith("{minTaskMember: {worker: [1]}}")),
      "c.yaml:1: PodGroup default/pg: spec.minTaskMember.worker: expected an integer, got a list");
}

// Queue weight must be an integer.
TEST(DecodeErrorTest, WeightWrongType) {
  EXPECT_HAS(DecodeError(QueueWith("{weight: 1.5}")),
             "c.yaml:1: Queue q1: spec.weight: expected an integer, got \"1.5\"");
}

// Queue reclaimable must be a boolean.
TEST(DecodeErrorTest, ReclaimableWrongType) {
  EXPECT_HAS(DecodeError(QueueWith("{reclaimable: maybe}")),
             "c.yaml:1: Queue q1: spec.reclaimable: expected true or false, got \"maybe\"");
}

// Queue spec.affinity (nodegroup plugin): lists of node-group names.
TEST(DecodeTest, QueueNodeGroupAffinity) {
  ClusterObjects objs = DecodeOk(QueueWith(
      "{affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [g1, g2], "
      "preferredDuringSchedulingIgnoredDuringExecution: [g1]}, "
      "nodeGroupAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [g3]}}}"));
  ASSERT_EQ(objs.queues.size(), 1u);
  const Queue& q = objs.queues[0];
  ASSERT_TRUE(q.affinity.has_value());
  ASSERT_TRUE(q.affinity->node_group_affinity.has_value());
  EXPECT_EQ(q.affinity->node_group_affinity->required, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(q.affinity->node_group_affinity->preferred, (std::vector<std::string>{"g1"}));
  ASSERT_TRUE(q.affinity->node_group_anti_affinity.has_value());
  EXPECT_EQ(q.affinity->node_group_anti_affinity->required, (std::vector<std::string>{"g3"}));
  EXPECT_TRUE(q.affinity->node_group_anti_affinity->preferred.empty());
  EXPECT_FALSE(DecodeOk(QueueWith("{weight: 1}")).queues[0].affinity.has_value());
  EXPECT_TRUE(DecodeOk(QueueWith("{affinity: {}}")).queues[0].affinity.has_value());
}

// Queue spec.affinity with wrong types: the file, the queue and the field.
TEST(DecodeErrorTest, QueueAffinityWrongTypes) {
  EXPECT_HAS(DecodeError(QueueWith("{affinity: [g1]}")),
             "c.yaml:1: Queue q1: spec.affinity: expected an object, got a list");
  EXPECT_HAS(
      DecodeError(QueueWith("{affinity: {nodeGroupAffinity: g1}}")),
      "c.yaml:1: Queue q1: spec.affinity.nodeGroupAffinity: expected an object, got a scalar");
  EXPECT_HAS(
      DecodeError(QueueWith(
          "{affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: g1}}}")),
      "c.yaml:1: Queue q1: "
      "spec.affinity.nodeGroupAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
      "expected a list, got a scalar");
  EXPECT_HAS(
      DecodeError(QueueWith(
          "{affinity: {nodeGroupAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
          "[g1, {name: g2}]}}}")),
      "c.yaml:1: Queue q1: "
      "spec.affinity.nodeGroupAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]: "
      "expected a string, got an object");
}

// Node unschedulable must be a boolean.
TEST(DecodeErrorTest, UnschedulableWrongType) {
  std::string msg = DecodeError(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: [true]}\n"
      "status: {capacity: {cpu: 1}}\n");
  EXPECT_HAS(msg, "c.yaml:1: Node n1: spec.unschedulable: expected true or false, got a list");
}

// A taint needs a key and a known effect.
TEST(DecodeErrorTest, BadTaint) {
  auto node = [](const std::string& taint) {
    return "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [" + taint +
           "]}\nstatus: {capacity: {cpu: 1}}\n";
  };
  EXPECT_HAS(DecodeError(node("{key: k, effect: NoRun}")),
             "c.yaml:1: Node n1: spec.taints[0].effect: want NoSchedule, PreferNoSchedule or "
             "NoExecute, got \"NoRun\"");
  EXPECT_HAS(DecodeError(node("{effect: NoSchedule}")),
             "c.yaml:1: Node n1: spec.taints[0].key: missing");
}

// A toleration's operator and effect are checked.
TEST(DecodeErrorTest, BadToleration) {
  EXPECT_HAS(
      DecodeError(PodWithSpec("{tolerations: [{key: k, operator: Equals, value: v}]}")),
      std::string(kPodPrefix) +
          "spec.tolerations[0].operator: unknown operator \"Equals\" (want Equal or Exists)");
  EXPECT_HAS(
      DecodeError(PodWithSpec("{tolerations: [{operator: Exists}, {key: k, effect: Never}]}")),
      std::string(kPodPrefix) + "spec.tolerations[1].effect: unknown effect \"Never\"");
}

// A node-affinity requirement's operator is checked.
TEST(DecodeErrorTest, BadNodeAffinityOperator) {
  std::string msg = DecodeError(
      PodWithSpec("{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                  "{nodeSelectorTerms: "
                  "[{matchExpressions: [{key: zone, operator: Within, values: [a]}]}]}}}}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                      "nodeSelectorTerms[0]."
                      "matchExpressions[0].operator: unknown operator \"Within\"");
}

// Gt and Lt take exactly one integer value.
TEST(DecodeErrorTest, GtWithTwoValues) {
  auto pod = [](const std::string& values) {
    return PodWithSpec(
        "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: "
        "[{matchExpressions: [{key: cores, operator: Gt, values: " +
        values + "}]}]}}}}");
  };
  std::string prefix = std::string(kPodPrefix) +
                       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                       "nodeSelectorTerms[0]."
                       "matchExpressions[0].";
  EXPECT_HAS(DecodeError(pod("[\"1\", \"2\"]")),
             prefix + "values: Gt and Lt take exactly one value");
  EXPECT_HAS(DecodeError(pod("[four]")), prefix + "values[0]: expected an integer, got \"four\"");
}

// A preferred term's weight is within [1, 100].
TEST(DecodeErrorTest, PreferredWeightOutOfRange) {
  std::string msg = DecodeError(PodWithSpec(
      "{affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
      "[{weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}}"));
  EXPECT_HAS(
      msg,
      std::string(kPodPrefix) +
          "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
          "value 0 out of range [1, 100]");
}

// creationTimestamp must be RFC 3339 with a zone and a real date.
TEST(DecodeErrorTest, BadCreationTimestamp) {
  auto pod = [](const std::string& ts) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, creationTimestamp: "
           "\"" +
           ts + "\"}\n";
  };
  EXPECT_HAS(DecodeError(pod("yesterday")),
             std::string(kPodPrefix) + "metadata.creationTimestamp: invalid time \"yesterday\"");
  EXPECT_HAS(DecodeError(pod("2024-02-30T00:00:00Z")),
             "\"2024-02-30T00:00:00Z\": day out of range");
  EXPECT_HAS(DecodeError(pod("2024-05-01T10:00:00")), "missing zone");
  EXPECT_HAS(DecodeError(pod("2024-05-01T10:00:00Z junk")), "the zone must be Z or an offset");
  EXPECT_HAS(DecodeError(pod("2024-05-01T10:00:60Z")), "second out of range");
}

// A pod phase outside Kubernetes' five.
TEST(DecodeErrorTest, BadPodPhase) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"
                         "spec: {}\nstatus: {phase: Sleeping}\n"),
             std::string(kPodPrefix) + "status.phase: unknown phase \"Sleeping\"");
}

// A Running pod must name its node.
TEST(DecodeErrorTest, RunningPodWithoutNodeName) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"
                         "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"),
             std::string(kPodPrefix) + "spec.nodeName: a Running pod must name its node");
}

// A node needs allocatable or capacity.
TEST(DecodeErrorTest, NodeWithoutAllocatable) {
  EXPECT_HAS(
      DecodeError("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"),
      "c.yaml:1: Node n1: status.allocatable: missing (a node needs allocatable or capacity)");
  EXPECT_HAS(DecodeError(NodeWith("{conditions: []}")),
             "c.yaml:1: Node n1: status.allocatable: missing");
}

// A vcjob needs a spec with at least one task.
TEST(DecodeErrorTest, JobWithoutTasks) {
  const std::string head =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: default}\n";
  EXPECT_HAS(DecodeError(head + "spec: {minAvailable: 1}\n"),
             "c.yaml:1: Job default/j: spec.tasks: missing (a job needs at least one task)");
  EXPECT_HAS(DecodeError(head + "spec: {tasks: []}\n"),
             "c.yaml:1: Job default/j: spec.tasks: missing");
  EXPECT_HAS(DecodeError(head), "c.yaml:1: Job default/j: spec: missing");
}

// Every vcjob task needs a template.
TEST(DecodeErrorTest, JobTaskWithoutTemplate) {
  EXPECT_HAS(DecodeError("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, "
                         "namespace: default}\n"
                         "spec: {tasks: [{name: a, replicas: 1, template: {spec: {}}}, {name: b, "
                         "replicas: 1}]}\n"),
             "c.yaml:1: Job default/j: spec.tasks[1].template: missing");
}

// Malformed YAML reports the parser's line and column.
TEST(DecodeErrorTest, MalformedYamlHasLineAndColumn) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n   namespace: x\n"),
             "c.yaml:5:13: malformed YAML/JSON: illegal map value");
  EXPECT_HAS(DecodeError("a: 1\nb: [1, 2\nc: 3\n"),
             "c.yaml:3:2: malformed YAML/JSON: end of sequence flow not found");
}

// A JSON document with a syntax error reports its position.
TEST(DecodeErrorTest, MalformedJson) {
  EXPECT_HAS(DecodeError("{\"apiVersion\": \"v1\", \"kind\": \"Pod\" \"metadata\": {}}", "c.json"),
             "c.json:1:36: malformed YAML/JSON: end of map flow not found");
}

// The same object twice, in two files, is reported with both locations.
TEST(DecodeErrorTest, DuplicateObjectAcrossFiles) {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {}\n";
  ClusterObjects objs;
  ASSERT_TRUE(DecodeText(pod, "a.yaml", &objs).ok());
  ASSERT_TRUE(DecodeText("---\n" + pod, "b.yaml", &objs).ok());
  ClusterState state;
  Status st = state.AddAll(std::move(objs));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kAlreadyExists);
  EXPECT_EQ(st.message(),
            "a.yaml:1: Pod default/p: metadata.name: duplicate (also defined at b.yaml:2)");
}

// A List whose item is bad names the item's line and object.
TEST(DecodeErrorTest, ListWithBadItem) {
  std::string msg = DecodeError(Y(R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {capacity: {cpu: 1}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  status: {capacity: {cpu: one}}
)"));
  EXPECT_HAS(msg, "c.yaml:8: Node n2: status.capacity.cpu: invalid quantity \"one\"");
}

// List items must be a list, and a List cannot nest another List.
TEST(DecodeErrorTest, ListShape) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: List\nitems: {a: 1}\n"),
             "c.yaml:1: List: items: expected a list, got an object");
  EXPECT_HAS(DecodeError(
                 "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: []}\n"),
             "c.yaml:4: kind: a List cannot contain another List");
}

// A key given twice in one mapping is an error (Kubernetes' strict decoding
// refuses it; yaml-cpp would silently keep the first).
TEST(DecodeErrorTest, DuplicateKey) {
  std::string msg = DecodeError(Y(R"(
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 1}
      requests: {cpu: 2}
)"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.containers[0].resources.requests: duplicate key (line 9)");
}

// A mapping key must be a scalar.
TEST(DecodeErrorTest, NonScalarKey) {
  EXPECT_HAS(
      DecodeError("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: default\n"
                  "  labels: {[a, b]: c}\n"),
      std::string(kPodPrefix) + "metadata.labels: keys must be strings, got a list (line 6)");
}

// An alias that refers to its own ancestor is refused instead of recursing forever.
TEST(DecodeErrorTest, CyclicAlias) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: List\nitems: &x [*x]\n"),
             "c.yaml:1: List: items[0]: an alias refers to its own ancestor");
}

// A "billion laughs" document is refused before it is walked.
TEST(DecodeErrorTest, AliasExpansionBomb) {
  std::string text =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nx0: &a0 "
      "[1,1,1,1,1,1,1,1,1,1]\n";
  for (int i = 1; i < 10; ++i) {
    text += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += std::string(k ? "," : "") + "*a" + std::to_string(i - 1);
    text += "]\n";
  }
  auto start = std::chrono::steady_clock::now();
  std::string msg = DecodeError(text);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_HAS(msg, std::string(kPodPrefix));
  EXPECT_HAS(msg, "document too large (aliases expand it beyond the node limit)");
}

// Nesting deeper than kMaxYamlDepth is refused.
TEST(DecodeErrorTest, DeepNesting) {
  std::string text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nx: " +
                     std::string(150, '[') + std::string(150, ']') + "\n";
  EXPECT_HAS(DecodeError(text), "nested more than 100 levels deep");
}

// Nesting deep enough to trip yaml-cpp's own guard is a malformed document, not a crash.
TEST(DecodeErrorTest, VeryDeepNesting) {
  std::string text = "x: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  std::string msg = DecodeError(text);
  EXPECT_EQ(msg.rfind("c.yaml:", 0), 0u) << msg;
  EXPECT_HAS(msg, "malformed YAML/JSON");
}

// An owner reference needs a kind and a name.
TEST(DecodeErrorTest, OwnerReferenceWithoutKind) {
  EXPECT_HAS(
      DecodeError(
          "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, ownerReferences: "
          "[{name: rs, apiVersion: apps/v1}]}\n"),
      std::string(kPodPrefix) + "metadata.ownerReferences[0].kind: missing");
}

// A PriorityClass needs a value within Kubernetes' range.
TEST(DecodeErrorTest, PriorityClassValue) {
  const std::string head =
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n";
  EXPECT_HAS(DecodeError(head), "c.yaml:1: PriorityClass high: value: missing");
  EXPECT_HAS(DecodeError(head + "value: 3000000000\n"),
             "c.yaml:1: PriorityClass high: value: value 3000000000 out of range");
}

// containers must be a list.
TEST(DecodeErrorTest, ContainersNotAList) {
  EXPECT_HAS(DecodeError(PodWithSpec("{containers: {name: c}}")),
             std::string(kPodPrefix) + "spec.containers: expected a list, got an object");
}

// A host port outside 0..65535.
TEST(DecodeErrorTest, HostPortOutOfRange) {
  EXPECT_HAS(DecodeError(PodWithSpec("{containers: [{name: c, ports: [{hostPort: 70000}]}]}")),
             std::string(kPodPrefix) +
                 "spec.containers[0].ports[0].hostPort: value 70000 out of range [0, 65535]");
}

// Queue state and PodGroup phase must be known values.
TEST(DecodeErrorTest, UnknownQueueStateAndPodGroupPhase) {
  EXPECT_HAS(DecodeError(QueueWith("{}") + "status: {state: Opened}\n"),
             "c.yaml:1: Queue q1: status.state: unknown state \"Opened\"");
  EXPECT_HAS(DecodeError(PodGroupWith("{}") + "status: {phase: Done}\n"),
             "c.yaml:1: PodGroup default/pg: status.phase: unknown phase \"Done\"");
}

// preemptionPolicy must be Never or PreemptLowerPriority.
TEST(DecodeErrorTest, BadPreemptionPolicy) {
  EXPECT_HAS(DecodeError(PodWithSpec("{preemptionPolicy: Sometimes}")),
             std::string(kPodPrefix) +
                 "spec.preemptionPolicy: want Never or PreemptLowerPriority, got \"Sometimes\"");
}

// A vcjob's retry count cannot be negative.
TEST(DecodeErrorTest, JobNegativeRetryCount) {
  EXPECT_HAS(
      DecodeError("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, "
                  "namespace: default}\n"
                  "spec: {tasks: [{name: t, template: {spec: {}}}]}\nstatus: {retryCount: -1}\n"),
      "c.yaml:1: Job default/j: status.retryCount: value -1 out of range");
}

// In a multi-document file, the error names the line the bad document starts on.
TEST(DecodeErrorTest, ErrorInSecondDocumentNamesItsLine) {
  std::string msg = DecodeError(Y(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: team}
spec: {priority: x}
)"));
  EXPECT_HAS(msg, "c.yaml:6: Pod team/b: spec.priority: expected an integer, got \"x\"");
}

// A missing path is NotFound, naming the path.
TEST(DecodeErrorTest, LoadPathMissing) {
  ClusterObjects objs;
  Status st = LoadPath("/nonexistent/basalt/cluster", &objs);
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_EQ(st.message(), "/nonexistent/basalt/cluster: no such file or folder");
}

// =====================================================================
// Good input: the object model.

}  // namespace
}  // namespace basalt
