// ClusterState: the store the front ends feed (schedule: manifests; simulate:
// the simulator; serve: watches). Objects are kept in ordered maps keyed by
// "namespace/name" (or name) so every iteration is deterministic.
//
// A session never reads the store directly: it derives a snapshot (built in
// framework/snapshot.cc, kept between cycles by framework/snapshot_cache.h),
// which borrows the store's objects by const pointer for the length of one
// cycle instead of deep-copying them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/decode.h"
#include "api/objects.h"
#include "api/status.h"

namespace basalt {

class ClusterState {
 public:
  ClusterState() = default;
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;
  ClusterState(ClusterState&&) = default;
  ClusterState& operator=(ClusterState&&) = default;

  // Adds every object; a second object with the same kind and key is an error
  // naming both sources. The `default` queue is created when absent.
  Status AddAll(ClusterObjects objects);

  // Upserts (replace when present).
  void UpsertPod(Pod pod);
  void UpsertNode(Node node);
  void UpsertQueue(Queue queue);
  void UpsertPodGroup(PodGroup pg);
  void UpsertJob(VcJob job);
  void UpsertPriorityClass(PriorityClass pc);
  void UpsertOwner(OwnerObject owner);
  void UpsertCommand(Command command);
  void UpsertNumatopology(Numatopology topo);
  // A HyperNode that would break the tree (api/hypernode.h,
  // ValidateHyperNodeTree) is refused with the reason; the store is unchanged.
  Status UpsertHyperNode(HyperNode hypernode);
  bool DeleteHyperNode(const std::string& name);
  // PodDisruptionBudgets and ResourceQuotas, by "ns/name": read by the pdb and
  // resourcequota plugins at session open, never part of the snapshot, so
  // they bump `generation` only.
  void UpsertDisruptionBudget(PodDisruptionBudget pdb);
  bool DeleteDisruptionBudget(const std::string& key);
  void UpsertResourceQuota(ResourceQuota quota);
  bool DeleteResourceQuota(const std::string& key);
  // flow.volcano.sh objects (`basalt serve`'s informers). No session reads
  // them, so, like Commands, they bump `generation` only.
  void UpsertJobTemplate(VcJob tmpl);
  void UpsertJobFlow(JobFlow flow);
  void UpsertCronJob(CronJob cron_job);
  // Deletes; returns false when absent.
  bool DeletePod(const std::string& key);
  bool DeletePodGroup(const std::string& key);
  bool DeleteNode(const std::string& name);
  bool DeleteJob(const std::string& key);
  bool DeleteCommand(const std::string& key);
  bool DeleteJobTemplate(const std::string& key);
  bool DeleteJobFlow(const std::string& key);
  bool DeleteCronJob(const std::string& key);

  const Pod* FindPod(const std::string& key) const;
  const PodGroup* FindPodGroup(const std::string& key) const;
  const Queue* FindQueue(const std::string& name) const;
  // Mutable access for an edit made right after the call: the object's key is
  // recorded in the change journal (below), so edit through these, not through
  // a pointer kept from an earlier lookup.
  Pod* EditPod(const std::string& key);
  PodGroup* EditPodGroup(const std::string& key);
  Queue* EditQueue(const std::string& name);
  const VcJob* FindJob(const std::string& key) const;
  VcJob* EditJob(const std::string& key);  // journaled, like EditPod
  const OwnerObject* FindOwner(const std::string& ns, const std::string& kind,
                               const std::string& name) const;

  const std::map<std::string, Pod>& pods() const { return pods_; }
  const std::map<std::string, Node>& nodes() const { return nodes_; }
  const std::map<std::string, Queue>& queues() const { return queues_; }
  const std::map<std::string, PodGroup>& podgroups() const { return podgroups_; }
  const std::map<std::string, VcJob>& jobs() const { return jobs_; }
  // Workloads pods name as owners (Deployment, ReplicaSet, ...) by "ns/Kind/name".
  const std::map<std::string, OwnerObject>& owners() const { return owners_; }
  const std::map<std::string, PriorityClass>& priority_classes() const { return priority_classes_; }
  const std::map<std::string, ObjectMeta>& namespaces() const { return namespaces_; }
  // bus.volcano.sh Commands not yet consumed by a controller, by "ns/name".
  const std::map<std::string, Command>& commands() const { return commands_; }
  // Numatopology objects by name (the node's name).
  const std::map<std::string, Numatopology>& numatopologies() const { return numatopologies_; }
  // HyperNodes by name (network topology; framework/hypernode_tree.h).
  const std::map<std::string, HyperNode>& hypernodes() const { return hypernodes_; }
  const std::map<std::string, PodDisruptionBudget>& disruption_budgets() const {
    return disruption_budgets_;
  }
  const std::map<std::string, ResourceQuota>& resource_quotas() const { return resource_quotas_; }
  // Whole-map mutable access: records "anything may have changed" (the next
  // snapshot is rebuilt in full). Prefer EditPod/EditPodGroup.
  std::map<std::string, Pod>& mutable_pods() {
    ++structure_version_;
    return pods_;
  }
  std::map<std::string, PodGroup>& mutable_podgroups() {
    ++structure_version_;
    return podgroups_;
  }
  // Whole-map access to vcjobs (the job controller's loop; erasing): bumps
  // `job_map_version` so a reader of the journal knows it cannot tell what
  // changed.
  std::map<std::string, VcJob>& mutable_jobs() {
    ++job_map_version_;
    return jobs_;
  }
  uint64_t job_map_version() const { return job_map_version_; }
  // flow.volcano.sh JobTemplates (as vcjob specs) and JobFlows, by "ns/name";
  // the JobFlow controller writes the flows' status.
  const std::map<std::string, VcJob>& job_templates() const { return job_templates_; }
  std::map<std::string, JobFlow>& mutable_job_flows() { return job_flows_; }
  const std::map<std::string, JobFlow>& job_flows() const { return job_flows_; }
  // batch.volcano.sh CronJobs by "ns/name"; the CronJob controller writes their status.
  std::map<std::string, CronJob>& mutable_cron_jobs() { return cron_jobs_; }
  const std::map<std::string, CronJob>& cron_jobs() const { return cron_jobs_; }
  std::map<std::string, Queue>& mutable_queues() { return queues_; }

  // Monotonic counter bumped by every Upsert, Delete and AddAll (lets the
  // simulator notice change; edits through Edit* pointers do not bump it).
  uint64_t generation() const { return generation_; }

  // ---- change journal (for framework/snapshot_cache.h) ----
  // Every upsert, delete or Edit* of a pod or PodGroup appends its key; changes
  // a snapshot cannot patch cheaply (nodes, priority classes, whole-map access,
  // AddAll) bump `structure_version` instead. A reader remembers
  // `journal_end()` and later reads the entries from there; entries before
  // `journal_begin()` were dropped (the journal is bounded), and a reader that
  // finds its position dropped rebuilds from scratch.
  struct Change {
    enum class Kind : uint8_t { kPod, kPodGroup, kJob };
    Kind kind;
    std::string key;
  };
  uint64_t journal_begin() const { return journal_begin_; }
  uint64_t journal_end() const { return journal_begin_ + journal_.size(); }
  const Change& journal_entry(uint64_t seq) const { return journal_[seq - journal_begin_]; }
  uint64_t structure_version() const { return structure_version_; }
  // Distinguishes stores (a cache filled from one store is not reused on another).
  uint64_t instance_id() const { return instance_id_; }

  // Sees every journaled change as it is made, *before* the object changes
  // (so the observer can still read the old value), and unbounded, unlike the
  // journal. `basalt serve` sets one while its controllers run, to learn
  // exactly which pods and PodGroups they created, changed or deleted and
  // write those to the API server. Null (the default): nothing is called.
  using ChangeObserver = std::function<void(const ClusterState&, const Change&)>;
  void set_change_observer(ChangeObserver observer) { observer_ = std::move(observer); }

 private:
  std::map<std::string, Pod> pods_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, Queue> queues_;
  std::map<std::string, PodGroup> podgroups_;
  std::map<std::string, VcJob> jobs_;
  std::map<std::string, PriorityClass> priority_classes_;
  std::map<std::string, OwnerObject> owners_;  // "ns/Kind/name"
  std::map<std::string, ObjectMeta> namespaces_;
  std::map<std::string, Command> commands_;
  std::map<std::string, VcJob> job_templates_;
  std::map<std::string, JobFlow> job_flows_;
  std::map<std::string, CronJob> cron_jobs_;
  std::map<std::string, Numatopology> numatopologies_;
  std::map<std::string, HyperNode> hypernodes_;
  std::map<std::string, PodDisruptionBudget> disruption_budgets_;
  std::map<std::string, ResourceQuota> resource_quotas_;
  void Journal(Change::Kind kind, const std::string& key);

  uint64_t generation_ = 0;
  std::vector<Change> journal_;
  uint64_t journal_begin_ = 0;
  uint64_t structure_version_ = 0;
  uint64_t job_map_version_ = 0;
  uint64_t instance_id_ = NextInstanceId();
  static uint64_t NextInstanceId();
  ChangeObserver observer_;
};

}  // namespace basalt
