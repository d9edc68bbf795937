// Decoding manifests (api/decode.h): the object model built from good input, and
// for bad input a message naming the file and line, the object and the field
// (DESIGN.md: "Bad input: exit code 2 and a message naming the file, the object
// and the field"). Nothing user-supplied may crash or throw.
#include "api/decode.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <yaml-cpp/yaml.h>

#include "state/cluster_state.h"

namespace basalt {
namespace {

// Raw-string manifests start with a newline for readability; drop it so that the
// first line of the text is line 1.
std::string Y(const char* text) {
  std::string s(text);
  if (!s.empty() && s[0] == '\n') s.erase(0, 1);
  return s;
}

ClusterObjects DecodeOk(const std::string& text, const std::string& file = "c.yaml") {
  ClusterObjects objs;
  Status st = DecodeText(text, file, &objs);
  EXPECT_TRUE(st.ok()) << st.message();
  return objs;
}

std::string DecodeError(const std::string& text, const std::string& file = "c.yaml") {
  ClusterObjects objs;
  Status st = DecodeText(text, file, &objs);
  EXPECT_FALSE(st.ok()) << "decoded without error:\n" << text;
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  return st.message();
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

// A pod whose only container requests `requests` (flow-style YAML map body).
std::string PodRequesting(const std::string& requests) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"
         "spec:\n  containers:\n  - name: c\n    resources:\n      requests: {" +
         requests + "}\n";
}

std::string NodeWith(const std::string& status) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: " + status + "\n";
}

std::string QueueWith(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\nspec: " + spec + "\n";
}

std::string PodGroupWith(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: default}\n"
         "spec: " +
         spec + "\n";
}

std::string PodWithSpec(const std::string& spec_body) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec: " + spec_body + "\n";
}

const char* kPodPrefix = "c.yaml:1: Pod default/p1: ";

// =====================================================================
// Malformed input: every message names file:line, object and field.
// =====================================================================

// A bad quantity in a container's requests.
TEST(DecodeErrorTest, BadQuantityInRequests) {
  std::string msg = DecodeError(PodRequesting("cpu: abc"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.containers[0].resources.requests.cpu: invalid quantity \"abc\": expected a number");
}

// A bad quantity in a container's limits.
TEST(DecodeErrorTest, BadQuantityInLimits) {
  std::string msg = DecodeError(
      PodWithSpec("{containers: [{name: c, resources: {limits: {memory: 1Gb}}}]}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.containers[0].resources.limits.memory: invalid quantity \"1Gb\": unknown suffix \"Gb\"");
}

// A bad quantity in an init container.
TEST(DecodeErrorTest, BadQuantityInInitContainer) {
  std::string msg = DecodeError(PodWithSpec(
      "{containers: [{name: c}], initContainers: [{name: i}, {name: j, resources: {requests: {cpu: 1.2.3}}}]}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.initContainers[1].resources.requests.cpu: invalid quantity \"1.2.3\": more than one "
                      "decimal point");
}

// A bad quantity in the pod overhead.
TEST(DecodeErrorTest, BadQuantityInOverhead) {
  std::string msg = DecodeError(PodWithSpec("{containers: [{name: c}], overhead: {cpu: \"1 m\"}}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) + "spec.overhead.cpu: invalid quantity \"1 m\": whitespace");
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
  EXPECT_HAS(DecodeError(QueueWith("{guarantee: {resource: {nvidia.com/gpu: --1}}}")),
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
  EXPECT_HAS(msg, "c.yaml:1: Job default/j: spec.tasks[0].template.spec.containers[0].resources.requests.cpu: "
                  "invalid quantity \"2x\"");
}

// A negative quantity is refused.
TEST(DecodeErrorTest, NegativeQuantity) {
  EXPECT_HAS(DecodeError(PodRequesting("cpu: \"-1\"")),
             std::string(kPodPrefix) + "spec.containers[0].resources.requests.cpu: negative quantity \"-1\"");
}

// A quantity above the 2^62 limit is refused (see the overflow policy in resource.h).
TEST(DecodeErrorTest, QuantityAboveLimit) {
  EXPECT_HAS(DecodeError(NodeWith("{allocatable: {memory: 5Ei}}")),
             "c.yaml:1: Node n1: status.allocatable.memory: quantity \"5Ei\" is too large (the limit is 4Ei)");
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
             std::string(kPodPrefix) + "spec.containers[0].resources.requests.gpu: unknown resource name \"gpu\" "
                                       "(extended resources need a domain prefix, e.g. nvidia.com/gpu)");
  EXPECT_HAS(DecodeError(PodRequesting("Example.com/x: 1")),
             "requests.Example.com/x: unknown resource name");
}

// A quantity must be a scalar.
TEST(DecodeErrorTest, QuantityNotScalar) {
  EXPECT_HAS(DecodeError(PodRequesting("cpu: {value: 1}")),
             std::string(kPodPrefix) + "spec.containers[0].resources.requests.cpu: expected a quantity, got an object");
}

// An unknown kind names the kind and the supported ones.
TEST(DecodeErrorTest, UnknownKind) {
  std::string msg = DecodeError("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\n");
  EXPECT_HAS(msg, "c.yaml:1: Service default/s: kind: unsupported kind \"Service\" with apiVersion \"v1\"");
  EXPECT_HAS(msg, "scheduling.volcano.sh/v1beta1 Queue, PodGroup");
}

// A known kind with an unsupported apiVersion.
TEST(DecodeErrorTest, UnsupportedApiVersion) {
  EXPECT_HAS(DecodeError("apiVersion: v2\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"),
             "c.yaml:1: Pod default/p1: apiVersion: \"v2\" is not supported for Pod (want v1)");
  EXPECT_HAS(DecodeError("apiVersion: scheduling.volcano.sh/v1alpha1\nkind: Queue\nmetadata: {name: q}\n"),
             "c.yaml:1: Queue q: apiVersion: \"scheduling.volcano.sh/v1alpha1\" is not supported for Queue "
             "(want scheduling.volcano.sh/v1beta1)");
}

// A document without kind, or with a kind that is not a string.
TEST(DecodeErrorTest, MissingOrNonStringKind) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nmetadata: {name: p}\n"), "c.yaml:1: kind: missing");
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: [Pod]\n"), "c.yaml:1: kind: expected a string, got a list");
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
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, labels: app}\n"),
             std::string(kPodPrefix) + "metadata.labels: expected an object, got a scalar");
  EXPECT_HAS(
      DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, annotations: {a: [1]}}\n"),
      std::string(kPodPrefix) + "metadata.annotations.a: expected a string, got a list");
}

// spec.priority must be an int32.
TEST(DecodeErrorTest, PriorityWrongType) {
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: high}")), std::string(kPodPrefix) +
                                                               "spec.priority: expected an integer, got \"high\"");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 3000000000}")),
             std::string(kPodPrefix) + "spec.priority: value 3000000000 out of range [-2147483648, 2147483647]");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 99999999999999999999999}")),
             "spec.priority: value 99999999999999999999999 out of range");
  EXPECT_HAS(DecodeError(PodWithSpec("{priority: 1e3}")), "spec.priority: expected an integer, got \"1e3\"");
}

// PodGroup minMember must be a non-negative integer.
TEST(DecodeErrorTest, MinMemberWrongType) {
  EXPECT_HAS(DecodeError(PodGroupWith("{minMember: two}")),
             "c.yaml:1: PodGroup default/pg: spec.minMember: expected an integer, got \"two\"");
  EXPECT_HAS(DecodeError(PodGroupWith("{minMember: -1}")), "spec.minMember: value -1 out of range");
  EXPECT_HAS(DecodeError(PodGroupWith("{minTaskMember: {worker: [1]}}")),
             "c.yaml:1: PodGroup default/pg: spec.minTaskMember.worker: expected an integer, got a list");
}

// Queue weight must be an integer.
TEST(DecodeErrorTest, WeightWrongType) {
  EXPECT_HAS(DecodeError(QueueWith("{weight: 1.5}")), "c.yaml:1: Queue q1: spec.weight: expected an integer, got \"1.5\"");
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
  EXPECT_HAS(DecodeError(QueueWith("{affinity: {nodeGroupAffinity: g1}}")),
             "c.yaml:1: Queue q1: spec.affinity.nodeGroupAffinity: expected an object, got a scalar");
  EXPECT_HAS(DecodeError(QueueWith("{affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: g1}}}")),
             "c.yaml:1: Queue q1: spec.affinity.nodeGroupAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
             "expected a list, got a scalar");
  EXPECT_HAS(
      DecodeError(QueueWith("{affinity: {nodeGroupAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                            "[g1, {name: g2}]}}}")),
      "c.yaml:1: Queue q1: spec.affinity.nodeGroupAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]: "
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
             "c.yaml:1: Node n1: spec.taints[0].effect: want NoSchedule, PreferNoSchedule or NoExecute, got \"NoRun\"");
  EXPECT_HAS(DecodeError(node("{effect: NoSchedule}")), "c.yaml:1: Node n1: spec.taints[0].key: missing");
}

// A toleration's operator and effect are checked.
TEST(DecodeErrorTest, BadToleration) {
  EXPECT_HAS(DecodeError(PodWithSpec("{tolerations: [{key: k, operator: Equals, value: v}]}")),
             std::string(kPodPrefix) + "spec.tolerations[0].operator: unknown operator \"Equals\" (want Equal or Exists)");
  EXPECT_HAS(DecodeError(PodWithSpec("{tolerations: [{operator: Exists}, {key: k, effect: Never}]}")),
             std::string(kPodPrefix) + "spec.tolerations[1].effect: unknown effect \"Never\"");
}

// A node-affinity requirement's operator is checked.
TEST(DecodeErrorTest, BadNodeAffinityOperator) {
  std::string msg = DecodeError(PodWithSpec(
      "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
      "[{matchExpressions: [{key: zone, operator: Within, values: [a]}]}]}}}}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
                      "matchExpressions[0].operator: unknown operator \"Within\"");
}

// Gt and Lt take exactly one integer value.
TEST(DecodeErrorTest, GtWithTwoValues) {
  auto pod = [](const std::string& values) {
    return PodWithSpec(
        "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: cores, operator: Gt, values: " +
        values + "}]}]}}}}");
  };
  std::string prefix = std::string(kPodPrefix) +
                       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
                       "matchExpressions[0].";
  EXPECT_HAS(DecodeError(pod("[\"1\", \"2\"]")), prefix + "values: Gt and Lt take exactly one value");
  EXPECT_HAS(DecodeError(pod("[four]")), prefix + "values[0]: expected an integer, got \"four\"");
}

// A preferred term's weight is within [1, 100].
TEST(DecodeErrorTest, PreferredWeightOutOfRange) {
  std::string msg = DecodeError(PodWithSpec(
      "{affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
      "[{weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}}"));
  EXPECT_HAS(msg, std::string(kPodPrefix) +
                      "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
                      "value 0 out of range [1, 100]");
}

// creationTimestamp must be RFC 3339 with a zone and a real date.
TEST(DecodeErrorTest, BadCreationTimestamp) {
  auto pod = [](const std::string& ts) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, creationTimestamp: \"" + ts +
           "\"}\n";
  };
  EXPECT_HAS(DecodeError(pod("yesterday")),
             std::string(kPodPrefix) + "metadata.creationTimestamp: invalid time \"yesterday\"");
  EXPECT_HAS(DecodeError(pod("2024-02-30T00:00:00Z")), "\"2024-02-30T00:00:00Z\": day out of range");
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
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"),
             "c.yaml:1: Node n1: status.allocatable: missing (a node needs allocatable or capacity)");
  EXPECT_HAS(DecodeError(NodeWith("{conditions: []}")), "c.yaml:1: Node n1: status.allocatable: missing");
}

// A vcjob needs a spec with at least one task.
TEST(DecodeErrorTest, JobWithoutTasks) {
  const std::string head = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: default}\n";
  EXPECT_HAS(DecodeError(head + "spec: {minAvailable: 1}\n"),
             "c.yaml:1: Job default/j: spec.tasks: missing (a job needs at least one task)");
  EXPECT_HAS(DecodeError(head + "spec: {tasks: []}\n"), "c.yaml:1: Job default/j: spec.tasks: missing");
  EXPECT_HAS(DecodeError(head), "c.yaml:1: Job default/j: spec: missing");
}

// Every vcjob task needs a template.
TEST(DecodeErrorTest, JobTaskWithoutTemplate) {
  EXPECT_HAS(DecodeError("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
                         "spec: {tasks: [{name: a, replicas: 1, template: {spec: {}}}, {name: b, replicas: 1}]}\n"),
             "c.yaml:1: Job default/j: spec.tasks[1].template: missing");
}

// Malformed YAML reports the parser's line and column.
TEST(DecodeErrorTest, MalformedYamlHasLineAndColumn) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n   namespace: x\n"),
             "c.yaml:5:13: malformed YAML/JSON: illegal map value");
  EXPECT_HAS(DecodeError("a: 1\nb: [1, 2\nc: 3\n"), "c.yaml:3:2: malformed YAML/JSON: end of sequence flow not found");
}

// A JSON document with a syntax error reports its position.
TEST(DecodeErrorTest, MalformedJson) {
  EXPECT_HAS(DecodeError("{\"apiVersion\": \"v1\", \"kind\": \"Pod\" \"metadata\": {}}", "c.json"),
             "c.json:1:36: malformed YAML/JSON: end of map flow not found");
}

// The same object twice, in two files, is reported with both locations.
TEST(DecodeErrorTest, DuplicateObjectAcrossFiles) {
  const std::string pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {}\n";
  ClusterObjects objs;
  ASSERT_TRUE(DecodeText(pod, "a.yaml", &objs).ok());
  ASSERT_TRUE(DecodeText("---\n" + pod, "b.yaml", &objs).ok());
  ClusterState state;
  Status st = state.AddAll(std::move(objs));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kAlreadyExists);
  EXPECT_EQ(st.message(), "a.yaml:1: Pod default/p: metadata.name: duplicate (also defined at b.yaml:2)");
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
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: []}\n"),
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
  EXPECT_HAS(msg, std::string(kPodPrefix) + "spec.containers[0].resources.requests: duplicate key (line 9)");
}

// A mapping key must be a scalar.
TEST(DecodeErrorTest, NonScalarKey) {
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: default\n"
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
  std::string text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nx0: &a0 [1,1,1,1,1,1,1,1,1,1]\n";
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
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, ownerReferences: "
                         "[{name: rs, apiVersion: apps/v1}]}\n"),
             std::string(kPodPrefix) + "metadata.ownerReferences[0].kind: missing");
}

// A PriorityClass needs a value within Kubernetes' range.
TEST(DecodeErrorTest, PriorityClassValue) {
  const std::string head = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n";
  EXPECT_HAS(DecodeError(head), "c.yaml:1: PriorityClass high: value: missing");
  EXPECT_HAS(DecodeError(head + "value: 3000000000\n"), "c.yaml:1: PriorityClass high: value: value 3000000000 out of range");
}

// containers must be a list.
TEST(DecodeErrorTest, ContainersNotAList) {
  EXPECT_HAS(DecodeError(PodWithSpec("{containers: {name: c}}")),
             std::string(kPodPrefix) + "spec.containers: expected a list, got an object");
}

// A host port outside 0..65535.
TEST(DecodeErrorTest, HostPortOutOfRange) {
  EXPECT_HAS(DecodeError(PodWithSpec("{containers: [{name: c, ports: [{hostPort: 70000}]}]}")),
             std::string(kPodPrefix) + "spec.containers[0].ports[0].hostPort: value 70000 out of range [0, 65535]");
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
             std::string(kPodPrefix) + "spec.preemptionPolicy: want Never or PreemptLowerPriority, got \"Sometimes\"");
}

// A vcjob's retry count cannot be negative.
TEST(DecodeErrorTest, JobNegativeRetryCount) {
  EXPECT_HAS(DecodeError("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
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
// =====================================================================

// A pod's request is the sum of its containers, plus the implicit pods: 1.
TEST(DecodeTest, PodRequestSumsContainers) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 1, memory: 1Gi, nvidia.com/gpu: 1}}}, "
      "{name: b, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}"));
  ASSERT_EQ(objs.pods.size(), 1u);
  EXPECT_EQ(objs.pods[0].spec.request, *Resource::Parse("cpu=1500m,memory=1536Mi,nvidia.com/gpu=1,pods=1"));
}

// Init containers run one at a time: the request is the max of the app sum and
// each init container. cpu: max(1 + 0.5, 4) = 4; memory: max(1.5Gi, 1Gi) = 1.5Gi.
TEST(DecodeTest, PodRequestMaxWithInitContainers) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 1, memory: 1Gi}}}, "
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
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 2}}}], initContainers: ["
      "{name: s, restartPolicy: Always, resources: {requests: {cpu: 1}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request.milli_cpu(), 3000);
}

// The overhead is added to the app containers before the max with init
// containers, as Volcano does: max(1 + 0.25, 2) = 2 (Kubernetes would say 2.25).
TEST(DecodeTest, PodOverheadJoinsTheAppSum) {
  ClusterObjects with_init = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {requests: {cpu: 1}}}], overhead: {cpu: 250m, memory: 64Mi}, "
      "initContainers: [{name: i, resources: {requests: {cpu: 2}}}]}"));
  EXPECT_EQ(with_init.pods[0].spec.request, *Resource::Parse("cpu=2,memory=64Mi,pods=1"));
  ClusterObjects without_init =
      DecodeOk(PodWithSpec("{containers: [{name: a, resources: {requests: {cpu: 1}}}], overhead: {cpu: 250m}}"));
  EXPECT_EQ(without_init.pods[0].spec.request.milli_cpu(), 1250);
}

// A limit stands in for a missing request, per resource (the API server's defaulting).
TEST(DecodeTest, LimitsUsedWhenRequestsAbsent) {
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{containers: [{name: a, resources: {limits: {cpu: 2, memory: 1Gi, nvidia.com/gpu: 1}, "
      "requests: {memory: 512Mi}}}]}"));
  EXPECT_EQ(objs.pods[0].spec.request, *Resource::Parse("cpu=2,memory=512Mi,nvidia.com/gpu=1,pods=1"));
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
  ClusterObjects objs = DecodeOk(PodWithSpec(
      "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
      "[{matchExpressions: [{key: cores, operator: Gt, values: [\"4\"]}], matchFields: [{key: metadata.name, "
      "operator: In, values: [n1, n2]}]}]}, preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, "
      "preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}]}}}"));
  const PodSpec& s = objs.pods.at(0).spec;
  ASSERT_EQ(s.required_node_affinity.size(), 1u);
  EXPECT_EQ(s.required_node_affinity[0].match_expressions.at(0).op, "Gt");
  EXPECT_EQ(s.required_node_affinity[0].match_expressions.at(0).values, std::vector<std::string>{"4"});
  EXPECT_EQ(s.required_node_affinity[0].match_fields.at(0).values, (std::vector<std::string>{"n1", "n2"}));
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
  ClusterObjects objs = DecodeOk(QueueWith(
                                     "{weight: 3, priority: 5, reclaimable: false, parent: root, "
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
  ClusterObjects objs = DecodeOk(PodGroupWith("{minMember: 3, minTaskMember: {ps: 1, worker: 2}, queue: q1, "
                                              "priorityClassName: high, minResources: {cpu: 3, memory: 3Gi}}") +
                                 "status: {phase: Inqueue}\n");
  const PodGroup& pg = objs.podgroups.at(0);
  EXPECT_EQ(pg.meta.Key(), "default/pg");
  EXPECT_EQ(pg.min_member, 3);
  EXPECT_EQ(pg.min_task_member, (std::map<std::string, int32_t>{{"ps", 1}, {"worker", 2}}));
  EXPECT_EQ(pg.queue, "q1");
  EXPECT_EQ(pg.priority_class_name, "high");
  EXPECT_EQ(*pg.min_resources, *Resource::Parse("cpu=3,memory=3Gi"));
  EXPECT_EQ(pg.phase, "Inqueue");
}

// A PodGroup without status has phase "" (= Pending) and no minResources.
TEST(DecodeTest, PodGroupDefaults) {
  ClusterObjects objs = DecodeOk(PodGroupWith("{minMember: 1}"));
  const PodGroup& pg = objs.podgroups.at(0);
  EXPECT_EQ(pg.phase, "");
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
  ClusterObjects objs = DecodeOk("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\n"
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
  for (const char* f : {"false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"}) {
    EXPECT_EQ(ParseYamlBool(f), false) << f;
  }
  for (const char* x : {"", "1", "0", "tRue", "enabled"}) EXPECT_EQ(ParseYamlBool(x), std::nullopt) << x;
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
  std::ofstream(dir / "bad.yaml") << "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {priority: z}\n";
  ClusterObjects objs;
  Status st = LoadPath(dir.string(), &objs);
  EXPECT_EQ(st.message(), (dir / "bad.yaml").string() + ":1: Pod x/p: spec.priority: expected an integer, got \"z\"");
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
      case 0: s.erase(at, 1 + pos(8)); break;
      case 1: s.insert(at, 1, kAlphabet[pos(kAlphabet.size() - 1)]); break;
      case 2: s[at] = kAlphabet[pos(kAlphabet.size() - 1)]; break;
      case 3: {
        size_t len = std::min<size_t>(1 + pos(60), s.size() - at);
        s.insert(pos(s.size()), s.substr(at, len));
        break;
      }
      case 4: s.resize(at); break;
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
        ASSERT_EQ(st.message().rfind("fuzz.yaml", 0), 0u) << "message must start with the file: " << st.message();
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
