#include <algorithm>
#include "random_cluster.h"

#include <random>
#include <sstream>

#include "actions/builtin.h"
#include "api/decode.h"
#include "framework/config.h"
#include "plugins/builtin.h"
#include "sim/cycle_runner.h"
#include "state/cluster_state.h"

namespace basalt::testing {
namespace {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[Int(0, static_cast<int>(v.size()) - 1)]; }

 private:
  std::mt19937_64 rng_;
};

std::string Cpu(Gen& g) { return g.Pick<std::string>({"100m", "250m", "500m", "1", "1500m", "2", "3", "4"}); }
std::string Mem(Gen& g) { return g.Pick<std::string>({"128Mi", "512Mi", "1Gi", "2Gi", "4Gi"}); }

// A switch line for a plugin, drawn from the ones Volcano users flip.
std::string Switches(Gen& g, const std::string& name) {
  std::string s;
  auto maybe = [&](const char* key, int off_percent) {
    if (g.Chance(25)) s += std::string("    ") + key + ": " + (g.Chance(off_percent) ? "false" : "true") + "\n";
  };
  if (name == "gang") {
    maybe("enablePreemptable", 50);
    maybe("enableReclaimable", 50);
    maybe("enableJobStarving", 20);
  } else if (name == "proportion" || name == "capacity") {
    maybe("enableReclaimable", 30);
    maybe("enabledAllocatable", 10);
    maybe("enablePreemptive", 10);
  } else if (name == "priority" || name == "drf") {
    maybe("enablePreemptable", 40);
  } else if (name == "conformance") {
    maybe("enablePreemptable", 30);
    maybe("enableReclaimable", 30);
  }
  return s;
}

std::string Conf(Gen& g, bool capacity, bool hierarchy) {
  std::vector<std::string> actions = {"enqueue", "allocate"};
  if (g.Chance(50)) actions.push_back("backfill");
  if (g.Chance(60)) actions.push_back("preempt");
  if (g.Chance(60)) actions.push_back("reclaim");
  if (g.Chance(10)) actions.erase(actions.begin());  // allocate admits every job itself
  std::string list;
  for (const auto& a : actions) list += (list.empty() ? "" : ", ") + a;
  const std::string queue_plugin = capacity ? "capacity" : "proportion";
  std::vector<std::vector<std::string>> tiers;
  switch (g.Int(0, 3)) {
    case 0:  // Volcano's default shape.
      tiers = {{"priority", "gang", "conformance"}, {"drf", "predicates", queue_plugin, "nodeorder", "binpack"}};
      break;
    case 1:  // every voter in one tier: gang or the queue plugin decides alone.
      tiers = {{"priority", "predicates", "nodeorder", g.Chance(50) ? "gang" : queue_plugin,
                g.Chance(50) ? queue_plugin : "gang"}};
      break;
    case 2:  // gang alone votes on victims.
      tiers = {{"priority", "gang"}, {"predicates", queue_plugin, "nodeorder"}};
      break;
    default:
      tiers = {{"gang"}, {"priority", "drf", "predicates", queue_plugin, "binpack"}};
      break;
  }
  std::ostringstream os;
  os << "actions: \"" << list << "\"\ntiers:\n";
  for (const auto& tier : tiers) {
    os << "- plugins:\n";
    for (const auto& p : tier) {
      os << "  - name: " << p << "\n";
      std::string sw = Switches(g, p);
      // In case 2 the queue plugin must not vote on victims (gang decides).
      if (&tier != &tiers.front() && p == queue_plugin && tiers.size() == 2 && tiers[0].size() == 2 &&
          tiers[0][1] == "gang") {
        sw = "    enableReclaimable: false\n";
      }
      if (p == "capacity" && hierarchy) sw += "    enableHierarchy: true\n";
      os << sw;
    }
  }
  return os.str();
}

}  // namespace

std::string World::Manifests() const {
  std::string out;
  for (const auto& d : docs) out += (out.empty() ? "" : "---\n") + d;
  return out;
}

World GenerateWorld(uint64_t seed, bool small) {
  Gen g(seed);
  World w;
  w.seed = seed;
  w.cycles = g.Int(1, small ? 3 : 4);
  const bool capacity = g.Chance(40);
  const bool hierarchy = capacity && g.Chance(35);
  w.conf = Conf(g, capacity, hierarchy);

  const int nodes = g.Int(1, small ? 4 : 6);
  std::vector<std::string> node_names;
  for (int i = 0; i < nodes; ++i) {
    std::ostringstream os;
    std::string name = "n" + std::to_string(i);
    node_names.push_back(name);
    os << "apiVersion: v1\nkind: Node\nmetadata: {name: " << name << ", labels: {zone: "
       << (g.Chance(50) ? "a" : "b") << "}}\n";
    if (g.Chance(20)) os << "spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}\n";
    os << "status: {allocatable: {cpu: \"" << g.Int(1, 16) << "\", memory: " << g.Int(1, 32) << "Gi, pods: \""
       << g.Pick<int>({3, 10, 110}) << "\"";
    if (g.Chance(30)) os << ", nvidia.com/gpu: \"" << g.Int(0, 8) << "\"";
    os << "}}\n";
    w.docs.push_back(os.str());
  }
  w.docs.push_back(
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n");
  w.docs.push_back("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n");

  const int queues = g.Int(1, small ? 3 : 4);
  std::vector<std::string> queue_names;
  if (hierarchy) {
    w.docs.push_back("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: root}\nspec: {weight: 1}\n");
  }
  for (int i = 0; i < queues; ++i) {
    std::ostringstream os;
    std::string name = "q" + std::to_string(i);
    queue_names.push_back(name);
    os << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " << name << "}\nspec:\n"
       << "  weight: " << g.Int(1, 5) << "\n";
    if (g.Chance(30)) os << "  priority: " << g.Int(0, 3) << "\n";
    if (g.Chance(20)) os << "  reclaimable: false\n";
    // Only queues Volcano's admission accepts: guarantee <= deserved <= capability
    // (a guarantee above the capability lifts deserved past it, by design).
    int cap_cpu = 1 << 20, cap_mem = 1 << 20;
    if (g.Chance(40)) {
      cap_cpu = g.Int(1, 24);
      cap_mem = g.Int(2, 64);
      os << "  capability: {cpu: \"" << cap_cpu << "\", memory: " << cap_mem << "Gi}\n";
    }
    if (capacity && g.Chance(60)) {
      cap_cpu = std::min(cap_cpu, g.Int(1, 12));
      cap_mem = std::min(cap_mem, g.Int(1, 24));
      os << "  deserved: {cpu: \"" << cap_cpu << "\", memory: " << cap_mem << "Gi}\n";
    }
    if (g.Chance(30)) {
      os << "  guarantee: {resource: {cpu: \"" << std::min(cap_cpu, g.Int(1, 4)) << "\", memory: "
         << std::min(cap_mem, g.Int(1, 4)) << "Gi}}\n";
    }
    if (hierarchy) os << "  parent: root\n";
    w.docs.push_back(os.str());
  }

  const int jobs = g.Int(1, small ? 4 : 7);
  for (int j = 0; j < jobs; ++j) {
    const std::string job = "j" + std::to_string(j);
    const std::string queue = g.Pick(queue_names);
    const int tasks = g.Int(1, small ? 4 : 5);
    const int min = g.Int(1, tasks);
    const std::string cpu = Cpu(g), mem = Mem(g);
    const bool gpu = g.Chance(15);
    const std::string pc = g.Chance(50) ? (g.Chance(50) ? "high" : "low") : "";
    std::string requests = "{cpu: \"" + cpu + "\", memory: " + mem + (gpu ? ", nvidia.com/gpu: \"1\"" : "") + "}";
    if (g.Chance(8)) requests = "{}";  // BestEffort: only backfill places it
    if (g.Chance(35)) {
      // A vcjob: the job controller makes the PodGroup and the pods.
      std::ostringstream os;
      os << "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: " << job
         << ", namespace: default}\nspec:\n  minAvailable: " << min << "\n  queue: " << queue << "\n";
      if (!pc.empty()) os << "  priorityClassName: " << pc << "\n";
      if (g.Chance(60)) {
        os << "  policies:\n  - event: PodEvicted\n    action: "
           << g.Pick<std::string>({"RestartJob", "AbortJob", "RestartTask"}) << "\n";
      }
      os << "  tasks:\n  - name: w\n    replicas: " << tasks << "\n    template:\n      spec:\n"
         << "        containers: [{name: c, resources: {requests: " << requests << "}}]\n";
      w.docs.push_back(os.str());
      continue;
    }
    std::ostringstream pg;
    pg << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " << job
       << ", namespace: default";
    if (g.Chance(30)) pg << ", annotations: {volcano.sh/preemptable: \"" << (g.Chance(70) ? "true" : "false") << "\"}";
    pg << "}\nspec: {minMember: " << min << ", queue: " << queue;
    if (!pc.empty()) pg << ", priorityClassName: " << pc;
    pg << "}\n";
    const bool running_job = g.Chance(40);
    if (running_job) pg << "status: {phase: Running}\n";
    w.docs.push_back(pg.str());
    for (int t = 0; t < tasks; ++t) {
      std::ostringstream os;
      os << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " << job << "-t-" << t
         << "\n  namespace: default\n  annotations: {scheduling.k8s.io/group-name: " << job;
      if (g.Chance(30)) os << ", volcano.sh/preemptable: \"" << (g.Chance(70) ? "true" : "false") << "\"";
      os << "}\nspec:\n  schedulerName: volcano\n";
      if (!pc.empty()) os << "  priorityClassName: " << pc << "\n";
      if (g.Chance(15)) os << "  nodeSelector: {zone: " << (g.Chance(50) ? "a" : "b") << "}\n";
      if (g.Chance(15)) os << "  tolerations: [{key: dedicated, operator: Equal, value: x, effect: NoSchedule}]\n";
      const bool running = running_job && g.Chance(70);
      if (running) os << "  nodeName: " << g.Pick(node_names) << "\n";
      os << "  containers: [{name: c, resources: {requests: " << requests << "}}]\n";
      if (running) os << "status: {phase: Running}\n";
      w.docs.push_back(os.str());
    }
  }
  return w;
}

RunOutcome RunWorld(const World& world) {
  RunOutcome out;
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  auto conf = ParseSchedulerConfig(world.conf, "random.conf", plugins.Names(), actions.Names());
  if (!conf.ok()) {
    out.violation = "configuration: " + conf.status().ToString();
    return out;
  }
  ClusterObjects objects;
  Status decoded = DecodeText(world.Manifests(), "random.yaml", &objects);
  ClusterState state;
  if (decoded.ok()) decoded = state.AddAll(std::move(objects));
  if (!decoded.ok()) {
    out.violation = "manifests: " + decoded.ToString();
    return out;
  }
  SessionOptions options;
  options.check_invariants = true;
  std::string* violation = &out.violation;
  options.on_invariant_violation = [violation](const Status& s) {
    if (violation->empty()) *violation = s.ToString();
  };
  CycleRunner runner(state, *conf, plugins, actions, options);
  Status init = runner.Init();
  if (!init.ok()) {
    out.violation = "init: " + init.ToString();
    return out;
  }
  runner.SyncControllers();
  for (int c = 0; c < world.cycles && out.violation.empty(); ++c) {
    auto r = runner.RunCycle(false);
    if (!r.ok()) {
      out.violation = "cycle: " + r.status().ToString();
      break;
    }
    ++out.cycles_run;
    runner.WorldStep();
  }
  return out;
}

bool IsInvariantViolation(const RunOutcome& r) {
  return !r.ok() && r.violation.rfind("configuration:", 0) != 0 && r.violation.rfind("manifests:", 0) != 0 &&
         r.violation.rfind("init:", 0) != 0;
}

World Shrink(const World& failing) {
  if (!IsInvariantViolation(RunWorld(failing))) return failing;  // a load error: nothing to shrink
  World w = failing;
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < w.docs.size();) {
      World smaller = w;
      smaller.docs.erase(smaller.docs.begin() + static_cast<long>(i));
      // Keep the cut only if it still violates an invariant (not a load error).
      if (IsInvariantViolation(RunWorld(smaller))) {
        w = std::move(smaller);
        progress = true;
      } else {
        ++i;
      }
    }
    while (w.cycles > 1) {
      World fewer = w;
      --fewer.cycles;
      if (!IsInvariantViolation(RunWorld(fewer))) break;
      w = std::move(fewer);
    }
  }
  return w;
}

std::string ScenarioYaml(const World& world, const std::string& name, const std::string& violation) {
  auto indent = [](const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += "  " + line + "\n";
    return out;
  };
  std::ostringstream os;
  os << "name: " << name << "\ndescription: >\n  Found by basalt_random_cycles (seed " << world.seed
     << "), shrunk. The invariant check reported: " << violation << "\ntags: [regress, invariants]\nconf: |\n"
     << indent(world.conf) << "cycles: " << world.cycles << "\ncluster: |\n" << indent(world.Manifests());
  return os.str();
}

}  // namespace basalt::testing
