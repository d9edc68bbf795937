#include "state/cluster_state.h"

#include <algorithm>
#include <atomic>

#include "state/store_rules.h"

namespace basalt {
namespace {

template <typename T>
Status InsertUnique(std::map<std::string, T>& map, const std::string& kind, T obj) {
  std::string key = obj.meta.Key();
  auto [it, inserted] = map.try_emplace(key, std::move(obj));
  if (!inserted) {
    return Status::AlreadyExists(it->second.meta.source + ": " + kind + " " + key +
                                 ": metadata.name: duplicate (also defined at " + obj.meta.source +
                                 ")");
  }
  return Status::Ok();
}

std::string OwnerKey(const std::string& ns, const std::string& kind, const std::string& name) {
  return ns + "/" + kind + "/" + name;
}

}  // namespace

namespace {

// The second object of a name, in the words `basalt validate` has always used
// (api/object_rules.h): where the repeat is, then where the first one is.
Status Duplicate(const std::string& source, const std::string& kind, const std::string& key,
                 const std::string& first_source) {
  return Status::AlreadyExists(source + ": " + kind + " " + key + ": metadata.name: duplicate " +
                               kind + " \"" + key + "\": already defined at " + first_source);
}

// Every name of `kind` once.
template <typename T>
Status CheckUnique(const std::vector<T>& objects, const std::string& kind) {
  std::map<std::string, const std::string*> first;
  for (const T& o : objects) {
    auto [it, fresh] = first.try_emplace(o.meta.Key(), &o.meta.source);
    if (!fresh) return Duplicate(o.meta.source, kind, it->first, *it->second);
  }
  return Status::Ok();
}

Status CheckUniqueOwners(const std::vector<OwnerObject>& owners) {
  std::map<std::string, const std::string*> first;
  for (const OwnerObject& o : owners) {
    auto [it, fresh] =
        first.try_emplace(OwnerKey(o.meta.namespace_, o.kind, o.meta.name), &o.meta.source);
    if (!fresh) return Duplicate(o.meta.source, o.kind, o.meta.Key(), *it->second);
  }
  return Status::Ok();
}

}  // namespace

Status CheckStoreRules(const ClusterObjects& objects) {
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.nodes, "Node"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.pods, "Pod"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.queues, "Queue"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.podgroups, "PodGroup"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.jobs, "Job"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.priority_classes, "PriorityClass"));
  BASALT_RETURN_IF_ERROR(CheckUniqueOwners(objects.owners));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.commands, "Command"));
  BASALT_RETURN_IF_ERROR(CheckJobFlowTemplates(objects.job_flows, objects.job_templates));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.job_templates, "JobTemplate"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.job_flows, "JobFlow"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.cron_jobs, "CronJob"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.numatopologies, "Numatopology"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.hypernodes, "HyperNode"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.disruption_budgets, "PodDisruptionBudget"));
  BASALT_RETURN_IF_ERROR(CheckUnique(objects.resource_quotas, "ResourceQuota"));
  std::map<std::string, HyperNode> tree;
  for (const HyperNode& h : objects.hypernodes) tree.emplace(h.meta.Key(), h);
  return ValidateHyperNodeTree(tree);
}

Status ClusterState::AddAll(ClusterObjects objects) {
  for (auto& n : objects.nodes) BASALT_RETURN_IF_ERROR(InsertUnique(nodes_, "Node", std::move(n)));
  for (auto& p : objects.pods) BASALT_RETURN_IF_ERROR(InsertUnique(pods_, "Pod", std::move(p)));
  for (auto& q : objects.queues)
    BASALT_RETURN_IF_ERROR(InsertUnique(queues_, "Queue", std::move(q)));
  for (auto& pg : objects.podgroups)
    BASALT_RETURN_IF_ERROR(InsertUnique(podgroups_, "PodGroup", std::move(pg)));
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
  for (auto& c : objects.commands)
    BASALT_RETURN_IF_ERROR(InsertUnique(commands_, "Command", std::move(c)));
  BASALT_RETURN_IF_ERROR(CheckJobFlowTemplates(objects.job_flows, objects.job_templates));
  for (auto& t : objects.job_templates)
    BASALT_RETURN_IF_ERROR(InsertUnique(job_templates_, "JobTemplate", std::move(t)));
  for (auto& f : objects.job_flows)
    BASALT_RETURN_IF_ERROR(InsertUnique(job_flows_, "JobFlow", std::move(f)));
  for (auto& c : objects.cron_jobs)
    BASALT_RETURN_IF_ERROR(InsertUnique(cron_jobs_, "CronJob", std::move(c)));
  for (auto& t : objects.numatopologies) {
    BASALT_RETURN_IF_ERROR(InsertUnique(numatopologies_, "Numatopology", std::move(t)));
  }
  for (auto& h : objects.hypernodes)
    BASALT_RETURN_IF_ERROR(InsertUnique(hypernodes_, "HyperNode", std::move(h)));
  for (auto& b : objects.disruption_budgets) {
    BASALT_RETURN_IF_ERROR(InsertUnique(disruption_budgets_, "PodDisruptionBudget", std::move(b)));
  }
  for (auto& q : objects.resource_quotas)
    BASALT_RETURN_IF_ERROR(InsertUnique(resource_quotas_, "ResourceQuota", std::move(q)));
  BASALT_RETURN_IF_ERROR(ValidateHyperNodeTree(hypernodes_));
  for (auto& ns : objects.namespaces) namespaces_[ns.name] = std::move(ns);
  if (!queues_.count("default")) {
    Queue q;
    q.meta.name = "default";
    q.meta.uid = "default";
    q.meta.source = "(built-in)";
    queues_.emplace("default", std::move(q));
  }
  ++generation_;
  ++structure_version_;
  return Status::Ok();
}

uint64_t ClusterState::NextInstanceId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

void ClusterState::Journal(Change::Kind kind, const std::string& key) {
  Change entry{kind, key};  // copied first: `key` may live in the journal itself
  if (observer_) observer_(*this, entry);
  // Bounded: past this many entries a reader gains nothing over a full rebuild.
  const size_t cap = std::max<size_t>(4096, pods_.size() / 2);
  if (journal_.size() >= cap) {
    journal_begin_ += journal_.size();
    journal_.clear();
  }
  journal_.push_back(std::move(entry));
}

void ClusterState::UpsertPod(Pod pod) {
  std::string k = pod.meta.Key();
  Journal(Change::Kind::kPod, k);
  pods_[k] = std::move(pod);
  ++generation_;
}
void ClusterState::UpsertNode(Node node) {
  std::string k = node.meta.Key();
  nodes_[k] = std::move(node);
  ++generation_;
  ++structure_version_;
}
// Queues are few: a snapshot re-reads them all, so they need no journal.
void ClusterState::UpsertQueue(Queue q) {
  std::string k = q.meta.Key();
  queues_[k] = std::move(q);
  ++generation_;
}
void ClusterState::UpsertPodGroup(PodGroup pg) {
  std::string k = pg.meta.Key();
  Journal(Change::Kind::kPodGroup, k);
  podgroups_[k] = std::move(pg);
  ++generation_;
}
void ClusterState::UpsertJob(VcJob job) {
  std::string k = job.meta.Key();
  Journal(Change::Kind::kJob, k);
  jobs_[k] = std::move(job);
  ++generation_;
}
void ClusterState::UpsertPriorityClass(PriorityClass pc) {
  std::string k = pc.meta.Key();
  priority_classes_[k] = std::move(pc);
  ++generation_;
  ++structure_version_;
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
void ClusterState::UpsertJobTemplate(VcJob tmpl) {
  std::string k = tmpl.meta.Key();
  job_templates_[k] = std::move(tmpl);
  ++generation_;
}
void ClusterState::UpsertJobFlow(JobFlow flow) {
  std::string k = flow.meta.Key();
  job_flows_[k] = std::move(flow);
  ++generation_;
}
void ClusterState::UpsertCronJob(CronJob cron_job) {
  std::string k = cron_job.meta.Key();
  cron_jobs_[k] = std::move(cron_job);
  ++generation_;
}
void ClusterState::UpsertNumatopology(Numatopology t) {
  std::string k = t.meta.Key();
  numatopologies_[k] = std::move(t);
  ++generation_;
}
Status ClusterState::UpsertHyperNode(HyperNode h) {
  std::string k = h.meta.name;
  std::optional<HyperNode> previous;
  if (auto it = hypernodes_.find(k); it != hypernodes_.end()) previous = std::move(it->second);
  hypernodes_[k] = std::move(h);
  Status st = ValidateHyperNodeTree(hypernodes_);
  if (!st.ok()) {
    if (previous) {
      hypernodes_[k] = std::move(*previous);
    } else {
      hypernodes_.erase(k);
    }
    return st;
  }
  ++generation_;
  return Status::Ok();
}
bool ClusterState::DeleteHyperNode(const std::string& name) {
  ++generation_;
  return hypernodes_.erase(name) > 0;
}
void ClusterState::UpsertDisruptionBudget(PodDisruptionBudget pdb) {
  std::string k = pdb.meta.Key();
  disruption_budgets_[k] = std::move(pdb);
  ++generation_;
}
bool ClusterState::DeleteDisruptionBudget(const std::string& key) {
  ++generation_;
  return disruption_budgets_.erase(key) > 0;
}
void ClusterState::UpsertResourceQuota(ResourceQuota quota) {
  std::string k = quota.meta.Key();
  resource_quotas_[k] = std::move(quota);
  ++generation_;
}
bool ClusterState::DeleteResourceQuota(const std::string& key) {
  ++generation_;
  return resource_quotas_.erase(key) > 0;
}

bool ClusterState::DeletePod(const std::string& key) {
  ++generation_;
  auto it = pods_.find(key);
  if (it == pods_.end()) return false;
  Journal(Change::Kind::kPod, key);  // before the erase: `key` may be the erased entry's own key
  pods_.erase(it);
  return true;
}
bool ClusterState::DeletePodGroup(const std::string& key) {
  ++generation_;
  auto it = podgroups_.find(key);
  if (it == podgroups_.end()) return false;
  Journal(Change::Kind::kPodGroup,
          key);  // before the erase: `key` may be the erased entry's own key
  podgroups_.erase(it);
  return true;
}
bool ClusterState::DeleteNode(const std::string& name) {
  ++generation_;
  if (nodes_.erase(name) == 0) return false;
  ++structure_version_;
  return true;
}
bool ClusterState::DeleteJob(const std::string& key) {
  ++generation_;
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return false;
  Journal(Change::Kind::kJob, key);  // before the erase: `key` may be the erased entry's own key
  jobs_.erase(it);
  return true;
}
bool ClusterState::DeleteCommand(const std::string& key) {
  ++generation_;
  return commands_.erase(key) > 0;
}
bool ClusterState::DeleteJobTemplate(const std::string& key) {
  ++generation_;
  return job_templates_.erase(key) > 0;
}
bool ClusterState::DeleteJobFlow(const std::string& key) {
  ++generation_;
  return job_flows_.erase(key) > 0;
}
bool ClusterState::DeleteCronJob(const std::string& key) {
  ++generation_;
  return cron_jobs_.erase(key) > 0;
}

const Pod* ClusterState::FindPod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}
const PodGroup* ClusterState::FindPodGroup(const std::string& key) const {
  auto it = podgroups_.find(key);
  return it == podgroups_.end() ? nullptr : &it->second;
}
const Queue* ClusterState::FindQueue(const std::string& name) const {
  auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second;
}
Pod* ClusterState::EditPod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return nullptr;
  Journal(Change::Kind::kPod, key);
  return &it->second;
}
PodGroup* ClusterState::EditPodGroup(const std::string& key) {
  auto it = podgroups_.find(key);
  if (it == podgroups_.end()) return nullptr;
  Journal(Change::Kind::kPodGroup, key);
  return &it->second;
}
Queue* ClusterState::EditQueue(const std::string& name) {
  auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second;
}
const VcJob* ClusterState::FindJob(const std::string& key) const {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}
VcJob* ClusterState::EditJob(const std::string& key) {
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return nullptr;
  Journal(Change::Kind::kJob, key);
  return &it->second;
}
const OwnerObject* ClusterState::FindOwner(const std::string& ns, const std::string& kind,
                                           const std::string& name) const {
  auto it = owners_.find(OwnerKey(ns, kind, name));
  return it == owners_.end() ? nullptr : &it->second;
}

}  // namespace basalt
