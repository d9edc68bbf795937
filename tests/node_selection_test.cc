// Fast node selection vs the reference path (issue 8): every scenario of
// tests/scenarios and many randomized clusters run through both
// (SessionOptions::reference_node_selection) and must give the same decisions,
// byte for byte: binds, pipelined pods, evictions, events (with their fit-error
// messages), PodGroup phases and queue allocations, cycle after cycle.
#include "actions/node_selection.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>

#include "actions/builtin.h"
#include "actions/starving_jobs.h"
#include "cluster_generator.h"
#include "engine/cycle_runner.h"
#include "framework/config.h"
#include "plugins/builtin.h"
#include "profiles.h"
#include "random_cluster.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

std::string Serialize(const Decisions& d) {
  std::ostringstream os;
  for (const auto& b : d.binds) os << "bind " << b.pod << " " << b.node << "\n";
  for (const auto& p : d.pipelined)
    os << "pipelined " << p.pod << " " << p.node << " " << p.nominate << "\n";
  for (const auto& e : d.evictions)
    os << "evict " << e.pod << " " << e.action << " " << e.reason << "\n";
  for (const auto& e : d.events)
    os << "event " << e.object << " " << e.type << " " << e.reason << " " << e.message << "\n";
  for (const auto& [pg, phase] : d.podgroup_phases)
    os << "podgroup " << pg << " " << PodGroupPhaseName(phase) << "\n";
  for (const auto& [q, r] : d.queue_allocated) os << "queue " << q << " " << r.ToString() << "\n";
  return os.str();
}

struct Run {
  std::string out;    // every cycle's decisions
  std::string error;  // a load error (the same for both paths)
};

Run RunCycles(ClusterState& state, const SchedulerConfig& conf, int cycles, bool reference) {
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  SessionOptions options;
  options.reference_node_selection = reference;
  CycleRunner runner(state, conf, plugins, actions, options);
  Run run;
  if (Status s = runner.Init(); !s.ok()) {
    run.error = s.ToString();
    return run;
  }
  runner.SyncControllers();
  for (int c = 1; c <= cycles; ++c) {
    auto r = runner.RunCycle(false);
    if (!r.ok()) {
      run.error = r.status().ToString();
      return run;
    }
    run.out += "-- cycle " + std::to_string(c) + "\n" + Serialize(r->decisions);
    runner.WorldStep();
  }
  return run;
}

// Loads `manifests` and `conf_text` afresh for each path and compares.
void ExpectSameDecisions(const std::string& conf_text, const std::string& manifests, int cycles,
                         const std::string& label) {
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  auto conf = ParseSchedulerConfig(conf_text.empty() ? DefaultSchedulerConfigText() : conf_text,
                                   label, plugins.Names(), actions.Names());
  if (!conf.ok()) return;  // scenarios about configuration errors
  Run runs[2];
  for (int reference = 0; reference < 2; ++reference) {
    ClusterObjects objects;
    ClusterState state;
    Status s = DecodeText(manifests, label, &objects);
    if (s.ok()) s = state.AddAll(std::move(objects));
    if (!s.ok()) return;  // scenarios about manifest errors
    runs[reference] = RunCycles(state, *conf, cycles, reference == 1);
  }
  EXPECT_EQ(runs[0].error, runs[1].error) << label;
  EXPECT_EQ(runs[0].out, runs[1].out) << label;
}

TEST(NodeSelectionEquivalence, EveryScenario) {
  fs::path root = fs::path(BASALT_SOURCE_DIR) / "tests" / "scenarios";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& path : files) {
    YAML::Node doc = YAML::LoadFile(path.string());
    if (!doc["cluster"]) continue;
    const std::string conf = doc["conf"] ? doc["conf"].Scalar() : "";
    const int cycles = doc["cycles"] ? doc["cycles"].as<int>() : 1;
    ExpectSameDecisions(conf, doc["cluster"].Scalar(), std::max(cycles, 3),
                        fs::relative(path, root).string());
  }
}

// Randomized worlds (tests/random_cluster.h); every fourth one with its
// NoSchedule taints turned PreferNoSchedule, so the normalised taint score
// varies between nodes (the per-task scoring fallback).
TEST(NodeSelectionEquivalence, RandomWorlds) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    testing::World w = testing::GenerateWorld(seed, seed % 3 == 0);
    if (seed % 4 == 0) {
      for (std::string& doc : w.docs) {
        for (size_t at; (at = doc.find("effect: NoSchedule")) != std::string::npos;) {
          doc.replace(at, 18, "effect: PreferNoSchedule");
        }
      }
    }
    ExpectSameDecisions(w.conf, w.Manifests(), w.cycles + 1, "seed " + std::to_string(seed));
  }
}

// The benchmark profiles, scaled down: gangs over many identical nodes, full
// clusters with preemption and reclaim, several cycles with churn.
TEST(NodeSelectionEquivalence, BenchProfilesScaledDown) {
  for (const bench::Profile& full : bench::Profiles()) {
    bench::Profile p = full;
    p.cluster.nodes = std::max(8, full.cluster.nodes / 100);
    p.workload.pending_pods = full.workload.pending_pods / 100;
    p.workload.running_pods = full.workload.running_pods / 100;
    p.workload.queues = std::min(full.workload.queues, 6);
    p.churn_gangs = full.churn_gangs > 0 ? 2 : 0;
    bench::RunOptions options;
    options.runs = 3;
    std::string out[2];
    for (int reference = 0; reference < 2; ++reference) {
      options.reference = reference == 1;
      // RunProfile only reports counts; compare the decisions through CycleRunner.
      ClusterState state;
      bench::Generate(p.cluster, p.workload, &state);
      PluginRegistry plugins;
      RegisterBuiltinPlugins(plugins);
      ActionRegistry actions;
      RegisterBuiltinActions(actions);
      auto conf =
          ParseSchedulerConfig(bench::ConfText(p), p.name, plugins.Names(), actions.Names());
      ASSERT_TRUE(conf.ok()) << conf.status().ToString();
      out[reference] = RunCycles(state, *conf, 3, options.reference).out;
    }
    EXPECT_FALSE(out[0].empty());
    EXPECT_EQ(out[0], out[1]) << p.name;
  }
}

// Preempt and reclaim under pressure: full clusters of running gangs with
// random gang sizes and minMember (so gang keeps some victims and refuses
// others), one to three queues, pending gangs of higher or equal priority in
// the same or another queue, over several cycles. This exercises what the
// fast path skips: nodes without running tasks, nodes that refused a
// preemptor earlier in its job's turn, and starving jobs re-sorted after
// evictions changed them.
TEST(NodeSelectionEquivalence, RandomEvictionWorlds) {
  std::mt19937_64 rng(8);
  auto pick = [&rng](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  int evicting = 0;
  for (int world = 0; world < 120; ++world) {
    bench::Profile p;
    p.name = "eviction world " + std::to_string(world);
    p.actions = pick(0, 3) == 0 ? "enqueue, allocate, reclaim, preempt"
                                : "enqueue, allocate, preempt, reclaim";
    p.cluster.nodes = pick(3, 24);
    p.cluster.gpus_per_node = pick(2, 8);
    p.cluster.node_cpu = std::to_string(4 * p.cluster.gpus_per_node);
    p.cluster.node_memory = std::to_string(32 * p.cluster.gpus_per_node) + "Gi";
    p.workload.seed = rng();
    p.workload.queues = pick(1, 3);
    p.workload.tasks_per_gang = pick(1, 8);
    const int slots = p.cluster.nodes * p.cluster.gpus_per_node;
    p.workload.running_pods = slots - pick(0, 2) * p.workload.tasks_per_gang;
    p.workload.running_pods -= p.workload.running_pods % p.workload.tasks_per_gang;
    p.workload.running_min_member = pick(1, p.workload.tasks_per_gang);
    p.workload.pending_pods = p.workload.tasks_per_gang * pick(1, 3 * p.cluster.nodes);
    p.workload.running_queue = pick(0, 1) ? "queue-0" : "";
    p.workload.pending_queue =
        pick(0, 1) ? "queue-" + std::to_string(pick(0, p.workload.queues - 1)) : "";
    p.workload.pending_priority_class = pick(0, 2) ? "high" : "";
    if (pick(0, 3) == 0) p.workload.pod = bench::PodShape{"8", "64Gi", 2};
    // Half the worlds give some running gangs pending pods of their own, so
    // that starving jobs also hold victims: evictions then change jobs that
    // wait in preempt's and reclaim's job lists.
    const bool mixed = pick(0, 1) == 1;
    const int extra_gangs = pick(1, 6);
    const uint64_t extra_seed = rng();
    std::string out[2];
    for (int reference = 0; reference < 2; ++reference) {
      ClusterState state;
      bench::Generate(p.cluster, p.workload, &state);
      if (mixed) {
        std::mt19937_64 extra(extra_seed);
        std::vector<Pod> added;
        for (const auto& [key, pod] : state.pods()) {
          if (pod.phase != "Running" || extra() % 4 != 0 ||
              static_cast<int>(added.size()) >= 3 * extra_gangs)
            continue;
          Pod more = pod;
          more.meta.name += "-more";
          more.spec.node_name.clear();
          more.phase = "Pending";
          if (extra() % 2 == 0) more.spec.priority_class_name = "high";
          added.push_back(std::move(more));
        }
        for (Pod& pod : added) state.UpsertPod(std::move(pod));
      }
      PluginRegistry plugins;
      RegisterBuiltinPlugins(plugins);
      ActionRegistry actions;
      RegisterBuiltinActions(actions);
      auto conf =
          ParseSchedulerConfig(bench::ConfText(p), p.name, plugins.Names(), actions.Names());
      ASSERT_TRUE(conf.ok()) << conf.status().ToString();
      out[reference] = RunCycles(state, *conf, 3, reference == 1).out;
    }
    EXPECT_EQ(out[0], out[1]) << p.name;
    if (out[0].find("evict ") != std::string::npos) ++evicting;
  }
  // Most worlds must actually evict, or the comparison proves little.
  EXPECT_GT(evicting, 60);
}

// StarvingJobs picks what PickList's scan picks even after evictions moved the
// keys of jobs waiting in the list: drf orders jobs by share, and evicting all
// of the largest job's running pods makes it the smallest.
TEST(StarvingJobs, ResortsJobsChangedWhileWaiting) {
  auto pod = [](const std::string& name, const std::string& pg, bool running) {
    std::string s =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
        "\n  namespace: default\n  annotations:\n    scheduling.k8s.io/group-name: " + pg +
        "\nspec:\n  schedulerName: volcano\n";
    if (running) s += "  nodeName: n1\n";
    s += "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: \"1\"\n";
    return s + (running ? "status:\n  phase: Running\n---\n" : "status:\n  phase: Pending\n---\n");
  };
  std::string cluster =
      "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: "
      "\"10\"\n"
      "    memory: \"0\"\n    pods: \"110\"\n---\n"
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: default\nspec:\n "
      " weight: 1\n"
      "status:\n  state: Open\n---\n";
  const std::vector<std::pair<std::string, int>> jobs = {
      {"a", 3}, {"b", 2}, {"c", 1}};  // running pods
  for (const auto& [name, running] : jobs) {
    cluster +=
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + name +
        ", namespace: default}\nspec:\n  minMember: 1\n  queue: default\nstatus: {phase: "
        "Running}\n---\n";
    for (int i = 0; i < running; ++i) cluster += pod(name + "-" + std::to_string(i), name, true);
    cluster += pod(name + "-pending", name, false);
  }
  testing::SessionFixture f(cluster, "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: drf\n");
  Session& ssn = f.ssn();
  EvictionWatch watch({TaskStatus::kRunning});
  StarvingJobs list(ssn, watch);
  for (const auto& [name, running] : jobs) list.Push(f.Job("default/" + name).id);
  // Shares 3/10, 2/10, 1/10: c goes first; then a loses its three pods.
  for (int i = 0; i < 3; ++i) {
    ssn.Evict(const_cast<TaskInfo&>(f.Task("default/a-" + std::to_string(i))), "test", "test");
  }
  std::vector<std::string> picks;
  while (!list.Empty()) picks.push_back(ssn.job(list.Pop()).key);
  EXPECT_EQ(picks, (std::vector<std::string>{"default/a", "default/c", "default/b"}));
}

}  // namespace
}  // namespace basalt
