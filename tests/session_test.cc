// The session's dispatch rules (docs/semantics/session.md), tested with
// scripted plugins: victim voting with tier fall-through, Permit/Abstain/Reject
// voting, JobStarving's "first tier with a function", order fallbacks, and
// Statement commit/discard.
#include <functional>

#include "framework/statement.h"
#include "testing.h"

namespace basalt {
namespace {

// A plugin whose OnSessionOpen runs a test-supplied function.
class ScriptedPlugin : public Plugin {
 public:
  ScriptedPlugin(std::string name, std::function<void(Session&)> open)
      : name_(std::move(name)), open_(std::move(open)) {}
  std::string_view Name() const override { return name_; }
  void OnSessionOpen(Session& ssn) override { open_(ssn); }

 private:
  std::string name_;
  std::function<void(Session&)> open_;
};

const char* kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec: {minMember: 1}
status: {phase: Inqueue}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec: {schedulerName: volcano, nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec: {schedulerName: volcano, nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";

class SessionTest : public ::testing::Test {
 protected:
  // Registers plugin `name` whose open hook is `open`.
  void Define(const std::string& name, std::function<void(Session&)> open) {
    ASSERT_TRUE(registry_
                    .Register(name,
                              [name, open](const Arguments&) -> Result<std::unique_ptr<Plugin>> {
                                return std::unique_ptr<Plugin>(new ScriptedPlugin(name, open));
                              })
                    .ok());
  }
  // Opens a fresh session (dropping any earlier one before the state it borrows).
  Session& Open(const std::string& conf_text) {
    session_.reset();
    state_ = ClusterState();
    ClusterObjects objs;
    EXPECT_TRUE(DecodeText(kCluster, "s.yaml", &objs).ok());
    EXPECT_TRUE(state_.AddAll(std::move(objs)).ok());
    auto conf = ParseSchedulerConfig(conf_text, "s.conf", {}, {});
    EXPECT_TRUE(conf.ok()) << conf.status().message();
    conf_ = std::move(conf).value();
    auto ssn = Session::Open(state_, conf_, registry_, SessionOptions());
    EXPECT_TRUE(ssn.ok()) << ssn.status().message();
    session_ = std::move(ssn).value();
    return *session_;
  }
  const TaskInfo& Task(const std::string& key) {
    for (const auto& t : session_->tasks()) {
      if (t.key == key) return t;
    }
    throw std::runtime_error("no task " + key);
  }
  std::vector<std::string> Keys(const std::vector<const TaskInfo*>& v) {
    std::vector<std::string> out;
    for (const auto* t : v) out.push_back(t->key);
    return out;
  }
  std::vector<const TaskInfo*> Running() { return {&Task("default/a"), &Task("default/b")}; }

  PluginRegistry registry_;
  ClusterState state_;
  SchedulerConfig conf_;
  std::unique_ptr<Session> session_;
};

EvictableFn Returns(std::vector<std::string> keys, Vote vote = Vote::kPermit) {
  return [keys, vote](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
    std::vector<const TaskInfo*> out;
    for (const auto* c : cands) {
      if (std::find(keys.begin(), keys.end(), c->key) != keys.end()) out.push_back(c);
    }
    return std::make_pair(out, vote);
  };
}

// Plugins of one tier intersect their victim lists.
TEST_F(SessionTest, VictimsIntersectWithinTier) {
  Define("x", [](Session& s) { s.AddReclaimableFn(Returns({"default/a", "default/b"})); });
  Define("y", [](Session& s) { s.AddReclaimableFn(Returns({"default/b"})); });
  Session& ssn = Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: x\n  - name: y\n");
  EXPECT_EQ(Keys(ssn.Reclaimable(Task("default/p"), Running())),
            std::vector<std::string>{"default/b"});
}

// An empty answer ends its tier but does not veto: the next tier decides.
TEST_F(SessionTest, EmptyAnswerFallsThroughToNextTier) {
  Define("protect", [](Session& s) { s.AddReclaimableFn(Returns({})); });
  Define("allow", [](Session& s) { s.AddReclaimableFn(Returns({"default/a"})); });
  Session& ssn = Open(
      "actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: protect\n- plugins:\n  - name: allow\n");
  EXPECT_EQ(Keys(ssn.Reclaimable(Task("default/p"), Running())),
            std::vector<std::string>{"default/a"});
}

// Once a tier has victims, later tiers are not asked.
TEST_F(SessionTest, FirstTierWithVictimsDecides) {
  Define("first", [](Session& s) { s.AddPreemptableFn(Returns({"default/a"})); });
  Define("second", [](Session& s) { s.AddPreemptableFn(Returns({"default/b"})); });
  Session& ssn = Open(
      "actions: \"preempt\"\ntiers:\n- plugins:\n  - name: first\n- plugins:\n  - name: second\n");
  EXPECT_EQ(Keys(ssn.Preemptable(Task("default/p"), Running())),
            std::vector<std::string>{"default/a"});
}

// An empty intersection is "none": the next plugin in the tier starts afresh.
TEST_F(SessionTest, EmptyIntersectionResetsList) {
  Define("x", [](Session& s) { s.AddReclaimableFn(Returns({"default/a"})); });
  Define("y", [](Session& s) { s.AddReclaimableFn(Returns({"default/b"})); });
  Define("z", [](Session& s) { s.AddReclaimableFn(Returns({"default/a", "default/b"})); });
  Session& ssn =
      Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: x\n  - name: y\n  - name: z\n");
  // x={a}, y={b}: empty intersection -> none; z starts again: {a,b}.
  EXPECT_EQ(Keys(ssn.Reclaimable(Task("default/p"), Running())),
            (std::vector<std::string>{"default/a", "default/b"}));
}

// A switched-off plugin is not consulted; an abstaining one is skipped.
TEST_F(SessionTest, SwitchOffAndAbstain) {
  Define("off", [](Session& s) { s.AddReclaimableFn(Returns({})); });
  Define("abstain", [](Session& s) { s.AddReclaimableFn(Returns({}, Vote::kAbstain)); });
  Define("allow", [](Session& s) { s.AddReclaimableFn(Returns({"default/b"})); });
  Session& ssn = Open(
      "actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: off\n    enableReclaimable: false\n"
      "  - name: abstain\n  - name: allow\n");
  EXPECT_EQ(Keys(ssn.Reclaimable(Task("default/p"), Running())),
            std::vector<std::string>{"default/b"});
}

// Nobody answering means no victims.
TEST_F(SessionTest, NoVoterNoVictims) {
  Define("quiet", [](Session&) {});
  Session& ssn = Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: quiet\n");
  EXPECT_TRUE(ssn.Reclaimable(Task("default/p"), Running()).empty());
}

// Permit/Reject voting: a tier with a permit decides; any reject is final;
// a later tier cannot overturn an earlier permit; nobody voting allows.
TEST_F(SessionTest, EnqueueableVoting) {
  Define("permit",
         [](Session& s) { s.AddJobEnqueueableFn([](const JobInfo&) { return Vote::kPermit; }); });
  Define("reject",
         [](Session& s) { s.AddJobEnqueueableFn([](const JobInfo&) { return Vote::kReject; }); });
  Define("abstain",
         [](Session& s) { s.AddJobEnqueueableFn([](const JobInfo&) { return Vote::kAbstain; }); });
  {
    Session& ssn = Open(
        "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: permit\n- plugins:\n  - name: "
        "reject\n");
    EXPECT_TRUE(ssn.JobEnqueueable(ssn.job(0)));
  }
  {
    Session& ssn =
        Open("actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: permit\n  - name: reject\n");
    EXPECT_FALSE(ssn.JobEnqueueable(ssn.job(0)));
  }
  {
    Session& ssn = Open(
        "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: abstain\n- plugins:\n  - name: "
        "abstain\n");
    EXPECT_TRUE(ssn.JobEnqueueable(ssn.job(0)));
  }
  {
    Session& ssn = Open(
        "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: abstain\n- plugins:\n  - name: "
        "reject\n");
    EXPECT_FALSE(ssn.JobEnqueueable(ssn.job(0)));
  }
}

// JobStarving: no function anywhere means not starving; otherwise the first
// tier that has one decides (AND inside it).
TEST_F(SessionTest, StarvingFirstTierDecides) {
  Define("yes", [](Session& s) { s.AddJobStarvingFn([](const JobInfo&) { return true; }); });
  Define("no", [](Session& s) { s.AddJobStarvingFn([](const JobInfo&) { return false; }); });
  Define("quiet", [](Session&) {});
  {
    Session& ssn = Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: quiet\n");
    EXPECT_FALSE(ssn.JobStarving(ssn.job(0)));
  }
  {
    Session& ssn =
        Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: yes\n- plugins:\n  - name: no\n");
    EXPECT_TRUE(ssn.JobStarving(ssn.job(0)));
  }
  {
    Session& ssn = Open("actions: \"reclaim\"\ntiers:\n- plugins:\n  - name: yes\n  - name: no\n");
    EXPECT_FALSE(ssn.JobStarving(ssn.job(0)));
  }
}

// Task order falls back to the numeric pod-name index, then creation, then key.
TEST_F(SessionTest, TaskOrderFallback) {
  Define("quiet", [](Session&) {});
  Session& ssn = Open("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: quiet\n");
  TaskInfo x = Task("default/p"), y = Task("default/p");
  x.key = "default/job-w-10";
  x.name_index = 10;
  y.key = "default/job-w-9";
  y.name_index = 9;
  EXPECT_TRUE(ssn.TaskOrderLess(y, x));  // 9 before 10, although "10" < "9" as text
  x.name_index = y.name_index = -1;
  EXPECT_TRUE(ssn.TaskOrderLess(x, y));  // no index: key order
}

// Evict then discard restores the task and the node; commit issues the eviction.
TEST_F(SessionTest, StatementDiscardRestores) {
  Define("quiet", [](Session&) {});
  Session& ssn = Open("actions: \"preempt\"\ntiers:\n- plugins:\n  - name: quiet\n");
  TaskInfo& a = ssn.task(Task("default/a").id);
  NodeInfo& n1 = ssn.node(0);
  Resource idle_before = n1.idle();
  {
    Statement stmt(ssn);
    stmt.Evict(a, "preempt", "test");
    EXPECT_EQ(a.status, TaskStatus::kReleasing);
    EXPECT_EQ(n1.releasing().milli_cpu(), 1000);
    TaskInfo& p = ssn.task(Task("default/p").id);
    stmt.Pipeline(p, n1);
    EXPECT_EQ(n1.pipelined().milli_cpu(), 1000);
    stmt.Discard();
    EXPECT_EQ(p.status, TaskStatus::kPending);
    EXPECT_EQ(p.node, kNone);
  }
  EXPECT_EQ(a.status, TaskStatus::kRunning);
  EXPECT_EQ(n1.idle(), idle_before);
  EXPECT_TRUE(n1.releasing().IsZero() || n1.releasing().milli_cpu() == 0);
  EXPECT_EQ(n1.pipelined().milli_cpu(), 0);
  {
    Statement stmt(ssn);
    stmt.Evict(a, "preempt", "test");
    stmt.Commit();
  }
  Decisions d = ssn.Close();
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].pod, "default/a");
}

// Allocate in a statement binds only on commit.
TEST_F(SessionTest, StatementCommitBinds) {
  Define("quiet", [](Session&) {});
  Session& ssn = Open("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: quiet\n");
  TaskInfo& p = ssn.task(Task("default/p").id);
  Statement stmt(ssn);
  stmt.Allocate(p, ssn.node(0));
  EXPECT_EQ(p.status, TaskStatus::kAllocated);
  EXPECT_EQ(ssn.node(0).idle().milli_cpu(), 1000);  // 4 - a - b - p
  stmt.Commit();
  EXPECT_EQ(p.status, TaskStatus::kBinding);
  Decisions d = ssn.Close();
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].node, "n1");
}

}  // namespace
}  // namespace basalt
