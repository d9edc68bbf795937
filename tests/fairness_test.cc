// Fairness plugins: drf (job shares), proportion (queue deserved by weight) and
// overcommit (cluster-wide admission). One behaviour per test; the arithmetic
// behind every expected value is written next to it.
//
// Conventions of the manifests below: one node `n1` with `pods: 110` unless
// said otherwise; every pod request carries `pods: 1`, so `pods` is a
// dimension of every request, share and deserved.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/statement.h"
#include "plugins/builtin.h"
#include "queue_test_builders.h"
#include "testing.h"

namespace basalt {
namespace {

using testing::PodGroupYaml;
using testing::Probe;
using testing::SessionFixture;

// ---- manifest builders ----

std::string NodeYaml(const std::string& name, const std::string& cpu,
                     const std::string& memory = "0", const std::string& pods = "110") {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\nstatus:\n  allocatable:\n    cpu: \"" + cpu + "\"\n    memory: \"" + memory +
         "\"\n    pods: \"" + pods + "\"\n---\n";
}

// `spec_extra`: more lines of the spec, each indented by two spaces.
std::string QueueYaml(const std::string& name, int weight, const std::string& spec_extra = "",
                      const std::string& state = "Open") {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: " + name +
         "\nspec:\n  weight: " + std::to_string(weight) + "\n" + spec_extra +
         "status:\n  state: " + state + "\n---\n";
}

// A pod of PodGroup `pg`; with `node` it runs there, without it is pending.
std::string PodYaml(const std::string& name, const std::string& pg, const std::string& cpu,
                    const std::string& node = "", const std::string& memory = "0") {
  std::string s =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
      "\n  namespace: default\n  annotations:\n    scheduling.k8s.io/group-name: " + pg +
      "\nspec:\n  schedulerName: volcano\n";
  if (!node.empty()) s += "  nodeName: " + node + "\n";
  s += "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: \"" + cpu +
       "\"\n        memory: \"" + memory + "\"\n";
  s += node.empty() ? "status:\n  phase: Pending\n" : "status:\n  phase: Running\n";
  return s + "---\n";
}

// `count` pods named `<prefix>-<i>` of PodGroup `pg`, each requesting `cpu`.
std::string Pods(const std::string& prefix, const std::string& pg, int count,
                 const std::string& cpu, const std::string& node = "") {
  std::string s;
  for (int i = 0; i < count; ++i) s += PodYaml(prefix + "-" + std::to_string(i), pg, cpu, node);
  return s;
}

// Scheduler configurations: one tier per list, every switch left on.
std::string Conf(const std::string& actions, const std::vector<std::vector<std::string>>& tiers,
                 const std::string& drf_extra = "") {
  std::string s = "actions: \"" + actions + "\"\ntiers:\n";
  for (const auto& tier : tiers) {
    s += "- plugins:\n";
    for (const auto& p : tier) {
      s += "  - name: " + p + "\n";
      if (p == "drf" && !drf_extra.empty()) s += drf_extra;
    }
  }
  return s;
}

const std::string kProportionOnly = Conf("enqueue, allocate", {{"proportion"}});
const std::string kDrfOnly = Conf("allocate", {{"drf"}});

// Allocatable(queue, probe): queue Open and allocated + request <= deserved.
bool Fits(SessionFixture& fx, const std::string& queue, const std::string& request) {
  return fx.ssn().Allocatable(fx.QueueNamed(queue), Probe(request));
}

std::vector<std::string> BoundPods(const Decisions& d) {
  std::vector<std::string> out;
  for (const auto& b : d.binds) out.push_back(b.pod);
  std::sort(out.begin(), out.end());
  return out;
}

// Opens a second session on `state` (for tests that edit the store first).
class ReopenedSession {
 public:
  ReopenedSession(const ClusterState& state, const std::string& conf_text) {
    RegisterBuiltinPlugins(plugins_);
    auto conf = ParseSchedulerConfig(conf_text, "test.conf", plugins_.Names(), {});
    EXPECT_TRUE(conf.ok()) << conf.status().message();
    conf_ = std::move(conf).value();
    auto ssn = Session::Open(state, conf_, plugins_, SessionOptions());
    EXPECT_TRUE(ssn.ok()) << ssn.status().message();
    ssn_ = std::move(ssn).value();
  }
  Session& ssn() { return *ssn_; }

 private:
  PluginRegistry plugins_;
  SchedulerConfig conf_;
  std::unique_ptr<Session> ssn_;
};

// =====================================================================
// proportion: water-filling of deserved
// =====================================================================

// Two queues with weights 1 and 3 split a 4-cpu cluster 1:3 when both ask for
// more than they get.
TEST(ProportionTest, WeightsSplitTheCluster) {
  SessionFixture fx(NodeYaml("n1", "4", "4Gi") + QueueYaml("q1", 1) + QueueYaml("q2", 3) +
                        PodGroupYaml("pg1", "q1", 1, "", "Inqueue") + Pods("a", "pg1", 4, "1") +
                        PodGroupYaml("pg2", "q2", 1, "", "Inqueue") + Pods("b", "pg2", 4, "1"),
                    kProportionOnly);
  // requests: q1 = q2 = cpu 4, pods 4 (memory 0).
  // round 1 (W = 4): q1 += 4 cpu x 1/4 = 1 cpu; q2 += 4 x 3/4 = 3 cpu; pods capped at 4 each.
  // remaining cpu 0 -> round 2 changes nothing: both met.
  // deserved: q1 = 1 cpu, q2 = 3 cpu.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=1"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=1001m"));
  EXPECT_TRUE(Fits(fx, "q2", "cpu=3"));
  EXPECT_FALSE(Fits(fx, "q2", "cpu=3001m"));
}

// A queue capped by its request is met in the first round and the rest of its
// weighted part is shared by the others in the next round.
TEST(ProportionTest, SurplusOfASatisfiedQueueIsRedistributed) {
  SessionFixture fx(NodeYaml("n1", "12") + QueueYaml("q1", 2) + QueueYaml("q2", 1) +
                        QueueYaml("q3", 1) + PodGroupYaml("pg1", "q1", 1, "", "Inqueue") +
                        Pods("a", "pg1", 2, "1") + PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        Pods("b", "pg2", 8, "1") + PodGroupYaml("pg3", "q3", 1, "", "Inqueue") +
                        Pods("c", "pg3", 8, "1"),
                    kProportionOnly);
  // round 1 (W = 4): q1 += 12 x 2/4 = 6 -> capped by its request 2 -> met;
  //                  q2 += 3, q3 += 3.   remaining = 12 - 8 = 4 cpu.
  // round 2 (W = 2): q2 += 4 x 1/2 = 2 -> 5; q3 -> 5.  remaining 0.
  // deserved: q1 = 2, q2 = 5, q3 = 5 cpu.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=2"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=2001m"));
  EXPECT_TRUE(Fits(fx, "q2", "cpu=5"));
  EXPECT_FALSE(Fits(fx, "q2", "cpu=5001m"));
  EXPECT_TRUE(Fits(fx, "q3", "cpu=5"));
  EXPECT_FALSE(Fits(fx, "q3", "cpu=5001m"));
}

// Hand-outs are rounded down to whole milli-cpu; the loop ends on the residue.
TEST(ProportionTest, FractionalHandOutsRoundDown) {
  SessionFixture fx(NodeYaml("n1", "1") + QueueYaml("q1", 1) + QueueYaml("q2", 1) +
                        QueueYaml("q3", 1) + PodGroupYaml("pg1", "q1", 1, "", "Inqueue") +
                        Pods("a", "pg1", 1, "1") + PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        Pods("b", "pg2", 1, "1") + PodGroupYaml("pg3", "q3", 1, "", "Inqueue") +
                        Pods("c", "pg3", 1, "1"),
                    kProportionOnly);
  // round 1 (W = 3): each += floor(1000m / 3) = 333m (Volcano: 333.33m). remaining 1m.
  // round 2: each += floor(1m / 3) = 0 -> deserved unchanged -> met.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=333m"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=334m"));
  EXPECT_TRUE(Fits(fx, "q3", "cpu=333m"));
}

// The capability caps deserved (through realCapability); what the capped queue
// cannot take goes to the other queue.
TEST(ProportionTest, CapabilityCapsDeserved) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1, "  capability:\n    cpu: 2\n") +
                        QueueYaml("q2", 1) + PodGroupYaml("pg1", "q1", 1, "", "Inqueue") +
                        Pods("a", "pg1", 8, "1") + PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        Pods("b", "pg2", 8, "1"),
                    kProportionOnly);
  // realCapability q1 = min(8 cpu, capability 2 cpu) = 2 cpu (memory 0 in the capability =
  // unlimited). round 1 (W = 2): q1 += 4 -> capped 2; q2 += 4.              remaining 2. round 2 (W
  // = 2): q1 += 1 -> capped 2: unchanged -> met; q2 += 1 -> 5. remaining 1. round 3 (W = 1): q2 +=
  // 1 -> 6.                              remaining 0. deserved: q1 = 2, q2 = 6 cpu.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=2"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=2001m"));
  EXPECT_TRUE(Fits(fx, "q2", "cpu=6"));
  EXPECT_FALSE(Fits(fx, "q2", "cpu=6001m"));
}

// A guarantee is a floor for its queue's deserved, even above the queue's
// request, and it is held back from every other queue's realCapability.
TEST(ProportionTest, GuaranteeIsAFloorAndReducesOthersCapability) {
  SessionFixture fx(NodeYaml("n1", "8") +
                        QueueYaml("q1", 1, "  guarantee:\n    resource:\n      cpu: 5\n") +
                        QueueYaml("q2", 1) + PodGroupYaml("pg1", "q1", 1, "", "Inqueue") +
                        Pods("a", "pg1", 3, "1") + PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        Pods("b", "pg2", 8, "1"),
                    kProportionOnly);
  // totalGuarantee = 5 cpu. realCapability: q1 = 8 - 5 + 5 = 8; q2 = 8 - 5 + 0 = 3.
  // round 1 (W = 2): q1 += 4 -> capped by its request 3 -> raised to its guarantee 5 -> met;
  //                  q2 += 4 -> capped by realCapability 3.  remaining 8 - 5 - 3 = 0.
  // deserved: q1 = 5 (without the floor: 3), q2 = 3 cpu.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=5"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=5001m"));
  EXPECT_TRUE(Fits(fx, "q2", "cpu=3"));
  EXPECT_FALSE(Fits(fx, "q2", "cpu=3001m"));
}

// Queues without a job in the snapshot take no part: two queues with jobs
// split the cluster as if the idle queue did not exist.
TEST(ProportionTest, QueuesWithoutJobsTakeNoPart) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("idle", 2) + QueueYaml("q1", 1) +
                        QueueYaml("q2", 1) + PodGroupYaml("pg1", "q1", 1, "", "Inqueue") +
                        Pods("a", "pg1", 4, "1") + PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        Pods("b", "pg2", 4, "1"),
                    kProportionOnly);
  // W = 1 + 1 (not 4): q1 = q2 = 2 cpu.
  EXPECT_TRUE(Fits(fx, "q1", "cpu=2"));
  EXPECT_FALSE(Fits(fx, "q1", "cpu=2001m"));
}

// A queue of weight 0 gets nothing: deserved 0, so it is overused from the
// start and nothing fits it; the other queue gets the whole cluster.
// (Volcano's webhook turns a written weight 0 into 1, so the test edits the store.)
TEST(ProportionTest, WeightZeroQueueGetsNothing) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q0", 1) + QueueYaml("q1", 1) +
                        PodGroupYaml("pg0", "q0", 1, "", "Inqueue") + Pods("z", "pg0", 2, "1") +
                        PodGroupYaml("pg1", "q1", 1, "", "Inqueue") + Pods("a", "pg1", 8, "1"),
                    kProportionOnly);
  fx.state().mutable_queues().at("q0").weight = 0;
  ReopenedSession s(fx.state(), kProportionOnly);
  const QueueInfo& q0 = s.ssn().queue(*s.ssn().FindQueue("q0"));
  const QueueInfo& q1 = s.ssn().queue(*s.ssn().FindQueue("q1"));
  // round 1 (W = 1): q0 += 8 x 0/1 = 0 -> unchanged -> met; q1 += 8 -> request 8 met.
  // deserved: q0 = 0 (overused: 0 <= allocated 0), q1 = 8 cpu.
  EXPECT_TRUE(s.ssn().Overused(q0));
  EXPECT_FALSE(s.ssn().Allocatable(q0, Probe("cpu=1m")));
  EXPECT_FALSE(s.ssn().Overused(q1));
  EXPECT_TRUE(s.ssn().Allocatable(q1, Probe("cpu=8")));
}

// =====================================================================
// proportion: overused, allocatable, queue order, reclaimable
// =====================================================================

// Overused needs deserved <= allocated in every dimension, `pods` included: a
// queue far above its cpu share is not overused while a pending pod keeps its
// deserved pods above its allocated pods.
TEST(ProportionTest, NotOverusedWhilePodsDimensionIsBelowDeserved) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("q1", 1) + QueueYaml("q2", 1) +
                        PodGroupYaml("pg1", "q1", 1, "", "Running") +
                        Pods("run", "pg1", 3, "1", "n1") + PodYaml("wait-0", "pg1", "1") +
                        PodGroupYaml("pg2", "q2", 1, "", "Inqueue") + Pods("b", "pg2", 4, "1"),
                    kProportionOnly);
  // requests: q1 = cpu 4, pods 4 (3 running + 1 pending); q2 = cpu 4, pods 4.
  // deserved: q1 = cpu 2, pods 4; allocated q1 = cpu 3, pods 3.
  // cpu: 2 <= 3 yes; pods: 4 <= 3 no -> not overused.
  EXPECT_FALSE(fx.ssn().Overused(fx.QueueNamed("q1")));
}

// Once allocated reaches deserved in every dimension the queue is overused.
TEST(ProportionTest, OverusedWhenAllocatedReachesDeservedEverywhere) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("q1", 1) + QueueYaml("q2", 1) +
                        PodGroupYaml("pg1", "q1", 1, "", "Running") +
                        Pods("run", "pg1", 3, "1", "n1") +
                        PodGroupYaml("pg2", "q2", 1, "", "Inqueue") + Pods("b", "pg2", 4, "1"),
                    kProportionOnly);
  // requests: q1 = cpu 3, pods 3 (running only); q2 = cpu 4, pods 4.
  // deserved: q1 = cpu 2, pods 3; allocated q1 = cpu 3, pods 3 -> overused.
  // q2: deserved cpu 2 > allocated 0 -> not overused.
  EXPECT_TRUE(fx.ssn().Overused(fx.QueueNamed("q1")));
  EXPECT_FALSE(fx.ssn().Overused(fx.QueueNamed("q2")));
}

// allocate stops placing a queue's tasks at its deserved even with idle nodes.
TEST(ProportionTest, AllocatableBlocksAtDeserved) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1) + QueueYaml("q2", 1) +
                        PodGroupYaml("pg1", "q1", 1, "", "Inqueue") + Pods("a-t", "pg1", 6, "1") +
                        PodGroupYaml("pg2", "q2", 1, "", "Inqueue") +
                        PodYaml("big-t-0", "pg2", "6"),
                    Conf("allocate", {{"gang"}, {"proportion"}}));
  // requests: q1 = 6 cpu, q2 = 6 cpu. deserved: q1 = q2 = 4 cpu.
  // q1 places 4 one-cpu pods, then allocated 4 + 1 > 4 blocks the rest;
  // q2's 6-cpu pod never fits 4. n1 keeps 4 cpu idle.
  fx.RunActions({"allocate"});
  Decisions d = fx.Close();
  EXPECT_EQ(BoundPods(d), (std::vector<std::string>{"default/a-t-0", "default/a-t-1",
                                                    "default/a-t-2", "default/a-t-3"}));
}

// Across queues the one with the lower share goes first; equal shares fall back
// to creation time, then name.
TEST(ProportionTest, QueueOrderLowerShareFirst) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("qa", 1) + QueueYaml("qb", 1) +
                        PodGroupYaml("pga", "qa", 1, "", "Running") +
                        PodYaml("a-0", "pga", "1", "n1") + PodYaml("a-1", "pga", "1") +
                        PodGroupYaml("pgb", "qb", 1, "", "Inqueue") + Pods("b", "pgb", 2, "1"),
                    kProportionOnly);
  // deserved: qa = qb = cpu 2, pods 2 (both capped by their requests).
  // shares: qa = max(1/2 cpu, 1/2 pods) = 0.50, qb = 0.
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
  EXPECT_FALSE(fx.ssn().QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
}

// A higher spec.priority orders a queue first whatever the shares.
TEST(ProportionTest, QueueOrderPriorityBeforeShare) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("qa", 1, "  priority: 5\n") +
                        QueueYaml("qb", 1) + PodGroupYaml("pga", "qa", 1, "", "Running") +
                        PodYaml("a-0", "pga", "1", "n1") + PodYaml("a-1", "pga", "1") +
                        PodGroupYaml("pgb", "qb", 1, "", "Inqueue") + Pods("b", "pgb", 2, "1"),
                    kProportionOnly);
  // shares: qa = 0.50, qb = 0; priorities: qa = 5, qb = 0 -> qa first.
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
}

// A placement raises its queue's share at once, so the queues change order
// inside one session.
TEST(ProportionTest, ShareFollowsAllocateEvents) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("qa", 1) + QueueYaml("qb", 1) +
                        PodGroupYaml("pga", "qa", 1, "", "Inqueue") + Pods("a", "pga", 2, "1") +
                        PodGroupYaml("pgb", "qb", 1, "", "Inqueue") + Pods("b", "pgb", 2, "1"),
                    kProportionOnly);
  Session& ssn = fx.ssn();
  // deserved: qa = qb = cpu 2, pods 2. shares 0 and 0: name order, qa first.
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
  Statement stmt(ssn);
  stmt.Allocate(ssn.task(fx.Task("default/a-0").id), ssn.node(*ssn.FindNode("n1")));
  // share qa = max(1/2 cpu, 1/2 pods) = 0.50 > qb = 0.
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
  stmt.Discard();
  // Deallocate brings qa back to 0: name order again.
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
}

// Reclaim victims come only from a queue above its deserved, and stop once the
// running allocation is back within it.
TEST(ProportionTest, ReclaimableTakesOnlyWhatIsAboveDeserved) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("q1", 1) + QueueYaml("q2", 1) +
                        PodGroupYaml("pg1", "q1", 1, "", "Running") +
                        Pods("run", "pg1", 4, "1", "n1") +
                        PodGroupYaml("pg2", "q2", 1, "", "Inqueue") + Pods("b", "pg2", 2, "1"),
                    kProportionOnly);
  // deserved: q1 = cpu 2, pods 4; q2 = cpu 2, pods 2. allocated q1 = cpu 4, pods 4.
  // run-0: 4 cpu not <= 2 -> victim (running 3); run-1: 3 > 2 -> victim (running 2);
  // run-2: cpu 2 <= 2, pods 2 <= 4 -> kept; run-3 kept.
  std::vector<const TaskInfo*> cands;
  for (int i = 0; i < 4; ++i) cands.push_back(&fx.Task("default/run-" + std::to_string(i)));
  auto victims = fx.ssn().Reclaimable(fx.Task("default/b-0"), cands);
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(victims[0]->key, "default/run-0");
  EXPECT_EQ(victims[1]->key, "default/run-1");
}

// =====================================================================
// proportion: enqueue
// =====================================================================

// minResources + allocated + inqueue - elastic must fit realCapability: the
// first job fits a 4-cpu capability, the second would take it to 5 cpu.
TEST(ProportionTest, EnqueueAdmitsWithinRealCapability) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1, "  capability:\n    cpu: 4\n") +
                        PodGroupYaml("pga", "q1", 1, "{cpu: 3}") + PodYaml("a-0", "pga", "3") +
                        PodGroupYaml("pgb", "q1", 1, "{cpu: 2}") + PodYaml("b-0", "pgb", "2"),
                    Conf("enqueue", {{"proportion"}}));
  // realCapability q1 = min(8, 4) = 4 cpu.
  // pga: 3 + 0 + 0 - 0 = 3 <= 4 -> Inqueue; inqueue = 3.
  // pgb: 2 + 0 + 3 - 0 = 5 >  4 -> stays Pending, with an event.
  fx.RunActions({"enqueue"});
  Decisions d = fx.Close();
  EXPECT_EQ(d.podgroup_phases.at("default/pga"), PodGroupPhase::kInqueue);
  EXPECT_EQ(d.podgroup_phases.at("default/pgb"), PodGroupPhase::kPending);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].object, "PodGroup/default/pgb");
  EXPECT_EQ(d.events[0].type, "Normal");
  EXPECT_EQ(d.events[0].reason, "Unschedulable");
  EXPECT_EQ(d.events[0].message, "queue resource quota insufficient");
}

// What a job holds above its minResources (elastic) does not count against the
// capability at admission.
TEST(ProportionTest, EnqueueDiscountsElasticAllocation) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1, "  capability:\n    cpu: 4\n") +
                        PodGroupYaml("pgr", "q1", 1, "{cpu: 1}", "Running") +
                        Pods("r", "pgr", 3, "1", "n1") + PodGroupYaml("pgp", "q1", 1, "{cpu: 2}") +
                        PodYaml("p-0", "pgp", "2"),
                    Conf("enqueue", {{"proportion"}}));
  // allocated 3; elastic = 3 - minResources 1 = 2; pgr reserves max(1 - 3, 0) = 0.
  // pgp: 2 + 3 + 0 - 2 = 3 <= 4 -> admitted (without elastic: 5 > 4).
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pgp")));
}

// A Running job that has not allocated all of its minResources keeps the rest
// reserved in `inqueue`.
TEST(ProportionTest, EnqueueCountsRunningJobReservation) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1, "  capability:\n    cpu: 4\n") +
                        PodGroupYaml("pgr", "q1", 1, "{cpu: 4}", "Running") +
                        Pods("r", "pgr", 3, "1", "n1") + PodGroupYaml("pgp", "q1", 1, "{cpu: 1}") +
                        PodYaml("p-0", "pgp", "1"),
                    Conf("enqueue", {{"proportion"}}));
  // allocated 3; elastic = max(3 - 4, 0) = 0; pgr reserves 4 - 3 = 1.
  // pgp: 1 + 3 + 1 - 0 = 5 > 4 -> rejected (without the reservation: 4 <= 4).
  EXPECT_FALSE(fx.ssn().JobEnqueueable(fx.Job("default/pgp")));
}

// A capability that leaves cpu at 0 does not cap cpu; the admission test only
// looks at the dimensions minResources asks for.
TEST(ProportionTest, EnqueueZeroCpuCapabilityIsUnlimited) {
  SessionFixture fx(
      NodeYaml("n1", "8", "8Gi") + QueueYaml("q1", 1, "  capability:\n    memory: 1Gi\n") +
          PodGroupYaml("pgc", "q1", 1, "{cpu: 6}") + PodGroupYaml("pgm", "q1", 1, "{memory: 2Gi}"),
      Conf("enqueue", {{"proportion"}}));
  // realCapability q1 = cpu 8 (capability cpu 0 = unlimited), memory 1Gi.
  // pgc: cpu 6 <= 8 (memory not asked for) -> Permit. pgm: memory 2Gi > 1Gi -> Reject.
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pgc")));
  EXPECT_FALSE(fx.ssn().JobEnqueueable(fx.Job("default/pgm")));
}

// A closed queue admits nothing (no event) and allocates nothing.
TEST(ProportionTest, ClosedQueueRejects) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1, "", "Closed") +
                        PodGroupYaml("pga", "q1", 1, "{cpu: 1}") + PodYaml("a-0", "pga", "1") +
                        PodGroupYaml("pgi", "q1", 1, "", "Inqueue") + PodYaml("i-0", "pgi", "1"),
                    Conf("enqueue, allocate", {{"proportion"}}));
  EXPECT_FALSE(fx.ssn().Allocatable(fx.QueueNamed("q1"), fx.Task("default/i-0")));
  fx.RunActions({"enqueue", "allocate"});
  Decisions d = fx.Close();
  EXPECT_EQ(d.podgroup_phases.at("default/pga"), PodGroupPhase::kPending);
  EXPECT_TRUE(d.binds.empty());
  EXPECT_TRUE(d.events.empty());
}

// =====================================================================
// drf
// =====================================================================

// Jobs are ordered by dominant share, lower first.
TEST(DrfTest, LowerDominantShareFirst) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1) +
                        PodGroupYaml("j1", "q1", 1, "", "Running") + Pods("a", "j1", 2, "1", "n1") +
                        PodGroupYaml("j2", "q1", 1, "", "Running") + Pods("b", "j2", 1, "1", "n1"),
                    kDrfOnly);
  // shares: j1 = max(2/8 cpu, 2/110 pods) = 0.25, j2 = max(1/8, 1/110) = 0.125.
  EXPECT_TRUE(fx.ssn().JobOrderLess(fx.Job("default/j2"), fx.Job("default/j1")));
  EXPECT_FALSE(fx.ssn().JobOrderLess(fx.Job("default/j1"), fx.Job("default/j2")));
}

// `pods` is a resource like any other: with small cpu requests the pod count
// is the dominant share.
TEST(DrfTest, PodCountCanBeDominant) {
  SessionFixture fx(NodeYaml("n1", "100", "0", "10") + QueueYaml("q1", 1) +
                        PodGroupYaml("j1", "q1", 1, "", "Running") +
                        Pods("a", "j1", 3, "100m", "n1") +
                        PodGroupYaml("j2", "q1", 1, "", "Running") + Pods("b", "j2", 1, "5", "n1"),
                    kDrfOnly);
  // shares: j1 = max(0.3/100 cpu, 3/10 pods) = 0.30; j2 = max(5/100, 1/10) = 0.10.
  EXPECT_TRUE(fx.ssn().JobOrderLess(fx.Job("default/j2"), fx.Job("default/j1")));
}

// Allocate / deallocate events move the share at once.
TEST(DrfTest, ShareFollowsAllocateEvents) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1) +
                        PodGroupYaml("j1", "q1", 1, "", "Inqueue") + Pods("a", "j1", 2, "1") +
                        PodGroupYaml("j2", "q1", 1, "", "Inqueue") + Pods("b", "j2", 2, "1"),
                    kDrfOnly);
  Session& ssn = fx.ssn();
  // shares 0 and 0: name order, j1 first.
  EXPECT_TRUE(ssn.JobOrderLess(fx.Job("default/j1"), fx.Job("default/j2")));
  Statement stmt(ssn);
  stmt.Allocate(ssn.task(fx.Task("default/a-0").id), ssn.node(*ssn.FindNode("n1")));
  // j1 = 1/8 = 0.125 > j2 = 0.
  EXPECT_TRUE(ssn.JobOrderLess(fx.Job("default/j2"), fx.Job("default/j1")));
  stmt.Discard();
  EXPECT_TRUE(ssn.JobOrderLess(fx.Job("default/j1"), fx.Job("default/j2")));
}

// In allocate, two jobs of one queue take turns: after each placement the job
// with the lower share goes next.
TEST(DrfTest, JobsInterleaveInAllocate) {
  SessionFixture fx(NodeYaml("n1", "4") + QueueYaml("q1", 1) +
                        PodGroupYaml("j1", "q1", 1, "", "Inqueue") + Pods("a-t", "j1", 3, "1") +
                        PodGroupYaml("j2", "q1", 1, "", "Inqueue") + Pods("b-t", "j2", 3, "1"),
                    Conf("allocate", {{"gang"}, {"drf"}}));
  // j1 0 -> a-t-0 (j1 0.25); j2 0 -> b-t-0 (0.25); tie -> name: a-t-1; then b-t-1. n1 full.
  fx.RunActions({"allocate"});
  Decisions d = fx.Close();
  ASSERT_EQ(d.binds.size(), 4u);
  EXPECT_EQ(d.binds[0].pod, "default/a-t-0");
  EXPECT_EQ(d.binds[1].pod, "default/b-t-0");
  EXPECT_EQ(d.binds[2].pod, "default/a-t-1");
  EXPECT_EQ(d.binds[3].pod, "default/b-t-1");
}

// A candidate is a victim while the preemptor's share after placement is at
// most the candidate job's share after losing it.
TEST(DrfTest, PreemptableComparesSharesAfterTheMove) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1) +
                        PodGroupYaml("r", "q1", 1, "", "Running") + Pods("r", "r", 4, "1", "n1") +
                        PodGroupYaml("p", "q1", 1, "", "Running") + PodYaml("p-0", "p", "1", "n1") +
                        PodYaml("p-1", "p", "1"),
                    kDrfOnly);
  // ls = share(p: 1 + 1 cpu) = 2/8 = 0.25.
  // r-0: r 4 - 1 = 3 -> 0.375 > 0.25 victim; r-1: 2 -> 0.25 = 0.25 victim;
  // r-2: 1 -> 0.125 < 0.25 kept; r-3: 0 kept.
  std::vector<const TaskInfo*> cands;
  for (int i = 0; i < 4; ++i) cands.push_back(&fx.Task("default/r-" + std::to_string(i)));
  auto victims = fx.ssn().Preemptable(fx.Task("default/p-1"), cands);
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(victims[0]->key, "default/r-0");
  EXPECT_EQ(victims[1]->key, "default/r-1");
}

// Every candidate looked at lowers its job's running allocation, victim or not
// (upstream subtracts before comparing): a small candidate after a rejected
// big one is judged on what is left after both.
TEST(DrfTest, RejectedCandidateStillLowersRunningAllocation) {
  SessionFixture fx(NodeYaml("n1", "8") + QueueYaml("q1", 1) +
                        PodGroupYaml("r", "q1", 1, "", "Running") + PodYaml("big", "r", "2", "n1") +
                        PodYaml("small", "r", "1", "n1") +
                        PodGroupYaml("p", "q1", 1, "", "Running") + PodYaml("p-0", "p", "1", "n1") +
                        PodYaml("p-1", "p", "1"),
                    kDrfOnly);
  // ls = 2/8 = 0.25. r allocated 3 cpu.
  // big:   3 - 2 = 1 -> 0.125 < 0.25: kept, running 1;
  // small: 1 - 1 = 0 -> 0 < 0.25: kept. (Judged alone it would be 2/8 = 0.25: a victim.)
  std::vector<const TaskInfo*> cands = {&fx.Task("default/big"), &fx.Task("default/small")};
  EXPECT_TRUE(fx.ssn().Preemptable(fx.Task("default/p-1"), cands).empty());
  std::vector<const TaskInfo*> small_only = {&fx.Task("default/small")};
  EXPECT_EQ(fx.ssn().Preemptable(fx.Task("default/p-1"), small_only).size(), 1u);
}

// Shares within 1e-6 of each other count as equal (Volcano's shareDelta).
TEST(DrfTest, PreemptableToleratesShareDelta) {
  // 2000 cpu and 1e6 pods, so cpu is every job's dominant resource.
  const std::string cluster = NodeYaml("n1", "2000", "0", "1000000") + QueueYaml("q1", 1) +
                              PodGroupYaml("r", "q1", 1, "", "Running") +
                              PodYaml("r-0", "r", "1", "n1") + PodYaml("r-1", "r", "1", "n1") +
                              PodGroupYaml("p", "q1", 1, "", "Inqueue") +
                              PodYaml("close-0", "p", "1001m") + PodYaml("far-0", "p", "1003m");
  SessionFixture fx(cluster, kDrfOnly);
  std::vector<const TaskInfo*> cands = {&fx.Task("default/r-0")};
  // rs = (2 - 1) / 2000 = 0.0005.
  // close-0: ls = 1.001 / 2000 = 0.0005005: ls - rs = 5e-7 <= 1e-6 -> victim.
  EXPECT_EQ(fx.ssn().Preemptable(fx.Task("default/close-0"), cands).size(), 1u);
  // far-0: ls = 1.003 / 2000 = 0.0005015: ls - rs = 1.5e-6 > 1e-6 -> kept.
  EXPECT_TRUE(fx.ssn().Preemptable(fx.Task("default/far-0"), cands).empty());
}

// =====================================================================
// drf with enableHierarchy (hDRF)
// =====================================================================

const std::string kHdrfOnly = Conf("reclaim", {{"drf"}}, "    enableHierarchy: true\n");

// A queue whose path is `path` with level weights `weights`.
std::string HQueueYaml(const std::string& name, const std::string& path,
                       const std::string& weights) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: " + name +
         "\n  annotations:\n    volcano.sh/hierarchy: " + path +
         "\n    volcano.sh/hierarchy-weights: \"" + weights + "\"\nspec:\n  weight: 1\n---\n";
}

// 10 cpu and 1e6 pods: cpu is every job's dominant resource.
const std::string kTenCpu = NodeYaml("n1", "10", "0", "1000000");

// Queues are compared level by level on share / weight: b's share is higher
// but its level weight 2 halves it.
TEST(HdrfTest, QueueOrderDividesShareByLevelWeight) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/a", "1/1") + HQueueYaml("qb", "root/b", "1/2") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 2, "1", "n1") +
          Pods("ja-new", "ja", 5, "1") + PodGroupYaml("jb", "qb", 1, "", "Running") +
          Pods("jb-run", "jb", 3, "1", "n1") + Pods("jb-new", "jb", 5, "1"),
      kHdrfOnly);
  // leaves: ja 2/10 = 0.2 (request 7: unsaturated), jb 3/10 = 0.3 (request 8).
  // level 1: a = 0.2 / 1 = 0.20, b = 0.3 / 2 = 0.15 -> qb first.
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
  EXPECT_FALSE(fx.ssn().QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
}

// Level weights below 1 count as 1: b's weight "0.5" would double its share.
TEST(HdrfTest, LevelWeightsAreFlooredAtOne) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/a", "1/1") + HQueueYaml("qb", "root/b", "1/0.5") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 4, "1", "n1") +
          Pods("ja-new", "ja", 5, "1") + PodGroupYaml("jb", "qb", 1, "", "Running") +
          Pods("jb-run", "jb", 3, "1", "n1") + Pods("jb-new", "jb", 5, "1"),
      kHdrfOnly);
  // a = 0.4 / 1, b = 0.3 / max(0.5, 1) = 0.3 -> qb first (0.3 / 0.5 = 0.6 would put qa first).
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
}

// A saturated queue (every job got all it asked for) goes after an
// unsaturated one, whatever the shares.
TEST(HdrfTest, SaturatedQueueGoesLast) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/a", "1/1") + HQueueYaml("qb", "root/b", "1/1") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 1, "1", "n1") +
          PodGroupYaml("jb", "qb", 1, "", "Running") + Pods("jb-run", "jb", 3, "1", "n1") +
          Pods("jb-new", "jb", 1, "1"),
      kHdrfOnly);
  // ja: allocated 1 >= request 1 -> saturated (share 0.1); jb: 3 < 4 -> unsaturated (0.3).
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
}

// Siblings under a shared level are compared below it: the common ancestor
// ties, the next level decides.
TEST(HdrfTest, SiblingsAreComparedBelowTheirCommonAncestor) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/eng/a", "1/1/1") + HQueueYaml("qb", "root/eng/b", "1/1/1") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 3, "1", "n1") +
          Pods("ja-new", "ja", 5, "1") + PodGroupYaml("jb", "qb", 1, "", "Running") +
          Pods("jb-run", "jb", 1, "1", "n1") + Pods("jb-new", "jb", 5, "1"),
      kHdrfOnly);
  // eng ties with itself; level 2: a = 0.3, b = 0.1 -> qb first.
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
}

// hDRF reclaim: a candidate is a victim iff, after the reclaimer's job gains
// its request and the candidate's job loses the candidate, the reclaimer's
// queue comes strictly first. Each candidate is judged alone, from its job's
// real allocation (two candidates of one job are not taken cumulatively).
TEST(HdrfTest, ReclaimableComparesQueuesAfterTheMove) {
  std::string cluster = NodeYaml("n1", "20", "0", "1000000");
  const std::vector<std::pair<std::string, int>> jobs = {
      {"a", 1}, {"b", 8}, {"c", 1}, {"d", 4}, {"e", 3}};
  for (const auto& [q, running] : jobs) {
    const std::string job = "j" + q;
    cluster += HQueueYaml("q" + q, "root/" + q, "1/1") +
               PodGroupYaml(job, "q" + q, 1, "", "Running") +
               Pods(job + "-run", job, running, "1", "n1") +
               Pods(job + "-new", job, q == "a" ? 3 : 1, "1");
  }
  SessionFixture fx(cluster, kHdrfOnly);
  // reclaimer ja-new-0: ja 1 + 1 = 2 of 20 cpu -> a = 0.10 (request 4: unsaturated).
  // jb-run-0: b = (8 - 1) / 20 = 0.35 > 0.10        -> victim;
  // jc-run-0: c = 0 (an empty job counts for nothing) -> kept;
  // jd-run-0: d = (4 - 1) / 20 = 0.15               -> victim;
  // jd-run-1: judged alone: again 0.15              -> victim;
  // je-run-0: e = (3 - 1) / 20 = 0.10, a tie         -> kept (strictly first only).
  std::vector<const TaskInfo*> cands;
  for (const char* key : {"default/jb-run-0", "default/jc-run-0", "default/jd-run-0",
                          "default/jd-run-1", "default/je-run-0"}) {
    cands.push_back(&fx.Task(key));
  }
  auto victims = fx.ssn().Reclaimable(fx.Task("default/ja-new-0"), cands);
  ASSERT_EQ(victims.size(), 3u);
  EXPECT_EQ(victims[0]->key, "default/jb-run-0");
  EXPECT_EQ(victims[1]->key, "default/jd-run-0");
  EXPECT_EQ(victims[2]->key, "default/jd-run-1");
}

// Without enableHierarchy drf registers no QueueOrder: queues fall back to
// creation time and name.
TEST(HdrfTest, NoQueueOrderWithoutHierarchy) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/a", "1/1") + HQueueYaml("qb", "root/b", "1/2") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 2, "1", "n1") +
          Pods("ja-new", "ja", 5, "1") + PodGroupYaml("jb", "qb", 1, "", "Running") +
          Pods("jb-run", "jb", 3, "1", "n1") + Pods("jb-new", "jb", 5, "1"),
      kDrfOnly);
  EXPECT_TRUE(fx.ssn().QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
}

// Allocate events move the tree: once qb's job takes more, qa comes first.
TEST(HdrfTest, TreeFollowsAllocateEvents) {
  SessionFixture fx(
      kTenCpu + HQueueYaml("qa", "root/a", "1/1") + HQueueYaml("qb", "root/b", "1/1") +
          PodGroupYaml("ja", "qa", 1, "", "Running") + Pods("ja-run", "ja", 2, "1", "n1") +
          Pods("ja-new", "ja", 5, "1") + PodGroupYaml("jb", "qb", 1, "", "Running") +
          Pods("jb-run", "jb", 1, "1", "n1") + Pods("jb-new", "jb", 5, "1"),
      kHdrfOnly);
  Session& ssn = fx.ssn();
  // a = 0.2, b = 0.1 -> qb first.
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
  Statement stmt(ssn);
  stmt.Allocate(ssn.task(fx.Task("default/jb-new-0").id), ssn.node(*ssn.FindNode("n1")));
  stmt.Allocate(ssn.task(fx.Task("default/jb-new-1").id), ssn.node(*ssn.FindNode("n1")));
  // b = 3/10 = 0.3 > a = 0.2 -> qa first.
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qa"), fx.QueueNamed("qb")));
  stmt.Discard();
  EXPECT_TRUE(ssn.QueueOrderLess(fx.QueueNamed("qb"), fx.QueueNamed("qa")));
}

// =====================================================================
// overcommit
// =====================================================================

const std::string kOvercommitOnly = Conf("enqueue", {{"overcommit"}});

std::string OvercommitConf(const std::string& factor) {
  return "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: overcommit\n    arguments:\n      "
         "overcommit-factor: " +
         factor + "\n";
}

// With the default factor 1.2 a 10-cpu cluster admits 12 cpu of minResources.
TEST(OvercommitTest, DefaultFactorAdmitsUpToTwelveTenths) {
  SessionFixture fx(NodeYaml("n1", "10") + QueueYaml("q1", 1) +
                        PodGroupYaml("pga", "q1", 1, "{cpu: 12}") +
                        PodGroupYaml("pgb", "q1", 1, "{cpu: 1}"),
                    kOvercommitOnly);
  // idle = 10 x 1.2 - 0 used = 12 cpu.
  // pga: 0 + 12 <= 12 -> Inqueue (inqueue 12); pgb: 12 + 1 > 12 -> Pending + event.
  fx.RunActions({"enqueue"});
  Decisions d = fx.Close();
  EXPECT_EQ(d.podgroup_phases.at("default/pga"), PodGroupPhase::kInqueue);
  EXPECT_EQ(d.podgroup_phases.at("default/pgb"), PodGroupPhase::kPending);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].object, "PodGroup/default/pgb");
  EXPECT_EQ(d.events[0].type, "Normal");
  EXPECT_EQ(d.events[0].reason, "Unschedulable");
  EXPECT_EQ(d.events[0].message, "resource in cluster is overused");
}

// A larger factor admits more.
TEST(OvercommitTest, FactorTwoAdmitsTwiceTheCluster) {
  SessionFixture fx(
      NodeYaml("n1", "10") + QueueYaml("q1", 1) + PodGroupYaml("pga", "q1", 1, "{cpu: 12}") +
          PodGroupYaml("pgb", "q1", 1, "{cpu: 8}") + PodGroupYaml("pgc", "q1", 1, "{cpu: 1}"),
      OvercommitConf("2.0"));
  // idle = 10 x 2 = 20 cpu: pga 12 <= 20; pgb 12 + 8 = 20 <= 20; pgc 21 > 20.
  fx.RunActions({"enqueue"});
  Decisions d = fx.Close();
  EXPECT_EQ(d.podgroup_phases.at("default/pga"), PodGroupPhase::kInqueue);
  EXPECT_EQ(d.podgroup_phases.at("default/pgb"), PodGroupPhase::kInqueue);
  EXPECT_EQ(d.podgroup_phases.at("default/pgc"), PodGroupPhase::kPending);
}

// A factor below 1 falls back to the default 1.2.
TEST(OvercommitTest, FactorBelowOneFallsBackToDefault) {
  SessionFixture fx(NodeYaml("n1", "10") + QueueYaml("q1", 1) +
                        PodGroupYaml("pga", "q1", 1, "{cpu: 12}") +
                        PodGroupYaml("pgb", "q1", 1, "{cpu: 13}"),
                    OvercommitConf("0.5"));
  // idle = 10 x 1.2 = 12 (not 10 x 0.5 = 5).
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pga")));
  EXPECT_FALSE(fx.ssn().JobEnqueueable(fx.Job("default/pgb")));
}

// A factor that is not a number is an error naming the plugin and the key.
TEST(OvercommitTest, WrongArgumentTypeIsAnError) {
  Arguments text("plugin overcommit");
  text.Set("overcommit-factor", "high");
  auto p = NewOvercommitPlugin(text);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("overcommit-factor"), std::string::npos)
      << p.status().message();

  Arguments boolean("plugin overcommit");
  boolean.Set("overcommit-factor", "true");
  EXPECT_FALSE(NewOvercommitPlugin(boolean).ok());

  Arguments list("plugin overcommit");
  list.Set("overcommit-factor[0]", "1.5");
  EXPECT_FALSE(NewOvercommitPlugin(list).ok());

  Arguments integer("plugin overcommit");
  integer.Set("overcommit-factor", "2");
  EXPECT_TRUE(NewOvercommitPlugin(integer).ok());
}

// Used node resources, Inqueue jobs and the unallocated part of Running jobs'
// minResources all take room.
TEST(OvercommitTest, UsedInqueueAndRunningReservationsTakeRoom) {
  SessionFixture fx(
      NodeYaml("n1", "10") + QueueYaml("q1", 1) +
          PodGroupYaml("run", "q1", 1, "{cpu: 5}", "Running") + Pods("r", "run", 3, "1", "n1") +
          PodGroupYaml("inq", "q1", 1, "{cpu: 2}", "Inqueue") +
          PodGroupYaml("pga", "q1", 1, "{cpu: 4}") + PodGroupYaml("pgb", "q1", 1, "{cpu: 5}"),
      kOvercommitOnly);
  // idle = 12 - 3 used = 9. inqueue = 2 (inq) + (5 - 3) (run) = 4.
  // pga: 4 + 4 = 8 <= 9 -> Permit; pgb: 4 + 5 = 9 <= 9 -> Permit; both together would not fit.
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pga")));
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pgb")));
  fx.ssn().JobEnqueued(fx.Job("default/pga"));
  // inqueue 8: pgb 8 + 5 = 13 > 9.
  EXPECT_FALSE(fx.ssn().JobEnqueueable(fx.Job("default/pgb")));
}

// Only the dimensions minResources asks for are compared; jobs without
// minResources are always admitted.
TEST(OvercommitTest, OnlyRequestedDimensionsCount) {
  SessionFixture fx(
      NodeYaml("n1", "10", "1Gi") + QueueYaml("q1", 1) + PodGroupYaml("cpu", "q1", 1, "{cpu: 2}") +
          PodGroupYaml("mem", "q1", 1, "{memory: 2Gi}") + PodGroupYaml("none", "q1", 1),
      kOvercommitOnly);
  // idle: cpu 12, memory 1.2Gi (rounded down to whole bytes).
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/cpu")));
  EXPECT_FALSE(fx.ssn().JobEnqueueable(fx.Job("default/mem")));
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/none")));
}

// The inflated total is taken in float64 as Volcano does: 4 cpu x 1.2 is
// exactly 4800m (a long-double product would be 4799.99..m and round to 4799m).
TEST(OvercommitTest, InflatedTotalMatchesVolcanoRounding) {
  SessionFixture fx(
      NodeYaml("n1", "4") + QueueYaml("q1", 1) + PodGroupYaml("pga", "q1", 1, "{cpu: 4800m}"),
      kOvercommitOnly);
  EXPECT_TRUE(fx.ssn().JobEnqueueable(fx.Job("default/pga")));
}

}  // namespace
}  // namespace basalt
