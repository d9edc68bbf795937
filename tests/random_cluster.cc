#include "random_cluster.h"

#include <algorithm>
#include <random>
#include <sstream>

#include "actions/builtin.h"
#include "api/decode.h"
#include "engine/cycle_runner.h"
#include "framework/config.h"
#include "plugins/builtin.h"
#include "state/cluster_state.h"

namespace basalt::testing {
namespace {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Int(0, static_cast<int>(v.size()) - 1)];
  }

 private:
  std::mt19937_64 rng_;
};

// Card models of card worlds: two whole-card products, and the MIG slice an
// H200 node may also offer (a model of its own).
const std::vector<std::string> kProducts = {"NVIDIA-H200", "NVIDIA-A100"};
const std::vector<std::string> kCardModels = {"NVIDIA-H200", "NVIDIA-A100",
                                              "NVIDIA-H200/mig-1g.18gb-mixed"};

// A queue's `volcano.sh/card.quota`: some models, 0 to 6 cards each.
std::string CardQuota(Gen& g) {
  std::string json;
  for (const std::string& m : kCardModels) {
    if (!g.Chance(60)) continue;
    json += (json.empty() ? "" : ", ") + ("\"" + m + "\": " + std::to_string(g.Int(0, 6)));
  }
  return "{" + json + "}";
}

// What a job of a card world adds to its objects.
struct CardJob {
  std::string pod_annotations;    // "volcano.sh/card.name: ..." ("" = no cards)
  std::string group_annotations;  // service type, card.request
  std::string node_selector;      // the product, for single-model whole cards
  std::string card_request;       // e.g. `nvidia.com/gpu: "2"`, added to the pod's requests
};

// Draws a job's service type and cards.
CardJob DrawCardJob(Gen& g) {
  CardJob c;
  const int type = g.Int(1, 100);
  if (type <= 40) {
    c.group_annotations = "volcano.sh/service.type: training";
  } else if (type <= 80) {
    c.group_annotations = "volcano.sh/service.type: inference";
  }
  if (g.Chance(25)) return c;  // no cards: charged on cpu and memory only
  std::string name, resource;
  int count = 1;
  switch (g.Int(0, 3)) {
    case 0:
    case 1:
      name = g.Pick(kProducts);
      resource = "nvidia.com/gpu";
      count = g.Int(1, 2);
      if (g.Chance(50)) c.node_selector = "nvidia.com/gpu.product: " + name;
      break;
    case 2:  // alternatives on one resource, preferred first
      name = g.Chance(50) ? "NVIDIA-H200|NVIDIA-A100" : "NVIDIA-A100|NVIDIA-H200";
      resource = "nvidia.com/gpu";
      break;
    default:
      name = "NVIDIA-H200/mig-1g.18gb-mixed";
      resource = "nvidia.com/mig-1g.18gb";
      break;
  }
  c.pod_annotations = "volcano.sh/card.name: \"" + name + "\"";
  if (g.Chance(30)) {
    c.group_annotations += std::string(c.group_annotations.empty() ? "" : ", ") +
                           "volcano.sh/card.request: '{\"" + name + "\": " + std::to_string(count) +
                           "}'";
  }
  c.card_request = resource + ": \"" + std::to_string(count) + "\"";
  return c;
}

std::string Cpu(Gen& g) {
  return g.Pick<std::string>({"100m", "250m", "500m", "1", "1500m", "2", "3", "4"});
}
std::string Mem(Gen& g) { return g.Pick<std::string>({"128Mi", "512Mi", "1Gi", "2Gi", "4Gi"}); }

// A switch line for a plugin, drawn from the ones Volcano users flip.
std::string Switches(Gen& g, const std::string& name) {
  std::string s;
  auto maybe = [&](const char* key, int off_percent) {
    if (g.Chance(25))
      s += std::string("    ") + key + ": " + (g.Chance(off_percent) ? "false" : "true") + "\n";
  };
  if (name == "gang") {
    maybe("enablePreemptable", 50);
    maybe("enableReclaimable", 50);
    maybe("enableJobStarving", 20);
  } else if (name == "proportion" || name == "capacity") {
    maybe("enableReclaimable", 30);
    maybe("enabledAllocatable", 10);
    maybe("enablePreemptive", 10);
  } else if (name == "capacity-card") {
    maybe("enableReclaimable", 30);
    maybe("enabledAllocatable", 10);
    maybe("enableJobEnqueued", 10);
  } else if (name == "priority" || name == "drf") {
    maybe("enablePreemptable", 40);
  } else if (name == "conformance") {
    maybe("enablePreemptable", 30);
    maybe("enableReclaimable", 30);
  }
  return s;
}

// capacity-card's arguments (docs/plugins/capacity-card.md), drawn at random.
std::string CardArguments(Gen& g) {
  std::ostringstream os;
  os << "    arguments:\n";
  os << "      overCommitFactor: " << g.Pick<std::string>({"1", "1.5", "2"}) << "\n";
  os << "      cardUnlimitedCpuMemory: " << (g.Chance(50) ? "true" : "false") << "\n";
  if (g.Chance(50))
    os << "      nodeOrderWeight: " << g.Pick<std::string>({"0.5", "1", "3"}) << "\n";
  if (g.Chance(60)) {
    os << "      podOwnerReferenceToServiceType:\n        ReplicaSet: inference\n        Job: "
          "training\n";
  }
  return os.str();
}

std::string Conf(Gen& g, const std::string& queue_plugin, bool hierarchy) {
  std::vector<std::string> actions = {"enqueue", "allocate"};
  if (g.Chance(50)) actions.push_back("backfill");
  if (g.Chance(60)) actions.push_back("preempt");
  if (g.Chance(60)) actions.push_back("reclaim");
  if (g.Chance(10)) actions.erase(actions.begin());  // allocate admits every job itself
  std::string list;
  for (const auto& a : actions) list += (list.empty() ? "" : ", ") + a;
  std::vector<std::vector<std::string>> tiers;
  switch (g.Int(0, 3)) {
    case 0:  // Volcano's default shape.
      tiers = {{"priority", "gang", "conformance"},
               {"drf", "predicates", queue_plugin, "nodeorder", "binpack"}};
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
      if (&tier != &tiers.front() && p == queue_plugin && tiers.size() == 2 &&
          tiers[0].size() == 2 && tiers[0][1] == "gang") {
        sw = "    enableReclaimable: false\n";
      }
      if (p == "capacity" && hierarchy) sw += "    enableHierarchy: true\n";
      if (p == "capacity-card") sw += CardArguments(g);
      os << sw;
    }
  }
  return os.str();
}

// Gang-aware eviction and ancestorReclaimLevel, drawn from their own
// generator so the rest of the world is the one the seed always gave: a
// quarter of the worlds use gangpreempt / gangreclaim instead of preempt /
// reclaim (some without whole gangs), and hierarchical capacity gets an
// ancestorReclaimLevel of 0 to 2.
void AddEvictionVariants(uint64_t seed, std::string* conf) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 41);
  auto chance = [&rng](int percent) { return static_cast<int>(rng() % 100) < percent; };
  const size_t line_end = conf->find('\n');
  std::string actions = conf->substr(0, line_end);
  if (chance(25)) {
    for (const char* name : {"preempt", "reclaim"}) {
      const size_t at = actions.find(name);
      if (at != std::string::npos) actions.insert(at, "gang");
    }
    std::string args = "configurations:\n";
    for (const char* name : {"gangpreempt", "gangreclaim"}) {
      args += std::string("- name: ") + name +
              "\n  arguments: {allowWholeBundle: " + (chance(80) ? "true" : "false") +
              ", maxDomains: " + std::to_string(1 + rng() % 8) + "}\n";
    }
    *conf = actions + conf->substr(line_end) + args;
  }
  const std::string hierarchy = "    enableHierarchy: true\n";
  const size_t at = conf->find(hierarchy);
  if (at != std::string::npos) {
    conf->insert(at + hierarchy.size(),
                 "    arguments: {ancestorReclaimLevel: " + std::to_string(rng() % 3) + "}\n");
  }
}

// Topology worlds (a third, drawn from their own generator so the rest of
// the world is the one the seed always gave): leaves of two nodes (tier 1)
// under a root (tier 2), and a network topology constraint (hard or soft,
// highest tier 1 or 2) on half the PodGroups and vcjobs.
void AddTopology(uint64_t seed, const std::vector<std::string>& node_names, World* w) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 23);
  auto chance = [&rng](int percent) { return static_cast<int>(rng() % 100) < percent; };
  if (!chance(33)) return;
  std::vector<std::string> leaves;
  for (size_t i = 0; i < node_names.size(); i += 2) {
    std::ostringstream os;
    const std::string leaf = "leaf" + std::to_string(i / 2);
    leaves.push_back(leaf);
    os << "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: " << leaf
       << "}\nspec:\n  tier: 1\n  members:\n";
    for (size_t n = i; n < std::min(i + 2, node_names.size()); ++n)
      os << "  - {type: Node, selector: {exactMatch: {name: " << node_names[n] << "}}}\n";
    w->docs.push_back(os.str());
  }
  std::ostringstream root;
  root << "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: root}\n"
       << "spec:\n  tier: 2\n  members:\n";
  for (const std::string& leaf : leaves)
    root << "  - {type: HyperNode, selector: {exactMatch: {name: " << leaf << "}}}\n";
  w->docs.push_back(root.str());
  for (std::string& doc : w->docs) {
    const bool group = doc.find("kind: PodGroup\n") != std::string::npos;
    const bool vcjob = doc.find("kind: Job\n") != std::string::npos;
    if ((!group && !vcjob) || !chance(50)) continue;
    const std::string spec = std::string("{mode: ") + (chance(70) ? "hard" : "soft") +
                             ", highestTierAllowed: " + (chance(50) ? "1" : "2") + "}";
    if (group) {
      size_t at = doc.find("spec: {");
      if (at != std::string::npos) doc.insert(at + 7, "networkTopology: " + spec + ", ");
    } else {
      size_t at = doc.find("spec:\n");
      if (at != std::string::npos) doc.insert(at + 6, "  networkTopology: " + spec + "\n");
    }
  }
  // The constraints apply only through the network-topology-aware plugin (as
  // in Volcano v1.15.1): most topology worlds configure it in their last tier,
  // the others show that without it the HyperNodes constrain nothing.
  if (chance(80)) {
    const size_t extra = w->conf.find("configurations:");
    w->conf.insert(extra == std::string::npos ? w->conf.size() : extra,
                   "  - name: network-topology-aware\n");
  }
}

// SubGroup worlds (a third, from their own generator): half the PodGroups get
// a subGroupPolicy taking all their pods as one SubGroup of 1 to 3 pods, and
// half the vcjob tasks a partitionPolicy (partitions of 1 to 3 pods that
// divide the replicas), with a networkTopology when the world has HyperNodes.
void AddSubGroups(uint64_t seed, World* w) {
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ULL + 41);
  auto chance = [&rng](int percent) { return static_cast<int>(rng() % 100) < percent; };
  if (!chance(33)) return;
  bool hypernodes = false;
  for (const std::string& doc : w->docs)
    hypernodes |= doc.find("kind: HyperNode\n") != std::string::npos;
  auto topology = [&]() -> std::string {
    if (!hypernodes || !chance(70)) return "";
    return std::string(", networkTopology: {mode: ") + (chance(70) ? "hard" : "soft") +
           ", highestTierAllowed: " + (chance(60) ? "1" : "2") + "}";
  };
  for (std::string& doc : w->docs) {
    const bool group = doc.find("kind: PodGroup\n") != std::string::npos;
    const bool vcjob = doc.find("kind: Job\n") != std::string::npos;
    if ((!group && !vcjob) || !chance(50)) continue;
    if (group) {
      size_t at = doc.find("spec: {");
      if (at == std::string::npos) continue;
      const std::string policy =
          "subGroupPolicy: [{name: sg, subGroupSize: " + std::to_string(1 + rng() % 3) +
          (chance(30) ? ", minSubGroups: 1" : "") + topology() + "}], ";
      doc.insert(at + 7, policy);
      continue;
    }
    size_t at = doc.find("    replicas: ");
    if (at == std::string::npos) continue;
    size_t end = doc.find('\n', at);
    const int replicas = std::stoi(doc.substr(at + 14, end - at - 14));
    int size = 1 + static_cast<int>(rng() % 3);
    while (size > 1 && (replicas % size != 0)) --size;
    if (replicas < 1) continue;
    const int total = replicas / size;
    const std::string policy = "    partitionPolicy: {totalPartitions: " + std::to_string(total) +
                               ", partitionSize: " + std::to_string(size) +
                               (chance(30) ? ", minPartitions: 1" : "") + topology() + "}\n";
    doc.insert(end + 1, policy);
  }
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
  // The queue plugin: proportion, capacity (flat or hierarchical) or
  // capacity-card, which is used instead of the other two, never with them.
  const int mode = g.Int(1, 100);
  const bool cards = mode > 75;
  const bool capacity = !cards && mode <= 30;
  const bool hierarchy = capacity && g.Chance(35);
  w.conf = Conf(g, cards ? "capacity-card" : capacity ? "capacity" : "proportion", hierarchy);
  AddEvictionVariants(seed, &w.conf);

  const int nodes = g.Int(1, small ? 4 : 6);
  std::vector<std::string> node_names;
  for (int i = 0; i < nodes; ++i) {
    std::ostringstream os;
    std::string name = "n" + std::to_string(i);
    node_names.push_back(name);
    // Card worlds: a GPU product label makes the node's GPUs (and MIG slices)
    // card models (docs/plugins/capacity-card.md, "Card models").
    const std::string product = cards && g.Chance(75) ? g.Pick(kProducts) : "";
    os << "apiVersion: v1\nkind: Node\nmetadata: {name: " << name
       << ", labels: {zone: " << (g.Chance(50) ? "a" : "b");
    if (!product.empty()) os << ", nvidia.com/gpu.product: " << product;
    os << "}}\n";
    if (g.Chance(20)) os << "spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}\n";
    os << "status: {allocatable: {cpu: \"" << g.Int(1, 16) << "\", memory: " << g.Int(1, 32)
       << "Gi, pods: \"" << g.Pick<int>({3, 10, 110}) << "\"";
    if (!product.empty()) {
      os << ", nvidia.com/gpu: \"" << g.Int(0, 8) << "\"";
      if (product == "NVIDIA-H200" && g.Chance(40))
        os << ", nvidia.com/mig-1g.18gb: \"" << g.Int(1, 7) << "\"";
    } else if (g.Chance(30)) {
      os << ", nvidia.com/gpu: \"" << g.Int(0, 8) << "\"";
    }
    os << "}}\n";
    w.docs.push_back(os.str());
  }
  w.docs.push_back(
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: "
      "1000\n");
  w.docs.push_back(
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n");

  const int queues = g.Int(1, small ? 3 : 4);
  std::vector<std::string> queue_names;
  if (hierarchy) {
    w.docs.push_back(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: root}\nspec: "
        "{weight: 1}\n");
  }
  for (int i = 0; i < queues; ++i) {
    std::ostringstream os;
    std::string name = "q" + std::to_string(i);
    queue_names.push_back(name);
    os << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " << name;
    if (cards && g.Chance(80))
      os << ", annotations: {volcano.sh/card.quota: '" << CardQuota(g) << "'}";
    os << "}\nspec:\n  weight: " << g.Int(1, 5) << "\n";
    if (g.Chance(30)) os << "  priority: " << g.Int(0, 3) << "\n";
    if (g.Chance(20)) os << "  reclaimable: false\n";
    // Only queues Volcano's admission accepts: guarantee <= deserved <= capability
    // (a guarantee above the capability lifts deserved past it, by design).
    int cap_cpu = 1 << 20, cap_mem = 1 << 20;
    if (g.Chance(cards ? 75 : 40)) {
      cap_cpu = g.Int(1, 24);
      cap_mem = g.Int(2, 64);
      os << "  capability: {cpu: \"" << cap_cpu << "\", memory: " << cap_mem << "Gi}\n";
    }
    bool has_deserved = false;
    if (capacity && g.Chance(60)) {
      cap_cpu = std::min(cap_cpu, g.Int(1, 12));
      cap_mem = std::min(cap_mem, g.Int(1, 24));
      os << "  deserved: {cpu: \"" << cap_cpu << "\", memory: " << cap_mem << "Gi}\n";
      has_deserved = true;
    }
    if (g.Chance(30)) {
      // Drawn in every world so that the worlds after it stay the same; written
      // only beside a deserved (v1.15.1 refuses a guarantee without one).
      const int g_cpu = std::min(cap_cpu, g.Int(1, 4));
      const int g_mem = std::min(cap_mem, g.Int(1, 4));
      if (has_deserved)
        os << "  guarantee: {resource: {cpu: \"" << g_cpu << "\", memory: " << g_mem << "Gi}}\n";
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
    std::string requests =
        "{cpu: \"" + cpu + "\", memory: " + mem + (gpu ? ", nvidia.com/gpu: \"1\"" : "") + "}";
    if (g.Chance(8)) requests = "{}";  // BestEffort: only backfill places it
    // Card worlds: most jobs name their cards; a service type decides who
    // reclaims from whom (inference from training).
    CardJob card;
    if (cards) card = DrawCardJob(g);
    if (!card.card_request.empty()) {
      requests = requests == "{}"
                     ? "{" + card.card_request + "}"
                     : "{cpu: \"" + cpu + "\", memory: " + mem + ", " + card.card_request + "}";
    }
    if (g.Chance(35)) {
      // A vcjob: the job controller makes the PodGroup and the pods.
      std::ostringstream os;
      os << "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: " << job
         << ", namespace: default";
      // volcano.sh/* annotations of a vcjob travel to its PodGroup.
      if (!card.group_annotations.empty())
        os << ", annotations: {" << card.group_annotations << "}";
      os << "}\nspec:\n  minAvailable: " << min << "\n  queue: " << queue << "\n";
      if (!pc.empty()) os << "  priorityClassName: " << pc << "\n";
      if (g.Chance(60)) {
        os << "  policies:\n  - event: PodEvicted\n    action: "
           << g.Pick<std::string>({"RestartJob", "AbortJob", "RestartTask"}) << "\n";
      }
      os << "  tasks:\n  - name: w\n    replicas: " << tasks << "\n    template:\n";
      if (!card.pod_annotations.empty())
        os << "      metadata: {annotations: {" << card.pod_annotations << "}}\n";
      os << "      spec:\n";
      if (!card.node_selector.empty())
        os << "        nodeSelector: {" << card.node_selector << "}\n";
      os << "        containers: [{name: c, resources: {requests: " << requests << "}}]\n";
      w.docs.push_back(os.str());
      continue;
    }
    std::ostringstream pg;
    pg << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " << job
       << ", namespace: default";
    std::string pg_annotations = card.group_annotations;
    if (g.Chance(30)) {
      pg_annotations += std::string(pg_annotations.empty() ? "" : ", ") +
                        "volcano.sh/preemptable: \"" + (g.Chance(70) ? "true" : "false") + "\"";
    }
    if (!pg_annotations.empty()) pg << ", annotations: {" << pg_annotations << "}";
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
      if (g.Chance(30))
        os << ", volcano.sh/preemptable: \"" << (g.Chance(70) ? "true" : "false") << "\"";
      if (!card.pod_annotations.empty()) os << ", " << card.pod_annotations;
      os << "}\nspec:\n  schedulerName: volcano\n";
      if (!card.node_selector.empty()) os << "  nodeSelector: {" << card.node_selector << "}\n";
      if (!pc.empty()) os << "  priorityClassName: " << pc << "\n";
      if (card.node_selector.empty() && g.Chance(15))
        os << "  nodeSelector: {zone: " << (g.Chance(50) ? "a" : "b") << "}\n";
      if (g.Chance(15))
        os << "  tolerations: [{key: dedicated, operator: Equal, value: x, effect: NoSchedule}]\n";
      const bool running = running_job && g.Chance(70);
      if (running) os << "  nodeName: " << g.Pick(node_names) << "\n";
      os << "  containers: [{name: c, resources: {requests: " << requests << "}}]\n";
      if (running) os << "status: {phase: Running}\n";
      w.docs.push_back(os.str());
    }
  }
  AddTopology(seed, node_names, &w);
  AddSubGroups(seed, &w);
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
    out.binds += static_cast<int>(r->decisions.binds.size());
    out.evictions += static_cast<int>(r->decisions.evictions.size());
    runner.WorldStep();
  }
  return out;
}

bool IsInvariantViolation(const RunOutcome& r) {
  return !r.ok() && r.violation.rfind("configuration:", 0) != 0 &&
         r.violation.rfind("manifests:", 0) != 0 && r.violation.rfind("init:", 0) != 0;
}

namespace {

// The value of the first `name: X` in a document, up to `,`, `}` or the line end.
std::string NameOf(const std::string& doc) {
  const size_t at = doc.find("name: ");
  if (at == std::string::npos) return "";
  const size_t from = at + 6;
  const size_t to = doc.find_first_of(",}\n", from);
  return doc.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// Indices of a PodGroup document and of every document naming it as its group.
std::vector<std::vector<size_t>> JobUnits(const World& w) {
  std::vector<std::vector<size_t>> units;
  for (size_t i = 0; i < w.docs.size(); ++i) {
    if (w.docs[i].find("kind: PodGroup\n") == std::string::npos) continue;
    const std::string tag = "scheduling.k8s.io/group-name: " + NameOf(w.docs[i]);
    std::vector<size_t> unit = {i};
    for (size_t j = 0; j < w.docs.size(); ++j) {
      const size_t at = w.docs[j].find(tag);
      if (j == i || at == std::string::npos) continue;
      const char next = at + tag.size() < w.docs[j].size() ? w.docs[j][at + tag.size()] : '\n';
      if (next == ',' || next == '}' || next == '\n') unit.push_back(j);
    }
    if (unit.size() > 1) units.push_back(std::move(unit));
  }
  return units;
}

World Without(const World& w, std::vector<size_t> drop) {
  World out = w;
  std::sort(drop.rbegin(), drop.rend());
  for (size_t i : drop) out.docs.erase(out.docs.begin() + static_cast<long>(i));
  return out;
}

}  // namespace

World Shrink(const World& failing, const WorldRunner& run) {
  if (!IsInvariantViolation(run(failing))) return failing;  // a load error: nothing to shrink
  World w = failing;
  // Keep a cut only if it still violates an invariant (not a load error).
  auto still_fails = [&run](const World& candidate) {
    return IsInvariantViolation(run(candidate));
  };
  bool progress = true;
  while (progress) {
    progress = false;
    // Whole jobs first: one run removes a gang and all its pods.
    for (bool dropped = true; dropped;) {
      dropped = false;
      for (const std::vector<size_t>& unit : JobUnits(w)) {
        World smaller = Without(w, unit);
        if (still_fails(smaller)) {
          w = std::move(smaller);
          progress = dropped = true;
          break;  // indices moved: recompute the units
        }
      }
    }
    for (size_t i = 0; i < w.docs.size();) {
      World smaller = Without(w, {i});
      if (still_fails(smaller)) {
        w = std::move(smaller);
        progress = true;
      } else {
        ++i;
      }
    }
    while (w.cycles > 1) {
      World fewer = w;
      --fewer.cycles;
      if (!still_fails(fewer)) break;
      w = std::move(fewer);
      progress = true;
    }
  }
  return w;
}

std::string ScenarioYaml(const World& world, const std::string& name,
                         const std::string& violation) {
  auto indent = [](const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += "  " + line + "\n";
    return out;
  };
  std::ostringstream os;
  os << "name: " << name << "\ndescription: >\n  Found by basalt_random_cycles (seed " << world.seed
     << "), shrunk. The invariant check reported: " << violation
     << "\n  Passes once no invariant breaks; then add the expected decisions.\ntags: [regress, "
        "invariants]\nconf: |\n"
     << indent(world.conf) << "cycles: " << world.cycles << "\ncheck_invariants: true\ncluster: |\n"
     << indent(world.Manifests()) << "expect: {}\n";
  return os.str();
}

}  // namespace basalt::testing
