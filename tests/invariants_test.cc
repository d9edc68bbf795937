// The invariant checker must fail when the session breaks an invariant, and
// must not blame the session for an input that was already broken.
#include "framework/invariants.h"

#include <gtest/gtest.h>

#include <functional>

#include "framework/session.h"
#include "framework/statement.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {

// Reaches the session's private primitives, to corrupt its bookkeeping on purpose.
struct SessionTestAccess {
  static void FireAllocate(Session& ssn, const TaskInfo& task) { ssn.FireAllocate(task); }
  static void PlaceTask(Session& ssn, TaskInfo& task, NodeInfo& node, TaskStatus status) {
    ssn.PlaceTask(task, node, status);
  }
};

}  // namespace basalt

namespace basalt::testing {
namespace {

// An action that does whatever the test says, bypassing every fit check.
class ScriptedAction : public Action {
 public:
  explicit ScriptedAction(std::function<void(Session&)> fn) : fn_(std::move(fn)) {}
  std::string_view Name() const override { return "scripted"; }
  void Execute(Session& ssn) override { fn_(ssn); }

 private:
  std::function<void(Session&)> fn_;
};

constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec: {minMember: 1}
status: {phase: Inqueue}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
)";

// Runs `fn` as an action in a check-enabled session; returns the violation ("" if none).
std::string RunChecked(
    const std::string& cluster, std::function<void(Session&)> fn,
    const std::string& conf_text = "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n") {
  ClusterObjects objects;
  EXPECT_OK(DecodeText(cluster, "test.yaml", &objects));
  ClusterState state;
  EXPECT_OK(state.AddAll(std::move(objects)));
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  auto conf = ParseSchedulerConfig(conf_text, "t.conf", plugins.Names(), {});
  EXPECT_OK(conf);
  SessionOptions options;
  options.check_invariants = true;
  std::string violation;
  options.on_invariant_violation = [&](const Status& s) { violation = s.ToString(); };
  auto ssn = Session::Open(state, *conf, plugins, options);
  EXPECT_OK(ssn);
  ScriptedAction action(std::move(fn));
  (*ssn)->Run(action);
  return violation;
}

// 3 cpu placed on a 2-cpu node: check 2 names the node and the action.
TEST(InvariantsTest, OverCommitByTheSessionIsReported) {
  std::string v = RunChecked(kNode, [](Session& ssn) {
    Statement::CommitAtOnce(ssn).Allocate(ssn.tasks()[0], ssn.nodes()[0]);
  });
  EXPECT_NE(v.find("after action scripted"), std::string::npos) << v;
  EXPECT_NE(v.find("node n1 over-committed"), std::string::npos) << v;
}

// The same pod already running there is the input's problem, not the session's.
TEST(InvariantsTest, OverCommittedInputIsNotBlamedOnTheSession) {
  std::string running = kNode;
  running.replace(running.find("spec: {schedulerName: volcano,"), 30,
                  "spec: {schedulerName: volcano, nodeName: n1,");
  running += "status: {phase: Running}\n";
  EXPECT_EQ(RunChecked(running, [](Session&) {}), "");
}

// A statement neither committed nor discarded for a ready job (check 5).
TEST(InvariantsTest, AllocatedTaskOfReadyJobIsReported) {
  std::string small = kNode;
  small.replace(small.find("cpu: \"3\""), 8, "cpu: \"1\"");
  std::string v = RunChecked(small, [](Session& ssn) {
    Statement stmt(ssn);
    stmt.Allocate(ssn.tasks()[0], ssn.nodes()[0]);
  });
  EXPECT_NE(v.find("stay Allocated"), std::string::npos) << v;
}

// A clean action passes.
TEST(InvariantsTest, CommittedAllocationPasses) {
  std::string small = kNode;
  small.replace(small.find("cpu: \"3\""), 8, "cpu: \"1\"");
  EXPECT_EQ(RunChecked(small,
                       [](Session& ssn) {
                         Statement stmt(ssn);
                         stmt.Allocate(ssn.tasks()[0], ssn.nodes()[0]);
                         stmt.Commit();
                       }),
            "");
}

// Regression (found by random cycles, fixed in 1ab0f68): bookkeeping adds and
// subtracts requests, so a GPU pod placed and then taken off again leaves
// `nvidia.com/gpu: 0` in the node's and the job's sums, where a recount has
// no GPU entry at all. That is the same amount, not a violation.
TEST(InvariantsTest, ZeroScalarLeftByBookkeepingIsNotAViolation) {
  std::string gpu = kNode;
  gpu.replace(gpu.find("pods: \"110\""), 11, "pods: \"110\", nvidia.com/gpu: \"4\"");
  gpu.replace(gpu.find("requests: {cpu: \"3\"}"), 20,
              "requests: {cpu: \"1\", nvidia.com/gpu: \"1\"}");
  EXPECT_EQ(RunChecked(gpu,
                       [](Session& ssn) {
                         Statement pipelined(ssn);
                         pipelined.Pipeline(ssn.tasks()[0], ssn.nodes()[0]);
                         pipelined.Discard();
                         Statement allocated(ssn);
                         allocated.Allocate(ssn.tasks()[0], ssn.nodes()[0]);
                         allocated.Discard();
                       }),
            "");
}

// ---- check 9: capacity-card's per-model card accounting ----

constexpr char kCardConf[] = R"(actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: capacity-card
)";

// One H200 node (8 cards), queue q1 with 4 H200s, a 2-card pod pending and a
// 1-card pod of the same queue already running.
constexpr char kCardCluster[] = R"(apiVersion: v1
kind: Node
metadata: {name: h1, labels: {nvidia.com/gpu.product: NVIDIA-H200}}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "8"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1, annotations: {volcano.sh/card.quota: '{"NVIDIA-H200": 4}'}}
spec: {weight: 1, capability: {cpu: "16", memory: 64Gi}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec: {minMember: 1, queue: q1}
status: {phase: Inqueue}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: default, annotations: {scheduling.k8s.io/group-name: pg, volcano.sh/card.name: NVIDIA-H200}}
spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}]}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: old, namespace: default}
spec: {minMember: 1, queue: q1}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: serve, namespace: default, annotations: {scheduling.k8s.io/group-name: old, volcano.sh/card.name: NVIDIA-H200}}
spec: {schedulerName: volcano, nodeName: h1, containers: [{name: c, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]}
status: {phase: Running}
)";

TaskInfo& TaskNamed(Session& ssn, const std::string& key) {
  for (TaskInfo& t : ssn.tasks()) {
    if (t.key == key) return t;
  }
  ADD_FAILURE() << "no task " << key;
  return ssn.tasks()[0];
}

// Placements and rollbacks through the session keep the plugin's count equal
// to the recount (the running pod's card is counted from session open).
TEST(InvariantsTest, CardAccountingFollowsPlacements) {
  EXPECT_EQ(RunChecked(
                kCardCluster,
                [](Session& ssn) {
                  Statement discarded(ssn);
                  discarded.Allocate(TaskNamed(ssn, "default/train"), ssn.nodes()[0]);
                  discarded.Discard();
                  Statement evicted(ssn);
                  evicted.Evict(TaskNamed(ssn, "default/serve"), "reclaim", "test");
                  evicted.Discard();
                  Statement::CommitAtOnce(ssn).Allocate(TaskNamed(ssn, "default/train"),
                                                        ssn.nodes()[0]);
                },
                kCardConf),
            "");
}

// Failing on purpose: an allocate event for a pod that was never placed
// corrupts the queue's H200 count (3 cards counted, 1 used), and the check
// names the plugin, the queue, the model and both numbers.
TEST(InvariantsTest, CorruptedCardCountIsReported) {
  std::string v = RunChecked(
      kCardCluster,
      [](Session& ssn) { SessionTestAccess::FireAllocate(ssn, TaskNamed(ssn, "default/train")); },
      kCardConf);
  EXPECT_EQ(
      v,
      "cycle 1, after action scripted: capacity-card: queue q1 card NVIDIA-H200 accounted 3000m "
      "(milli-cards), its placed pods use 1000m");
}

// The other way round: a pod placed without its event is used but not counted.
TEST(InvariantsTest, UncountedCardPlacementIsReported) {
  std::string v = RunChecked(
      kCardCluster,
      [](Session& ssn) {
        SessionTestAccess::PlaceTask(ssn, TaskNamed(ssn, "default/train"), ssn.nodes()[0],
                                     TaskStatus::kPipelined);
      },
      kCardConf);
  EXPECT_NE(
      v.find("queue q1 card NVIDIA-H200 accounted 1000m (milli-cards), its placed pods use 3000m"),
      std::string::npos)
      << v;
}

}  // namespace
}  // namespace basalt::testing
