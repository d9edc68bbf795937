#include "state/cluster_state.h"

namespace basalt {
namespace {

template <typename T>
Status InsertUnique(std::map<std::string, T>& map, const std::string& kind, T obj) {
  std::string key = obj.meta.Key();
  auto [it, inserted] = map.try_emplace(key, std::move(obj));
  if (!inserted) {
    return Status::AlreadyExists(it->second.meta.source + ": " + kind + " " + key +
                                 ": metadata.name: duplicate (also defined at " + obj.meta.source + ")");
  }
  return Status::Ok();
}

std::string OwnerKey(const std::string& ns, const std::string& kind, const std::string& name) {
  return ns + "/" + kind + "/" + name;
}

}  // namespace

Status ClusterState::AddAll(ClusterObjects objects) {
  for (auto& n : objects.nodes) BASALT_RETURN_IF_ERROR(InsertUnique(nodes_, "Node", std::move(n)));
  for (auto& p : objects.pods) BASALT_RETURN_IF_ERROR(InsertUnique(pods_, "Pod", std::move(p)));
  for (auto& q : objects.queues) BASALT_RETURN_IF_ERROR(InsertUnique(queues_, "Queue", std::move(q)));
  for (auto& pg : objects.podgroups) BASALT_RETURN_IF_ERROR(InsertUnique(podgroups_, "PodGroup", std::move(pg)));
  for (auto& j : objects.jobs) BASALT_RETURN_IF_ERROR(InsertUnique(jobs_, "Job", std::move(j)));
  for (auto& pc : objects.priority_classes) {
    BASALT_RETURN_IF_ERROR(InsertUnique(priority_classes_, "PriorityClass", std::move(pc)));
  }
  for (auto& o : objects.owners) {
    std::string key = OwnerKey(o.meta.namespace_, o.kind, o.meta.name);
    auto [it, inserted] = owners_.try_emplace(key, std::move(o));
    if (!inserted) {
      return Status::AlreadyExists(it->second.meta.source + ": " + it->second.kind + " " +
                                   it->second.meta.Key() + ": metadata.name: duplicate");
    }
  }
  for (auto& c : objects.commands) BASALT_RETURN_IF_ERROR(InsertUnique(commands_, "Command", std::move(c)));
  BASALT_RETURN_IF_ERROR(CheckJobFlowTemplates(objects.job_flows, objects.job_templates));
  for (auto& t : objects.job_templates) BASALT_RETURN_IF_ERROR(InsertUnique(job_templates_, "JobTemplate", std::move(t)));
  for (auto& f : objects.job_flows) BASALT_RETURN_IF_ERROR(InsertUnique(job_flows_, "JobFlow", std::move(f)));
  for (auto& t : objects.numatopologies) {
    BASALT_RETURN_IF_ERROR(InsertUnique(numatopologies_, "Numatopology", std::move(t)));
  }
  for (auto& ns : objects.namespaces) namespaces_[ns.name] = std::move(ns);
  if (!queues_.count("default")) {
    Queue q;
    q.meta.name = "default";
    q.meta.uid = "default";
    q.meta.source = "(built-in)";
    queues_.emplace("default", std::move(q));
  }
  ++generation_;
  return Status::Ok();
}

void ClusterState::UpsertPod(Pod pod) { std::string k = pod.meta.Key(); pods_[k] = std::move(pod); ++generation_; }
void ClusterState::UpsertNode(Node node) { std::string k = node.meta.Key(); nodes_[k] = std::move(node); ++generation_; }
void ClusterState::UpsertQueue(Queue q) { std::string k = q.meta.Key(); queues_[k] = std::move(q); ++generation_; }
void ClusterState::UpsertPodGroup(PodGroup pg) {
  std::string k = pg.meta.Key();
  podgroups_[k] = std::move(pg);
  ++generation_;
}
void ClusterState::UpsertJob(VcJob job) { std::string k = job.meta.Key(); jobs_[k] = std::move(job); ++generation_; }
void ClusterState::UpsertPriorityClass(PriorityClass pc) {
  std::string k = pc.meta.Key();
  priority_classes_[k] = std::move(pc);
  ++generation_;
}
void ClusterState::UpsertOwner(OwnerObject o) {
  std::string k = OwnerKey(o.meta.namespace_, o.kind, o.meta.name);
  owners_[k] = std::move(o);
  ++generation_;
}
void ClusterState::UpsertCommand(Command c) {
  std::string k = c.meta.Key();
  commands_[k] = std::move(c);
  ++generation_;
}
void ClusterState::UpsertNumatopology(Numatopology t) {
  std::string k = t.meta.Key();
  numatopologies_[k] = std::move(t);
  ++generation_;
}

bool ClusterState::DeletePod(const std::string& key) { ++generation_; return pods_.erase(key) > 0; }
bool ClusterState::DeletePodGroup(const std::string& key) { ++generation_; return podgroups_.erase(key) > 0; }
bool ClusterState::DeleteNode(const std::string& name) { ++generation_; return nodes_.erase(name) > 0; }
bool ClusterState::DeleteJob(const std::string& key) { ++generation_; return jobs_.erase(key) > 0; }
bool ClusterState::DeleteCommand(const std::string& key) { ++generation_; return commands_.erase(key) > 0; }

Pod* ClusterState::FindPod(const std::string& key) {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}
PodGroup* ClusterState::FindPodGroup(const std::string& key) {
  auto it = podgroups_.find(key);
  return it == podgroups_.end() ? nullptr : &it->second;
}
Queue* ClusterState::FindQueue(const std::string& name) {
  auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second;
}
VcJob* ClusterState::FindJob(const std::string& key) {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}
const OwnerObject* ClusterState::FindOwner(const std::string& ns, const std::string& kind,
                                           const std::string& name) const {
  auto it = owners_.find(OwnerKey(ns, kind, name));
  return it == owners_.end() ? nullptr : &it->second;
}

}  // namespace basalt
