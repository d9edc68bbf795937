// The snapshot cache (framework/snapshot_cache.h): cycles on one store patch
// the previous snapshot, and every patched snapshot equals a full build (each
// cycle here runs with verify_snapshot_cache, which compares field by field).
#include "framework/snapshot_cache.h"

#include <random>

#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

const char* kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "20"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "20"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: run, namespace: default}
spec: {minMember: 2, queue: q1}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: run-0, namespace: default, annotations: {scheduling.k8s.io/group-name: run}}
spec: {schedulerName: volcano, nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "2", memory: 1Gi}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: run-1, namespace: default, annotations: {scheduling.k8s.io/group-name: run}}
spec: {schedulerName: volcano, nodeName: n2, containers: [{name: c, resources: {requests: {cpu: "2", memory: 1Gi}}}]}
status: {phase: Running}
)";

Pod MakePod(const std::string& name, const std::string& group, int64_t milli_cpu) {
  Pod p;
  p.meta.name = name;
  p.meta.namespace_ = "default";
  p.meta.uid = "uid-" + name;
  p.meta.annotations["scheduling.k8s.io/group-name"] = group;
  p.spec.scheduler_name = "volcano";
  p.spec.request.set_milli_cpu(milli_cpu);
  p.spec.request.set_memory(int64_t{1} << 30);
  p.phase = "Pending";
  return p;
}

PodGroup MakeGroup(const std::string& name, int32_t min_member, const std::string& queue = "q1") {
  PodGroup pg;
  pg.meta.name = name;
  pg.meta.namespace_ = "default";
  pg.min_member = min_member;
  pg.queue = queue;
  return pg;
}

class SnapshotCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterBuiltinPlugins(plugins_);
    RegisterBuiltinActions(actions_);
    ClusterObjects objs;
    ASSERT_OK(DecodeText(kCluster, "cache.yaml", &objs));
    ASSERT_OK(state_.AddAll(std::move(objs)));
    auto conf = ParseSchedulerConfig(DefaultSchedulerConfigText(), "cache.conf", plugins_.Names(),
                                     actions_.Names());
    ASSERT_OK(conf);
    conf_ = std::move(conf).value();
  }

  // One cycle with the cache: every configured action, then the decisions
  // applied to the store as a cluster would (binds run, evictions delete).
  Decisions Cycle() {
    SessionOptions options;
    options.snapshot_cache = &cache_;
    options.verify_snapshot_cache = true;
    options.on_invariant_violation = [this](const Status& s) {
      violations_.push_back(s.message());
    };
    auto ssn = Session::Open(state_, conf_, plugins_, options);
    EXPECT_OK(ssn);
    for (const std::string& name : conf_.actions) {
      auto action = actions_.Create(name);
      EXPECT_OK(action);
      (*ssn)->Run(**action);
    }
    Decisions d = (*ssn)->Close();
    ssn->reset();
    for (const BindDecision& b : d.binds) {
      Pod* pod = state_.EditPod(b.pod);
      pod->spec.node_name = b.node;
      pod->phase = "Running";
    }
    for (const EvictDecision& e : d.evictions) state_.DeletePod(e.pod);
    for (const auto& [key, phase] : d.podgroup_phases) {
      const PodGroup* pg = state_.FindPodGroup(key);
      if (pg && pg->phase != phase) state_.EditPodGroup(key)->phase = phase;
    }
    return d;
  }

  ClusterState state_;
  SchedulerConfig conf_;
  PluginRegistry plugins_;
  ActionRegistry actions_;
  SnapshotCache cache_;
  std::vector<std::string> violations_;
};

TEST_F(SnapshotCacheTest, PatchesAcrossArrivalsBindsAndDeparturesAndMatchesFullBuilds) {
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 1);
  EXPECT_EQ(cache_.patched_builds(), 0);
  // A gang arrives and binds.
  state_.UpsertPodGroup(MakeGroup("g1", 2));
  state_.UpsertPod(MakePod("g1-0", "g1", 1000));
  state_.UpsertPod(MakePod("g1-1", "g1", 1000));
  Decisions d = Cycle();
  EXPECT_EQ(d.binds.size(), 2u);
  // Nothing changes: the next cycle patches nothing but still matches.
  Cycle();
  // The running gang finishes and leaves; another arrives with its pods first
  // (they name a group the snapshot lacks until the group comes).
  state_.DeletePod("default/run-0");
  state_.DeletePod("default/run-1");
  state_.DeletePodGroup("default/run");
  state_.UpsertPod(MakePod("g2-0", "g2", 3000));
  Cycle();
  state_.UpsertPodGroup(MakeGroup("g2", 1));
  d = Cycle();
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].pod, "default/g2-0");
  // A pod finishes in place; a group moves to a queue that does not exist.
  state_.EditPod("default/g1-0")->phase = "Succeeded";
  state_.EditPodGroup("default/g2")->queue = "missing";
  Cycle();
  state_.EditPodGroup("default/g2")->queue = "q1";
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 1);
  EXPECT_EQ(cache_.patched_builds(), 6);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(SnapshotCacheTest, ChangesTheJournalCannotDescribeRebuildInFull) {
  Cycle();
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 1);
  EXPECT_EQ(cache_.patched_builds(), 1);
  Node n3 = state_.nodes().at("n1");
  n3.meta.name = "n3";
  state_.UpsertNode(std::move(n3));
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 2);
  Queue q2;
  q2.meta.name = "q2";
  state_.UpsertQueue(std::move(q2));
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 3);
  state_.mutable_pods();  // whole-map access: anything may have changed
  Cycle();
  EXPECT_EQ(cache_.full_builds(), 4);
  Cycle();
  EXPECT_EQ(cache_.patched_builds(), 2);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

// The verification is not vacuous: an edit that bypasses the journal leaves
// the patched snapshot stale, and the comparison with a full build names it.
TEST_F(SnapshotCacheTest, VerificationReportsAnEditTheJournalMissed) {
  Cycle();
  const_cast<Pod*>(state_.FindPod("default/run-0"))->spec.request.set_milli_cpu(3000);
  Cycle();
  ASSERT_EQ(violations_.size(), 1u);
  EXPECT_NE(violations_[0].find("task default/run-0: request differs"), std::string::npos)
      << violations_[0];
}

// Random arrivals, binds, completions, deletions and group changes over many
// cycles: every patched snapshot equals a full build.
TEST_F(SnapshotCacheTest, RandomChurnMatchesFullBuilds) {
  std::mt19937_64 rng(7);
  int serial = 0;
  for (int cycle = 0; cycle < 60; ++cycle) {
    const int arrivals = static_cast<int>(rng() % 3);
    for (int i = 0; i < arrivals; ++i) {
      const std::string group = "r" + std::to_string(serial++);
      const int size = 1 + static_cast<int>(rng() % 3);
      const bool pods_first = rng() % 4 == 0;
      if (!pods_first) state_.UpsertPodGroup(MakeGroup(group, size));
      for (int t = 0; t < size; ++t) {
        state_.UpsertPod(MakePod(group + "-" + std::to_string(t), group,
                                 500 + 500 * static_cast<int64_t>(rng() % 4)));
      }
      if (pods_first) state_.UpsertPodGroup(MakeGroup(group, size));
    }
    std::vector<std::string> keys;
    for (const auto& [key, pod] : state_.pods()) keys.push_back(key);
    if (!keys.empty()) {
      const std::string& key = keys[rng() % keys.size()];
      switch (rng() % 4) {
        case 0:
          state_.DeletePod(key);
          break;
        case 1:
          state_.EditPod(key)->phase = "Succeeded";
          break;
        case 2:
          state_.EditPod(key)->meta.deleting = true;
          break;
        default:
          state_.EditPod(key)->meta.annotations["volcano.sh/task-priority"] = "5";
          break;
      }
    }
    if (!state_.podgroups().empty() && rng() % 5 == 0) {
      auto it = state_.podgroups().begin();
      std::advance(it, static_cast<long>(rng() % state_.podgroups().size()));
      state_.DeletePodGroup(it->first);
    }
    Cycle();
  }
  EXPECT_EQ(cache_.full_builds(), 1);
  EXPECT_EQ(cache_.patched_builds(), 59);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

}  // namespace
}  // namespace basalt
