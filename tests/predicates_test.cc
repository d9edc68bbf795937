// Tests of the `predicates` plugin (src/plugins/predicates.cc) and the
// Kubernetes matching helpers it uses (src/plugins/k8s_match.h).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/statement.h"
#include "plugins/builtin.h"
#include "plugins/k8s_match.h"
#include "testing.h"

namespace basalt {
namespace {

using Code = PredicateStatus::Code;
using testing::SessionFixture;

// ---- manifest builders ----

// A Node manifest: allocatable cpu 8, memory 16Gi, pods 110 and Ready unless set.
class NodeB {
 public:
  explicit NodeB(std::string name) : name_(std::move(name)) {}
  NodeB& Labels(std::string v) {
    labels_ = std::move(v);
    return *this;
  }  // flow-map body, "zone: a"
  NodeB& Spec(std::string v) {
    spec_ = std::move(v);
    return *this;
  }  // flow-map body, "unschedulable: true"
  NodeB& Alloc(std::string v) {
    alloc_ = std::move(v);
    return *this;
  }
  NodeB& Ready(std::string v) {
    ready_ = std::move(v);
    return *this;
  }  // Ready condition status
  std::string Yaml() const {
    return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name_ + ", labels: {" + labels_ +
           "}}\nspec: {" + spec_ + "}\nstatus: {allocatable: {" + alloc_ +
           "}, conditions: [{type: Ready, status: \"" + ready_ + "\"}]}\n---\n";
  }

 private:
  std::string name_, labels_, spec_;
  std::string alloc_ = "cpu: \"8\", memory: 16Gi, pods: \"110\"";
  std::string ready_ = "True";
};

// A pod requesting 1 cpu and 1Gi: pending in its own PodGroup "pg-<name>", or
// Running on a node (no PodGroup) when Node() is set.
class PodB {
 public:
  explicit PodB(std::string name) : name_(std::move(name)) {}
  PodB& Spec(std::string v) {
    spec_ = std::move(v);
    return *this;
  }  // extra spec entries, "nodeSelector: {a: b}"
  PodB& Ports(std::string v) {
    ports_ = std::move(v);
    return *this;
  }  // container ports flow-list body
  PodB& Node(std::string v) {
    node_ = std::move(v);
    return *this;
  }
  PodB& Annotations(std::string v) {
    annotations_ = std::move(v);
    return *this;
  }
  std::string Yaml() const {
    std::string extra = spec_.empty() ? "" : spec_ + ", ";
    std::string container =
        "{name: c, resources: {requests: {cpu: \"1\", memory: 1Gi}}, ports: [" + ports_ + "]}";
    if (!node_.empty()) {
      return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name_ +
             ", namespace: default}\nspec: {" + extra + "nodeName: " + node_ + ", containers: [" +
             container + "]}\nstatus: {phase: Running}\n---\n";
    }
    std::string ann = "scheduling.k8s.io/group-name: pg-" + name_ +
                      (annotations_.empty() ? "" : ", " + annotations_);
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name_ +
           ", namespace: default, annotations: {" + ann + "}}\nspec: {" + extra +
           "schedulerName: volcano, containers: [" + container +
           "]}\nstatus: {phase: Pending}\n---\n"
           "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg-" +
           name_ + ", namespace: default}\nspec: {minMember: 1, queue: default}\n---\n";
  }

 private:
  std::string name_, spec_, ports_, node_, annotations_;
};

// Only the predicates plugin, with the given `arguments:` flow-map body.
std::string Conf(const std::string& args = "") {
  return "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: predicates\n    arguments: "
         "{" +
         args + "}\n";
}

PredicateStatus Check(SessionFixture& fx, const std::string& pod, const std::string& node) {
  return fx.ssn().Predicate(fx.Task("default/" + pod), fx.NodeNamed(node));
}

TaskInfo& MutableTask(SessionFixture& fx, const std::string& key) {
  return fx.ssn().task(fx.Task(key).id);
}
NodeInfo& MutableNode(SessionFixture& fx, const std::string& name) {
  return fx.ssn().node(fx.NodeNamed(name).id);
}

// ---- pod count ----

// A node already holding allocatable `pods` pods rejects another one as
// Unschedulable (resolvable by eviction).
TEST(PredicatesPodCount, FullNodeIsUnschedulable) {
  // n1 allows 1 pod and runs 1 -> 1 >= 1.
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi, pods: \"1\"").Yaml() +
                        PodB("r1").Node("n1").Yaml() + PodB("p1").Yaml(),
                    Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnschedulable);
  EXPECT_EQ(st.reasons, std::vector<std::string>{"node(s) pod number exceeded"});
}

// Below the limit the pod count check passes.
TEST(PredicatesPodCount, RoomLeftPasses) {
  // n1 allows 2 pods and runs 1 -> 1 < 2.
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi, pods: \"2\"").Yaml() +
                        PodB("r1").Node("n1").Yaml() + PodB("p1").Yaml(),
                    Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// A node without `pods` in allocatable has a limit of 0 and takes no pod.
TEST(PredicatesPodCount, NoPodsAllocatableMeansZero) {
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi").Yaml() + PodB("p1").Yaml(),
                    Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").reasons, std::vector<std::string>{"node(s) pod number exceeded"});
}

// A pod allocated in the session counts against the node right away.
TEST(PredicatesPodCount, SessionAllocationCounts) {
  // n1 allows 1 pod; p1 is allocated in the session -> p2 sees 1 >= 1.
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi, pods: \"1\"").Yaml() +
                        PodB("p1").Yaml() + PodB("p2").Yaml(),
                    Conf());
  ASSERT_TRUE(Check(fx, "p2", "n1").ok());
  Statement::CommitAtOnce(fx.ssn()).Allocate(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Check(fx, "p2", "n1").reasons, std::vector<std::string>{"node(s) pod number exceeded"});
}

// A pipelined pod counts too (Volcano adds it to the node view on pipeline).
TEST(PredicatesPodCount, PipelinedPodCounts) {
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi, pods: \"1\"").Yaml() +
                        PodB("p1").Yaml() + PodB("p2").Yaml(),
                    Conf());
  Statement::CommitAtOnce(fx.ssn()).Pipeline(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Check(fx, "p2", "n1").code, Code::kUnschedulable);
}

// A pod evicted in the session leaves Volcano's node view at once, although it
// stays on the node as Releasing: its slot is free for predicates.
TEST(PredicatesPodCount, SessionEvictionFreesTheSlot) {
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", memory: 16Gi, pods: \"1\"").Yaml() +
                        PodB("r1").Node("n1").Yaml() + PodB("p1").Yaml(),
                    Conf());
  ASSERT_FALSE(Check(fx, "p1", "n1").ok());
  Statement::CommitAtOnce(fx.ssn()).Evict(MutableTask(fx, "default/r1"), "preempt", "test");
  EXPECT_EQ(fx.NodeNamed("n1").pod_count(), 1);  // still there, Releasing
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// ---- node unschedulable (cordon) ----

// A cordoned node is UnschedulableAndUnresolvable.
TEST(PredicatesUnschedulable, CordonedNodeRejects) {
  SessionFixture fx(NodeB("n1").Spec("unschedulable: true").Yaml() + PodB("p1").Yaml(), Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnresolvable);
  EXPECT_EQ(st.reasons, std::vector<std::string>{"node(s) were unschedulable"});
}

// Tolerating node.kubernetes.io/unschedulable:NoSchedule also tolerates the cordon.
TEST(PredicatesUnschedulable, ToleratedCordonPasses) {
  SessionFixture fx(
      NodeB("n1").Spec("unschedulable: true").Yaml() +
          PodB("p1")
              .Spec("tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, "
                    "effect: NoSchedule}]")
              .Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// A NoExecute-only toleration of the unschedulable key does not tolerate the cordon.
TEST(PredicatesUnschedulable, WrongEffectToleranceStillRejects) {
  SessionFixture fx(
      NodeB("n1").Spec("unschedulable: true").Yaml() +
          PodB("p1")
              .Spec("tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, "
                    "effect: NoExecute}]")
              .Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").code, Code::kUnresolvable);
}

// An UnschedulableAndUnresolvable failure stops the remaining checks, but the
// pod count status found before it is kept (as in Volcano's fit error).
TEST(PredicatesUnschedulable, StopsLaterChecksKeepsEarlierReasons) {
  // n1: full (pods 1, r1 running with port 80) and cordoned; p1 also wants port 80.
  SessionFixture fx(
      NodeB("n1").Spec("unschedulable: true").Alloc("cpu: \"8\", pods: \"1\"").Yaml() +
          PodB("r1").Ports("{containerPort: 80, hostPort: 80}").Node("n1").Yaml() +
          PodB("p1").Ports("{containerPort: 80, hostPort: 80}").Yaml(),
      Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnresolvable);
  EXPECT_EQ(st.reasons, (std::vector<std::string>{"node(s) pod number exceeded",
                                                  "node(s) were unschedulable"}));
}

// ---- node not ready ----

// A node whose Ready condition is not True rejects pods as Unresolvable.
TEST(PredicatesNotReady, NotReadyNodeRejects) {
  SessionFixture fx(NodeB("n1").Ready("False").Yaml() + PodB("p1").Yaml(), Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnresolvable);
  EXPECT_EQ(st.reasons, std::vector<std::string>{"node(s) were not ready"});
}

// Tolerating node.kubernetes.io/not-ready:NoSchedule lets a pod onto a NotReady node.
TEST(PredicatesNotReady, ToleratedNotReadyPasses) {
  SessionFixture fx(
      NodeB("n1").Ready("Unknown").Yaml() +
          PodB("p1")
              .Spec("tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, "
                    "effect: NoSchedule}]")
              .Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// A NotReady node that already carries the not-ready taint is judged by the
// taint check, giving Volcano's own message.
TEST(PredicatesNotReady, ExplicitTaintGivesTaintMessage) {
  SessionFixture fx(
      NodeB("n1")
              .Spec("taints: [{key: node.kubernetes.io/not-ready, effect: NoSchedule}]")
              .Ready("False")
              .Yaml() +
          PodB("p1").Yaml(),
      Conf());
  EXPECT_EQ(
      Check(fx, "p1", "n1").reasons,
      std::vector<std::string>{"node(s) had untolerated taint {node.kubernetes.io/not-ready: }"});
}

// NotReady emulates the not-ready taint, so it is off with TaintTolerationEnable.
TEST(PredicatesNotReady, TaintSwitchOffAdmits) {
  SessionFixture fx(NodeB("n1").Ready("False").Yaml() + PodB("p1").Yaml(),
                    Conf("predicate.TaintTolerationEnable: false"));
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// ---- node selector / required node affinity ----

// A nodeSelector label the node lacks is Unresolvable with the affinity reason.
TEST(PredicatesNodeAffinity, NodeSelectorMismatchRejects) {
  SessionFixture fx(
      NodeB("n1").Labels("zone: a").Yaml() + PodB("p1").Spec("nodeSelector: {zone: b}").Yaml(),
      Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnresolvable);
  EXPECT_EQ(st.reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
}

// A matching nodeSelector passes.
TEST(PredicatesNodeAffinity, NodeSelectorMatchPasses) {
  SessionFixture fx(NodeB("n1").Labels("zone: a, disk: ssd").Yaml() +
                        PodB("p1").Spec("nodeSelector: {zone: a, disk: ssd}").Yaml(),
                    Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// nodeSelector and required affinity must both hold.
TEST(PredicatesNodeAffinity, SelectorAndAffinityAreAnded) {
  const std::string affinity =
      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "{nodeSelectorTerms: "
      "[{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}]}}}";
  SessionFixture fx(NodeB("n1").Labels("zone: a, disk: hdd").Yaml() +
                        NodeB("n2").Labels("zone: a, disk: ssd").Yaml() +
                        PodB("p1").Spec("nodeSelector: {zone: a}, " + affinity).Yaml(),
                    Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").code, Code::kUnresolvable);
  EXPECT_TRUE(Check(fx, "p1", "n2").ok());
}

// Required terms are ORed: matching any one term is enough.
TEST(PredicatesNodeAffinity, TermsAreOred) {
  const std::string affinity =
      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "{nodeSelectorTerms: ["
      "{matchExpressions: [{key: zone, operator: In, values: [x]}]}, "
      "{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}";
  SessionFixture fx(NodeB("n1").Labels("zone: a").Yaml() + PodB("p1").Spec(affinity).Yaml(),
                    Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// matchFields on metadata.name selects nodes by name.
TEST(PredicatesNodeAffinity, MatchFieldsOnName) {
  const std::string affinity =
      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "{nodeSelectorTerms: ["
      "{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}";
  SessionFixture fx(NodeB("n1").Yaml() + NodeB("n2").Yaml() + PodB("p1").Spec(affinity).Yaml(),
                    Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").code, Code::kUnresolvable);
  EXPECT_TRUE(Check(fx, "p1", "n2").ok());
}

// With predicate.NodeAffinityEnable false, selectors are not checked.
TEST(PredicatesNodeAffinity, SwitchOffAdmits) {
  SessionFixture fx(
      NodeB("n1").Labels("zone: a").Yaml() + PodB("p1").Spec("nodeSelector: {zone: b}").Yaml(),
      Conf("predicate.NodeAffinityEnable: false"));
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// ---- the matching rules themselves (k8s_match.h) ----

Node LabeledNode(std::map<std::string, std::string> labels, std::string name = "n1") {
  Node n;
  n.meta.name = std::move(name);
  n.meta.labels = std::move(labels);
  return n;
}

NodeSelectorTerm Term(std::vector<NodeSelectorRequirement> exprs,
                      std::vector<NodeSelectorRequirement> fields = {}) {
  return NodeSelectorTerm{std::move(exprs), std::move(fields)};
}

// In matches a listed value; a missing label never matches In.
TEST(PredicatesMatch, InOperator) {
  NodeSelectorTerm t = Term({{"zone", "In", {"a", "b"}}});
  EXPECT_TRUE(k8s::MatchesTerm(t, LabeledNode({{"zone", "b"}})));
  EXPECT_FALSE(k8s::MatchesTerm(t, LabeledNode({{"zone", "c"}})));
  EXPECT_FALSE(k8s::MatchesTerm(t, LabeledNode({})));
}

// NotIn rejects listed values and matches a node without the label.
TEST(PredicatesMatch, NotInOperatorMatchesMissingLabel) {
  NodeSelectorTerm t = Term({{"zone", "NotIn", {"a"}}});
  EXPECT_FALSE(k8s::MatchesTerm(t, LabeledNode({{"zone", "a"}})));
  EXPECT_TRUE(k8s::MatchesTerm(t, LabeledNode({{"zone", "b"}})));
  EXPECT_TRUE(k8s::MatchesTerm(t, LabeledNode({})));
}

// Exists / DoesNotExist look at the key only.
TEST(PredicatesMatch, ExistsAndDoesNotExist) {
  EXPECT_TRUE(k8s::MatchesTerm(Term({{"gpu", "Exists", {}}}), LabeledNode({{"gpu", ""}})));
  EXPECT_FALSE(k8s::MatchesTerm(Term({{"gpu", "Exists", {}}}), LabeledNode({})));
  EXPECT_TRUE(k8s::MatchesTerm(Term({{"gpu", "DoesNotExist", {}}}), LabeledNode({})));
  EXPECT_FALSE(k8s::MatchesTerm(Term({{"gpu", "DoesNotExist", {}}}), LabeledNode({{"gpu", "1"}})));
}

// Gt/Lt compare integers; a missing or non-integer label does not match.
TEST(PredicatesMatch, GtAndLtCompareIntegers) {
  NodeSelectorTerm gt = Term({{"cores", "Gt", {"8"}}});
  NodeSelectorTerm lt = Term({{"cores", "Lt", {"8"}}});
  EXPECT_TRUE(k8s::MatchesTerm(gt, LabeledNode({{"cores", "16"}})));
  EXPECT_FALSE(k8s::MatchesTerm(gt, LabeledNode({{"cores", "8"}})));  // strict
  EXPECT_TRUE(k8s::MatchesTerm(lt, LabeledNode({{"cores", "-3"}})));
  EXPECT_FALSE(k8s::MatchesTerm(lt, LabeledNode({{"cores", "8"}})));
  EXPECT_FALSE(k8s::MatchesTerm(gt, LabeledNode({{"cores", "16x"}})));
  EXPECT_FALSE(k8s::MatchesTerm(lt, LabeledNode({})));
}

// Requirements inside one term are ANDed.
TEST(PredicatesMatch, RequirementsAreAnded) {
  NodeSelectorTerm t = Term({{"zone", "In", {"a"}}, {"disk", "In", {"ssd"}}});
  EXPECT_TRUE(k8s::MatchesTerm(t, LabeledNode({{"zone", "a"}, {"disk", "ssd"}})));
  EXPECT_FALSE(k8s::MatchesTerm(t, LabeledNode({{"zone", "a"}, {"disk", "hdd"}})));
}

// A term with no requirements matches nothing; so does a term Kubernetes
// cannot parse (In without values), even if its other requirements match.
TEST(PredicatesMatch, EmptyOrInvalidTermMatchesNothing) {
  EXPECT_FALSE(k8s::MatchesTerm(Term({}), LabeledNode({{"zone", "a"}})));
  EXPECT_FALSE(k8s::MatchesTerm(Term({{"zone", "In", {"a"}}, {"x", "In", {}}}),
                                LabeledNode({{"zone", "a"}})));
  EXPECT_FALSE(k8s::MatchesTerm(Term({{"gpu", "Exists", {"1"}}}), LabeledNode({{"gpu", "1"}})));
}

// matchFields: only In/NotIn with one value on metadata.name; other fields read "".
TEST(PredicatesMatch, FieldRequirements) {
  EXPECT_TRUE(
      k8s::MatchesTerm(Term({}, {{"metadata.name", "NotIn", {"n2"}}}), LabeledNode({}, "n1")));
  EXPECT_FALSE(
      k8s::MatchesTerm(Term({}, {{"metadata.name", "In", {"n1", "n2"}}}), LabeledNode({}, "n1")));
  EXPECT_FALSE(k8s::MatchesTerm(Term({}, {{"metadata.uid", "In", {"n1"}}}), LabeledNode({}, "n1")));
  EXPECT_TRUE(
      k8s::MatchesTerm(Term({}, {{"metadata.uid", "NotIn", {"n1"}}}), LabeledNode({}, "n1")));
}

// Go's strconv.ParseInt: sign allowed, nothing else, int64 range.
TEST(PredicatesMatch, ParseInt64) {
  EXPECT_EQ(k8s::ParseInt64("+42"), 42);
  EXPECT_EQ(k8s::ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(k8s::ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(k8s::ParseInt64("9223372036854775808").has_value());
  EXPECT_FALSE(k8s::ParseInt64("").has_value());
  EXPECT_FALSE(k8s::ParseInt64("-").has_value());
  EXPECT_FALSE(k8s::ParseInt64("1_000").has_value());
  EXPECT_FALSE(k8s::ParseInt64(" 1").has_value());
}

// ---- taints and tolerations ----

// An untolerated NoSchedule taint rejects with Kubernetes' "{key: value}" text.
TEST(PredicatesTaints, UntoleratedNoScheduleRejects) {
  SessionFixture fx(
      NodeB("n1").Spec("taints: [{key: dedicated, value: gpu, effect: NoSchedule}]").Yaml() +
          PodB("p1").Yaml(),
      Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnresolvable);
  EXPECT_EQ(st.reasons, std::vector<std::string>{"node(s) had untolerated taint {dedicated: gpu}"});
}

// NoExecute taints are checked like NoSchedule ones.
TEST(PredicatesTaints, UntoleratedNoExecuteRejects) {
  SessionFixture fx(NodeB("n1").Spec("taints: [{key: k, value: v, effect: NoExecute}]").Yaml() +
                        PodB("p1").Yaml(),
                    Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").reasons,
            std::vector<std::string>{"node(s) had untolerated taint {k: v}"});
}

// PreferNoSchedule taints never filter (nodeorder scores them).
TEST(PredicatesTaints, PreferNoScheduleIgnored) {
  SessionFixture fx(
      NodeB("n1").Spec("taints: [{key: k, value: v, effect: PreferNoSchedule}]").Yaml() +
          PodB("p1").Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// The first untolerated taint in the node's order is the one reported.
TEST(PredicatesTaints, FirstUntoleratedTaintReported) {
  SessionFixture fx(
      NodeB("n1")
              .Spec(
                  "taints: [{key: a, value: '1', effect: NoSchedule}, {key: b, value: '2', effect: "
                  "NoSchedule}, {key: c, value: '3', effect: NoExecute}]")
              .Yaml() +
          PodB("p1").Spec("tolerations: [{key: a, operator: Equal, value: '1'}]").Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").reasons,
            std::vector<std::string>{"node(s) had untolerated taint {b: 2}"});
}

// Exists with an empty key tolerates every taint.
TEST(PredicatesTaints, ExistsWithEmptyKeyToleratesAll) {
  SessionFixture fx(
      NodeB("n1")
              .Spec("taints: [{key: a, value: x, effect: NoSchedule}, {key: b, effect: NoExecute}]")
              .Yaml() +
          PodB("p1").Spec("tolerations: [{operator: Exists}]").Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// A toleration without an effect matches the key under every effect.
TEST(PredicatesTaints, EmptyEffectMatchesAllEffects) {
  SessionFixture fx(
      NodeB("n1")
              .Spec("taints: [{key: a, value: x, effect: NoSchedule}, {key: a, value: x, effect: "
                    "NoExecute}]")
              .Yaml() +
          PodB("p1").Spec("tolerations: [{key: a, operator: Equal, value: x}]").Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// Equal compares the value: a different value does not tolerate.
TEST(PredicatesTaints, EqualComparesValue) {
  SessionFixture fx(
      NodeB("n1").Spec("taints: [{key: a, value: x, effect: NoSchedule}]").Yaml() +
          PodB("p1").Spec("tolerations: [{key: a, value: y, effect: NoSchedule}]").Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").reasons,
            std::vector<std::string>{"node(s) had untolerated taint {a: x}"});
}

// A toleration for another effect does not tolerate the taint.
TEST(PredicatesTaints, EffectMustMatch) {
  SessionFixture fx(
      NodeB("n1").Spec("taints: [{key: a, effect: NoExecute}]").Yaml() +
          PodB("p1").Spec("tolerations: [{key: a, operator: Exists, effect: NoSchedule}]").Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").code, Code::kUnresolvable);
}

// With predicate.TaintTolerationEnable false, taints are not checked.
TEST(PredicatesTaints, SwitchOffAdmits) {
  SessionFixture fx(
      NodeB("n1").Spec("taints: [{key: a, effect: NoSchedule}]").Yaml() + PodB("p1").Yaml(),
      Conf("predicate.TaintTolerationEnable: false"));
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// Node affinity is checked before taints: a node failing both reports affinity.
TEST(PredicatesTaints, AffinityCheckedFirst) {
  SessionFixture fx(
      NodeB("n1").Labels("zone: a").Spec("taints: [{key: a, effect: NoSchedule}]").Yaml() +
          PodB("p1").Spec("nodeSelector: {zone: b}").Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "p1", "n1").reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
}

// ---- host ports ----

const char* kPortReason = "node(s) didn't have free ports for the requested pod ports";

// The same host port and protocol on the node is Unschedulable.
TEST(PredicatesPorts, SamePortConflicts) {
  SessionFixture fx(
      NodeB("n1").Yaml() +
          PodB("r1").Ports("{containerPort: 8080, hostPort: 8080}").Node("n1").Yaml() +
          PodB("p1").Ports("{containerPort: 80, hostPort: 8080}").Yaml(),
      Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnschedulable);
  EXPECT_EQ(st.reasons, std::vector<std::string>{kPortReason});
}

// The same port under another protocol does not conflict.
TEST(PredicatesPorts, OtherProtocolIsFree) {
  SessionFixture fx(NodeB("n1").Yaml() +
                        PodB("r1").Ports("{containerPort: 53, hostPort: 53}").Node("n1").Yaml() +
                        PodB("p1").Ports("{containerPort: 53, hostPort: 53, protocol: UDP}").Yaml(),
                    Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// Two different specific host IPs do not conflict.
TEST(PredicatesPorts, DistinctHostIpsAreFree) {
  SessionFixture fx(
      NodeB("n1").Yaml() +
          PodB("r1")
              .Ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.1}")
              .Node("n1")
              .Yaml() +
          PodB("p1").Ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.2}").Yaml(),
      Conf());
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// An empty (0.0.0.0) host IP overlaps every specific IP, in both directions.
TEST(PredicatesPorts, WildcardIpOverlapsSpecificIp) {
  SessionFixture fx(
      NodeB("n1").Yaml() + NodeB("n2").Yaml() +
          PodB("r1")
              .Ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.1}")
              .Node("n1")
              .Yaml() +
          PodB("r2").Ports("{containerPort: 80, hostPort: 80}").Node("n2").Yaml() +
          PodB("wild").Ports("{containerPort: 80, hostPort: 80, hostIP: 0.0.0.0}").Yaml() +
          PodB("specific").Ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.9}").Yaml(),
      Conf());
  EXPECT_EQ(Check(fx, "wild", "n1").code, Code::kUnschedulable);      // wildcard vs 10.0.0.1
  EXPECT_EQ(Check(fx, "specific", "n2").code, Code::kUnschedulable);  // 10.0.0.9 vs wildcard
  EXPECT_TRUE(Check(fx, "specific", "n1").ok());                      // 10.0.0.9 vs 10.0.0.1
}

// A port taken by a pod allocated in the session conflicts at once.
TEST(PredicatesPorts, SessionAllocationTakesPort) {
  SessionFixture fx(NodeB("n1").Yaml() +
                        PodB("p1").Ports("{containerPort: 80, hostPort: 80}").Yaml() +
                        PodB("p2").Ports("{containerPort: 80, hostPort: 80}").Yaml(),
                    Conf());
  ASSERT_TRUE(Check(fx, "p2", "n1").ok());
  Statement::CommitAtOnce(fx.ssn()).Allocate(MutableTask(fx, "default/p1"), MutableNode(fx, "n1"));
  EXPECT_EQ(Check(fx, "p2", "n1").reasons, std::vector<std::string>{kPortReason});
}

// Used ports are a set, as in Kubernetes: evicting one of two pods that share a
// host port frees the port although the other still holds it.
TEST(PredicatesPorts, EvictionFreesSharedPort) {
  SessionFixture fx(NodeB("n1").Yaml() +
                        PodB("r1").Ports("{containerPort: 80, hostPort: 80}").Node("n1").Yaml() +
                        PodB("r2").Ports("{containerPort: 80, hostPort: 80}").Node("n1").Yaml() +
                        PodB("p1").Ports("{containerPort: 80, hostPort: 80}").Yaml(),
                    Conf());
  ASSERT_FALSE(Check(fx, "p1", "n1").ok());
  Statement::CommitAtOnce(fx.ssn()).Evict(MutableTask(fx, "default/r1"), "preempt", "test");
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// Pod count and ports are both Unschedulable: both reasons are reported.
TEST(PredicatesPorts, ReportedAfterPodCount) {
  SessionFixture fx(NodeB("n1").Alloc("cpu: \"8\", pods: \"1\"").Yaml() +
                        PodB("r1").Ports("{containerPort: 80, hostPort: 80}").Node("n1").Yaml() +
                        PodB("p1").Ports("{containerPort: 80, hostPort: 80}").Yaml(),
                    Conf());
  PredicateStatus st = Check(fx, "p1", "n1");
  EXPECT_EQ(st.code, Code::kUnschedulable);
  EXPECT_EQ(st.reasons, (std::vector<std::string>{"node(s) pod number exceeded", kPortReason}));
}

// With predicate.NodePortsEnable false, ports are not checked.
TEST(PredicatesPorts, SwitchOffAdmits) {
  SessionFixture fx(NodeB("n1").Yaml() +
                        PodB("r1").Ports("{containerPort: 80, hostPort: 80}").Node("n1").Yaml() +
                        PodB("p1").Ports("{containerPort: 80, hostPort: 80}").Yaml(),
                    Conf("predicate.NodePortsEnable: false"));
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// ---- equivalence cache (predicate.CacheEnable) ----

// With CacheEnable, a second pod of the same template (volcano.sh/template-uid)
// gets the cached failure as Error "plugin equivalence cache predicates failed".
TEST(PredicatesCache, CachedFailureReportsCacheError) {
  const std::string taint = "taints: [{key: a, value: x, effect: NoSchedule}]";
  SessionFixture fx(NodeB("n1").Spec(taint).Yaml() +
                        PodB("p1").Annotations("volcano.sh/template-uid: job-worker").Yaml() +
                        PodB("p2").Annotations("volcano.sh/template-uid: job-worker").Yaml(),
                    Conf("predicate.CacheEnable: true"));
  EXPECT_EQ(Check(fx, "p1", "n1").reasons,
            std::vector<std::string>{"node(s) had untolerated taint {a: x}"});
  PredicateStatus st = Check(fx, "p2", "n1");
  EXPECT_EQ(st.code, Code::kError);
  EXPECT_EQ(st.reasons, std::vector<std::string>{"plugin equivalence cache predicates failed"});
}

// Without CacheEnable (the default) every pod gets the real reason.
TEST(PredicatesCache, OffByDefault) {
  const std::string taint = "taints: [{key: a, value: x, effect: NoSchedule}]";
  SessionFixture fx(NodeB("n1").Spec(taint).Yaml() +
                        PodB("p1").Annotations("volcano.sh/template-uid: job-worker").Yaml() +
                        PodB("p2").Annotations("volcano.sh/template-uid: job-worker").Yaml(),
                    Conf());
  Check(fx, "p1", "n1");
  EXPECT_EQ(Check(fx, "p2", "n1").reasons,
            std::vector<std::string>{"node(s) had untolerated taint {a: x}"});
}

// ---- arguments ----

// Every predicate switch rejects a non-boolean value (the factory fails).
TEST(PredicatesArguments, WrongTypeIsAnError) {
  for (const char* key : {"predicate.NodeAffinityEnable", "predicate.NodePortsEnable",
                          "predicate.TaintTolerationEnable", "predicate.PodAffinityEnable",
                          "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
                          "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
                          "predicate.DynamicResourceAllocationEnable", "predicate.CacheEnable"}) {
    Arguments args("plugin predicates");
    args.Set(key, "yes please");
    auto plugin = NewPredicatesPlugin(args);
    ASSERT_FALSE(plugin.ok()) << key;
    EXPECT_NE(plugin.status().message().find(key), std::string::npos) << plugin.status().message();
  }
}

// The switches for features basalt does not model are accepted and change nothing.
TEST(PredicatesArguments, UnmodelledSwitchesAccepted) {
  SessionFixture fx(
      NodeB("n1").Yaml() + PodB("p1").Yaml(),
      Conf(
          "predicate.PodAffinityEnable: false, predicate.NodeVolumeLimitsEnable: false, "
          "predicate.VolumeZoneEnable: false, predicate.PodTopologySpreadEnable: false, "
          "predicate.VolumeBindingEnable: false, predicate.DynamicResourceAllocationEnable: true"));
  EXPECT_TRUE(Check(fx, "p1", "n1").ok());
}

// ---- end to end ----

// allocate skips a tainted node, binds to the clean one, and a pod that fits
// nowhere gets a FailedScheduling event counting the reasons per node.
TEST(PredicatesAllocate, TaintSteersPlacementAndExplainsFailure) {
  // n1 tainted; n2 clean but labelled zone=b. p1 fits n2; p2 needs zone=a (n1 only, tainted).
  SessionFixture fx(NodeB("n1")
                            .Labels("zone: a")
                            .Spec("taints: [{key: a, value: x, effect: NoSchedule}]")
                            .Yaml() +
                        NodeB("n2").Labels("zone: b").Yaml() + PodB("p1").Yaml() +
                        PodB("p2").Spec("nodeSelector: {zone: a}").Yaml(),
                    Conf());
  fx.RunActions({"enqueue", "allocate"});
  Decisions d = fx.Close();
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].pod, "default/p1");
  EXPECT_EQ(d.binds[0].node, "n2");
  bool found = false;
  for (const EventRecord& e : d.events) {
    if (e.object != "Pod/default/p2") continue;
    found = true;
    EXPECT_EQ(e.reason, "FailedScheduling");
    EXPECT_EQ(e.message,
              "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
              "1 node(s) had untolerated taint {a: x}.");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace basalt
