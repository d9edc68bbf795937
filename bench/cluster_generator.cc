#include "cluster_generator.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "api/quantity.h"
#include "api/well_known.h"

namespace basalt::bench {
namespace {

Resource Make(const std::string& cpu, const std::string& memory, int gpus, int64_t pods) {
  Resource r;
  r.set_milli_cpu(*ParseQuantityMilli(cpu));
  r.set_memory(*ParseQuantityUnits(memory));
  if (gpus > 0) r.Set(ResourceNames::Intern("nvidia.com/gpu"), gpus * 1000LL);
  r.Set(ResourceNames::kPods, pods);
  return r;
}

// Adds one gang (PodGroup and its pods) to `objs`. Running gangs go round-robin
// onto the nodes, from `*next_node` on.
void AddGang(const ClusterProfile& cluster, const WorkloadProfile& w, const std::string& name,
             int64_t creation, bool running, const std::string& queue, int* next_node,
             ClusterObjects* objs) {
  const PodShape& shape = running ? w.running_pod : w.pod;
  const Resource request = Make(shape.cpu, shape.memory, shape.gpus, 1);
  Resource per_pod = request;
  per_pod.Erase(ResourceNames::kPods);
  PodGroup pg;
  pg.meta.name = name;
  pg.meta.namespace_ = "default";
  pg.meta.creation_timestamp = creation;
  pg.min_member = running && w.running_min_member > 0 ? w.running_min_member : w.tasks_per_gang;
  pg.queue = queue;
  if (!running) pg.priority_class_name = w.pending_priority_class;
  if (!running && w.pending_highest_tier > 0) {
    NetworkTopologySpec topology;
    topology.highest_tier_allowed = creation % 2 == 0 ? 1 : w.pending_highest_tier;
    pg.network_topology = topology;
  }
  pg.phase = running ? PodGroupPhase::kRunning : PodGroupPhase::kInqueue;
  Resource total;
  for (int t = 0; t < w.tasks_per_gang; ++t) total += per_pod;
  pg.min_resources = total;
  char node[32];
  for (int t = 0; t < w.tasks_per_gang; ++t) {
    Pod pod;
    pod.meta.name = name + "-w-" + std::to_string(t);
    pod.meta.namespace_ = "default";
    pod.meta.creation_timestamp = creation;
    pod.meta.annotations[kGroupNameAnnotation] = name;
    pod.meta.annotations["volcano.sh/task-spec"] = "w";
    pod.spec.request = request;
    pod.spec.scheduler_name = "volcano";
    if (!running) pod.spec.priority_class_name = w.pending_priority_class;
    if (running) {
      std::snprintf(node, sizeof(node), "node-%06d", (*next_node)++ % cluster.nodes);
      pod.spec.node_name = node;
      pod.phase = "Running";
    }
    objs->pods.push_back(std::move(pod));
  }
  objs->podgroups.push_back(std::move(pg));
}

std::string GangName(const char* prefix, int index) {
  char name[32];
  std::snprintf(name, sizeof(name), "%s-%06d", prefix, index);
  return name;
}

HyperNodeMember Member(HyperNodeMember::Type type, const std::string& name) {
  HyperNodeMember m;
  m.type = type;
  m.exact_name = name;
  return m;
}

// Leaves of `nodes_per_leaf` nodes, spines of `leaves_per_spine` leaves, a root.
void AddTree(const ClusterProfile& cluster, ClusterObjects* objs) {
  char name[32];
  HyperNode root;
  root.meta.name = "root";
  root.tier = 3;
  HyperNode spine;
  const int leaves = (cluster.nodes + cluster.nodes_per_leaf - 1) / cluster.nodes_per_leaf;
  for (int l = 0; l < leaves; ++l) {
    HyperNode leaf;
    std::snprintf(name, sizeof(name), "leaf-%05d", l);
    leaf.meta.name = name;
    leaf.tier = 1;
    for (int n = l * cluster.nodes_per_leaf;
         n < std::min(cluster.nodes, (l + 1) * cluster.nodes_per_leaf); ++n) {
      std::snprintf(name, sizeof(name), "node-%06d", n);
      leaf.members.push_back(Member(HyperNodeMember::Type::kNode, name));
    }
    if (l % cluster.leaves_per_spine == 0) {
      spine = HyperNode();
      std::snprintf(name, sizeof(name), "spine-%04d", l / cluster.leaves_per_spine);
      spine.meta.name = name;
      spine.tier = 2;
    }
    spine.members.push_back(Member(HyperNodeMember::Type::kHyperNode, leaf.meta.name));
    if ((l + 1) % cluster.leaves_per_spine == 0 || l + 1 == leaves) {
      root.members.push_back(Member(HyperNodeMember::Type::kHyperNode, spine.meta.name));
      objs->hypernodes.push_back(std::move(spine));
    }
    objs->hypernodes.push_back(std::move(leaf));
  }
  objs->hypernodes.push_back(std::move(root));
}

}  // namespace

void Generate(const ClusterProfile& cluster, const WorkloadProfile& workload, ClusterState* state) {
  ClusterObjects objs;
  char name[32];
  for (int i = 0; i < cluster.nodes; ++i) {
    Node n;
    std::snprintf(name, sizeof(name), "node-%06d", i);
    n.meta.name = name;
    n.allocatable =
        Make(cluster.node_cpu, cluster.node_memory, cluster.gpus_per_node, cluster.pods_per_node);
    n.capacity = n.allocatable;
    objs.nodes.push_back(std::move(n));
  }
  if (cluster.nodes_per_leaf > 0) AddTree(cluster, &objs);
  for (int q = 0; q < workload.queues; ++q) {
    Queue queue;
    queue.meta.name = "queue-" + std::to_string(q);
    queue.weight = 1;
    objs.queues.push_back(std::move(queue));
  }
  if (!workload.pending_priority_class.empty()) {
    PriorityClass pc;
    pc.meta.name = workload.pending_priority_class;
    pc.value = 1000;
    objs.priority_classes.push_back(std::move(pc));
  }
  std::mt19937_64 rng(workload.seed);
  auto queue_of = [&](const std::string& fixed) {
    return fixed.empty() ? "queue-" + std::to_string(rng() % workload.queues) : fixed;
  };
  int next_node = 0;
  for (int g = 0; g * workload.tasks_per_gang < workload.running_pods; ++g) {
    AddGang(cluster, workload, GangName("run", g), g, true, queue_of(workload.running_queue),
            &next_node, &objs);
  }
  for (int g = 0; g * workload.tasks_per_gang < workload.pending_pods; ++g) {
    AddGang(cluster, workload, GangName("job", g), g, false, queue_of(workload.pending_queue),
            &next_node, &objs);
  }
  (void)state->AddAll(std::move(objs));
}

void Churn(const WorkloadProfile& workload, int gangs, int64_t now, std::mt19937_64& rng,
           int* serial, ClusterState* state) {
  std::vector<std::string> running;
  for (const auto& [key, pg] : state->podgroups()) {
    if (pg.phase == PodGroupPhase::kRunning) running.push_back(key);
  }
  for (int i = 0; i < gangs && !running.empty(); ++i) {
    size_t pick = rng() % running.size();
    const std::string key = running[pick];
    running[pick] = running.back();
    running.pop_back();
    for (int t = 0; t < workload.tasks_per_gang; ++t)
      state->DeletePod(key + "-w-" + std::to_string(t));
    state->DeletePodGroup(key);
  }
  ClusterObjects objs;
  int unused_node = 0;
  ClusterProfile no_nodes;
  for (int i = 0; i < gangs; ++i) {
    std::string queue = workload.pending_queue.empty()
                            ? "queue-" + std::to_string(rng() % workload.queues)
                            : workload.pending_queue;
    AddGang(no_nodes, workload, GangName("new", (*serial)++), now, false, queue, &unused_node,
            &objs);
  }
  for (Pod& p : objs.pods) state->UpsertPod(std::move(p));
  for (PodGroup& pg : objs.podgroups) state->UpsertPodGroup(std::move(pg));
}

}  // namespace basalt::bench
