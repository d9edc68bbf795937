#include "cluster_generator.h"

#include <random>

#include "api/quantity.h"

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

}  // namespace

void Generate(const ClusterProfile& cluster, const WorkloadProfile& workload, ClusterState* state) {
  ClusterObjects objs;
  char name[64];
  for (int i = 0; i < cluster.nodes; ++i) {
    Node n;
    std::snprintf(name, sizeof(name), "node-%06d", i);
    n.meta.name = name;
    n.allocatable = Make(cluster.node_cpu, cluster.node_memory, cluster.gpus_per_node, 110);
    n.capacity = n.allocatable;
    objs.nodes.push_back(std::move(n));
  }
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
  const Resource pod_request = Make(workload.pod_cpu, workload.pod_memory, workload.pod_gpus, 1);
  Resource min_resources = pod_request;
  min_resources.Erase(ResourceNames::kPods);
  auto add_gang = [&](int index, int size, bool running, int* next_node) {
    PodGroup pg;
    std::snprintf(name, sizeof(name), "%s-%06d", running ? "run" : "job", index);
    pg.meta.name = name;
    pg.meta.namespace_ = "default";
    pg.meta.creation_timestamp = index;
    pg.min_member = running && workload.running_min_member > 0 ? workload.running_min_member : size;
    const std::string& fixed = running ? workload.running_queue : workload.pending_queue;
    pg.queue = fixed.empty() ? "queue-" + std::to_string(rng() % workload.queues) : fixed;
    if (!running) pg.priority_class_name = workload.pending_priority_class;
    pg.phase = running ? "Running" : "Inqueue";
    Resource total;
    for (int t = 0; t < size; ++t) total += min_resources;
    pg.min_resources = total;
    for (int t = 0; t < size; ++t) {
      Pod pod;
      pod.meta.name = std::string(name) + "-w-" + std::to_string(t);
      pod.meta.namespace_ = "default";
      pod.meta.creation_timestamp = index;
      pod.meta.annotations["scheduling.k8s.io/group-name"] = name;
      pod.meta.annotations["volcano.sh/task-spec"] = "w";
      pod.spec.request = pod_request;
      pod.spec.scheduler_name = "volcano";
      if (!running) pod.spec.priority_class_name = workload.pending_priority_class;
      if (running) {
        std::snprintf(name + 32, 32, "node-%06d", (*next_node)++ % cluster.nodes);
        pod.spec.node_name = name + 32;
        pod.phase = "Running";
      }
      objs.pods.push_back(std::move(pod));
    }
    objs.podgroups.push_back(std::move(pg));
  };
  int next_node = 0;
  for (int g = 0; g * workload.tasks_per_gang < workload.running_pods; ++g) {
    add_gang(g, workload.tasks_per_gang, true, &next_node);
  }
  for (int g = 0; g * workload.tasks_per_gang < workload.pending_pods; ++g) {
    add_gang(g, workload.tasks_per_gang, false, &next_node);
  }
  (void)state->AddAll(std::move(objs));
}

}  // namespace basalt::bench
