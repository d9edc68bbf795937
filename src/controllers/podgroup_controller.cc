#include "controllers/podgroup_controller.h"

#include <algorithm>
#include <vector>

#include "api/well_known.h"

namespace basalt {
namespace {

Resource WithoutPods(Resource r) {
  r.Erase(ResourceNames::kPods);
  return r;
}

void CopyVolcanoAnnotations(const ObjectMeta& from, std::map<std::string, std::string>& to) {
  for (const auto& [k, v] : from.annotations) {
    if (k.rfind("volcano.sh/", 0) == 0) to.emplace(k, v);
  }
}

const OwnerReference* ControllerRef(const ObjectMeta& meta) {
  for (const auto& ref : meta.owner_references) {
    if (ref.controller) return &ref;
  }
  return meta.owner_references.empty() ? nullptr : &meta.owner_references.front();
}

}  // namespace

void PodGroupController::Sync(ClusterState& state) {
  if (journal_.Intact(state)) {
    // Pods changed since the last Sync, in key order as a full pass visits them.
    std::vector<std::string> keys;
    journal_.ForEachSince(state, [&keys](const ClusterState::Change& change) {
      if (change.kind == ClusterState::Change::Kind::kPod) keys.push_back(change.key);
    });
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const std::string& key : keys) {
      if (const Pod* pod = state.FindPod(key)) SyncPod(state, key, *pod);
    }
  } else {
    for (const auto& [key, pod] : state.pods()) SyncPod(state, key, pod);
  }
  DropGroupsOfIdleWorkloads(state);
  journal_.MoveToEnd(state);
}

// Volcano's podgroup controller deletes the group of a ReplicaSet or
// StatefulSet whose spec.replicas is 0 (an old ReplicaSet of a rolled-out
// Deployment): its pods are going, and a group left behind would keep
// counting against the queue.
void PodGroupController::DropGroupsOfIdleWorkloads(ClusterState& state) {
  for (const auto& [key, owner] : state.owners()) {
    if (owner.replicas.value_or(1) != 0) continue;
    if (owner.kind != "ReplicaSet" && owner.kind != "StatefulSet") continue;
    const std::string& id = owner.meta.uid.empty() ? owner.meta.name : owner.meta.uid;
    const std::string group = owner.meta.namespace_ + "/" + kBarePodGroupPrefix + id;
    if (state.FindPodGroup(group)) state.DeletePodGroup(group);
  }
}

void PodGroupController::SyncPod(ClusterState& state, const std::string& key, const Pod& pod) {
  if (!scheduler_names_.count(pod.spec.scheduler_name)) return;
  if (pod.meta.annotations.count(kGroupNameAnnotation)) return;
  const OwnerReference* owner = ControllerRef(pod.meta);
  // Named after the controlling owner's UID (pods of one ReplicaSet share it),
  // else the pod's UID; manifests without UIDs fall back to names.
  std::string id = owner ? (owner->uid.empty() ? owner->name : owner->uid)
                         : (pod.meta.uid.empty() ? pod.meta.name : pod.meta.uid);
  std::string name = kBarePodGroupPrefix + id;
  state.EditPod(key)->meta.annotations[kGroupNameAnnotation] = name;
  if (state.FindPodGroup(pod.meta.namespace_ + "/" + name)) return;
  PodGroup pg;
  pg.meta.name = name;
  pg.meta.namespace_ = pod.meta.namespace_;
  pg.meta.creation_timestamp = pod.meta.creation_timestamp;
  pg.meta.source = pod.meta.source;
  pg.min_member = 1;
  pg.min_resources = WithoutPods(pod.spec.request);
  pg.priority_class_name = pod.spec.priority_class_name;
  auto q = pod.meta.annotations.find("scheduling.volcano.sh/queue-name");
  if (q != pod.meta.annotations.end()) {
    pg.queue = q->second;
  } else if (auto ns = state.namespaces().find(pod.meta.namespace_);
             ns != state.namespaces().end()) {
    auto nq = ns->second.annotations.find("scheduling.volcano.sh/queue-name");
    if (nq != ns->second.annotations.end()) pg.queue = nq->second;
  }
  // The workload's volcano.sh/* annotations (e.g. service.type) travel to the group.
  if (owner) {
    if (const OwnerObject* o = state.FindOwner(pod.meta.namespace_, owner->kind, owner->name)) {
      CopyVolcanoAnnotations(o->meta, pg.meta.annotations);
      if (const OwnerReference* up = ControllerRef(o->meta)) {
        if (const OwnerObject* top = state.FindOwner(pod.meta.namespace_, up->kind, up->name)) {
          CopyVolcanoAnnotations(top->meta, pg.meta.annotations);
        }
      }
    }
  }
  for (const char* k :
       {"volcano.sh/preemptable", "volcano.sh/revocable-zone", "volcano.sh/cooldown-time",
        "volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"}) {
    auto it = pod.meta.annotations.find(k);
    if (it != pod.meta.annotations.end()) pg.meta.annotations[k] = it->second;
  }
  pg.phase = PodGroupPhase::kPending;
  state.UpsertPodGroup(std::move(pg));
}

}  // namespace basalt
