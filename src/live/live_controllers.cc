#include "live/live_controllers.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <optional>
#include <thread>

#include "api/cron_schedule.h"
#include "api/decode.h"
#include "api/log.h"
#include "api/well_known.h"
#include "controllers/job_controller.h"
#include "live/render.h"
#include "live/volcano_metrics.h"

namespace basalt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kMergePatch = "application/merge-patch+json";
// Write::Verb's names, in its order (metrics, logs, in-flight keys).
constexpr const char* kVerbNames[] = {"create", "delete", "patch"};

std::string PodsPath(const std::string& ns) { return "/api/v1/namespaces/" + ns + "/pods"; }
std::string PodGroupsPath(const std::string& ns) {
  return "/apis/scheduling.volcano.sh/v1beta1/namespaces/" + ns + "/podgroups";
}
std::string JobsPath(const std::string& ns) {
  return "/apis/batch.volcano.sh/v1alpha1/namespaces/" + ns + "/jobs";
}

const OwnerReference* ControllerRef(const ObjectMeta& meta) {
  for (const OwnerReference& ref : meta.owner_references) {
    if (ref.controller) return &ref;
  }
  return meta.owner_references.empty() ? nullptr : &meta.owner_references.front();
}

// The job a pod of the vcjob controller belongs to ("ns/job").
std::string JobKeyOf(const Pod& pod) {
  for (const OwnerReference& ref : pod.meta.owner_references) {
    if (ref.kind == "Job" && ref.api_version.rfind("batch.volcano.sh/", 0) == 0)
      return pod.meta.namespace_ + "/" + ref.name;
  }
  return "";
}

const Json& Member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// Whether the server's status already says everything `desired` says.
bool StatusMatches(const Json& server, const Json& desired) {
  for (const auto& [k, v] : desired.items()) {
    const Json& have = Member(server, k.c_str());
    if (k == "state" && v.is_object()) {
      if (Member(have, "phase") != Member(v, "phase")) return false;
    } else if (have != v && !(v == 0 && have.is_null())) {
      return false;
    }
  }
  return true;
}

// metadata.uid of an object from the server; "" when it has none.
std::string UidOf(const Json& object) {
  const Json& uid = Member(Member(object, "metadata"), "uid");
  return uid.is_string() ? uid.get<std::string>() : "";
}

Json AnnotationPatch(const std::map<std::string, std::string>& from,
                     const std::map<std::string, std::string>& to) {
  Json changes = Json::object();
  for (const auto& [k, v] : to) {
    auto it = from.find(k);
    if (it == from.end() || it->second != v) changes[k] = v;
  }
  for (const auto& [k, v] : from) {
    if (!to.count(k)) changes[k] = nullptr;
  }
  return {{"metadata", {{"annotations", std::move(changes)}}}};
}

}  // namespace

LiveControllers::LiveControllers(kube::Client* client, ClusterState* state, kube::StateSink* sink,
                                 kube::Metrics* metrics, LiveControllerOptions options)
    : client_(client),
      state_(state),
      sink_(sink),
      metrics_(metrics),
      options_(std::move(options)),
      job_plugins_(RandomSshKeys()),
      podgroups_(options_.scheduler_names) {
  jobs_.RecordActionEvents(true);
  metrics_->Counter("basalt_controller_writes_total",
                    "Writes of the live controllers by object kind, verb and outcome.",
                    {"kind", "verb", "outcome"});
  metrics_->Gauge("basalt_controller_writes_deferred",
                  "Bare pods' PodGroup creates and annotations waiting behind the binds.");
  DeclareVolcanoControllerMetrics(*metrics_);
  sink_->add_apply_observer(
      [this](const std::string& kind, bool deleted, const std::string& key, const Json& object,
             const ClusterState& before) { OnApplied(kind, deleted, key, object, before); });
}

void LiveControllers::OnApplied(const std::string& kind, bool deleted, const std::string& key,
                                const Json& object, const ClusterState& before) {
  if (kind == "Pod") {
    const Pod* old = before.FindPod(key);
    // Only the vcjob controller reacts to pods, and only to its own — and only
    // to the incarnation the server reports on: a pod the controller has just
    // made again under the same name (no uid yet) is not the one that went.
    if (old == nullptr || JobKeyOf(*old).empty() || old->meta.uid.empty()) return;
    const std::string uid = UidOf(object);
    if (!uid.empty() && uid != old->meta.uid) return;
    if (deleted) {
      deleted_pods_.push_back(*old);
      return;
    }
    const Json& phase = Member(Member(object, "status"), "phase");
    std::string now = phase.is_string() ? phase.get<std::string>() : "Pending";
    if (now != old->phase) phase_changes_.emplace_back(key, old->phase);
  } else if (kind == "Job") {
    if (deleted) {
      job_objects_.erase(key);
    } else {
      job_objects_[key] = object;
    }
  } else if (kind == "JobFlow" || kind == "JobTemplate" || kind == "CronJob") {
    auto& objects = kind == "JobFlow"   ? flow_objects_
                    : kind == "CronJob" ? cron_objects_
                                        : template_objects_;
    if (deleted) {
      objects.erase(key);
    } else {
      objects[key] = object;
    }
  } else if (kind == "Queue") {
    if (deleted) {
      queue_status_.erase(key);
    } else {
      const Json& st = Member(object, "status");
      queue_status_[key] = st.is_object() ? st : Json::object();
    }
  }
}

void LiveControllers::Idle() {
  std::lock_guard<std::mutex> lock(sink_->mutex());
  deleted_pods_.clear();
  phase_changes_.clear();
  deferred_.clear();
}

void LiveControllers::ReactToInformers(int64_t now) {
  for (const Pod& pod : deleted_pods_) jobs_.OnPodDeleted(*state_, pod, now);
  for (const auto& [key, old_phase] : phase_changes_) {
    if (const Pod* pod = state_->FindPod(key))
      jobs_.OnPodPhaseChanged(*state_, *pod, old_phase, now);
  }
  deleted_pods_.clear();
  phase_changes_.clear();
}

// Commands run in creation order (then name) and are deleted once run, as
// the offline front ends run them.
void LiveControllers::RunCommands(int64_t now, std::vector<Write>* writes) {
  std::vector<Command> commands;
  for (const auto& [key, c] : state_->commands()) commands.push_back(c);
  std::stable_sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) {
    return a.meta.creation_timestamp < b.meta.creation_timestamp;
  });
  for (const Command& c : commands) {
    state_->DeleteCommand(c.meta.Key());
    if (c.target.kind == "Queue") {
      queues_.OnCommand(*state_, c);
    } else if (c.target.kind == "Job") {
      jobs_.OnCommand(*state_, c, now);
    }
    writes->push_back({Write::Verb::kDelete, "Command", c.meta.Key(),
                       "/apis/bus.volcano.sh/v1alpha1/namespaces/" + c.meta.namespace_ +
                           "/commands/" + c.meta.name,
                       Json(), c.meta.uid});
  }
}

void LiveControllers::CollectPodWrites(const std::map<std::string, Pod>& before,
                                       std::vector<Write>* writes) {
  for (const auto& [key, old] : before) {
    const Pod* now = state_->FindPod(key);
    const bool on_server = !old.meta.name.empty() && !old.meta.uid.empty();
    auto [ns, name] = SplitKey(key);
    if (now != nullptr && now->meta.uid.empty() && on_server) {
      // Deleted and made again in one pass (a restart): the old pod goes
      // first; the new one is created once the informers show it gone.
      writes->push_back(
          {Write::Verb::kDelete, "Pod", key, PodsPath(ns) + "/" + name, Json(), old.meta.uid});
    } else if (now != nullptr && now->meta.uid.empty()) {
      auto job = job_objects_.find(JobKeyOf(*now));
      if (job == job_objects_.end()) continue;  // not a vcjob pod: nothing to render it from
      auto additions = job_plugins_.pods().find(key);
      auto body = VcJobPodJson(
          job->second, *now, additions == job_plugins_.pods().end() ? nullptr : &additions->second);
      if (!body.ok()) {
        Log("controllers")
            .warn("msg=\"pod not created\" pod={} error={}", key,
                  LogValue(body.status().message()));
        continue;
      }
      writes->push_back({Write::Verb::kCreate, "Pod", key, PodsPath(ns), std::move(*body), ""});
    } else if (now == nullptr && on_server) {
      writes->push_back(
          {Write::Verb::kDelete, "Pod", key, PodsPath(ns) + "/" + name, Json(), old.meta.uid});
    } else if (now != nullptr && on_server && now->meta.annotations != old.meta.annotations) {
      writes->push_back({Write::Verb::kMergePatch, "Pod", key, PodsPath(ns) + "/" + name,
                         AnnotationPatch(old.meta.annotations, now->meta.annotations), ""});
    }
  }
}

void LiveControllers::CollectPodGroupWrites(const std::map<std::string, PodGroup>& before,
                                            const std::map<std::string, Pod>& pods_before,
                                            std::vector<Write>* writes) {
  // A bare pod's new group is owned by the pod's controller, else the pod.
  std::map<std::string, OwnerReference> owners;
  for (const auto& [key, unused] : pods_before) {
    const Pod* pod = state_->FindPod(key);
    if (pod == nullptr || pod->meta.uid.empty()) continue;
    auto group = pod->meta.annotations.find(kGroupNameAnnotation);
    if (group == pod->meta.annotations.end()) continue;
    const OwnerReference* ref = ControllerRef(pod->meta);
    owners.emplace(pod->meta.namespace_ + "/" + group->second,
                   ref ? *ref : OwnerReference{"v1", "Pod", pod->meta.name, pod->meta.uid, false});
  }
  for (const auto& [key, old] : before) {
    const PodGroup* now = state_->FindPodGroup(key);
    const bool on_server = !old.meta.name.empty() && !old.meta.uid.empty();
    auto [ns, name] = SplitKey(key);
    if (now != nullptr && now->meta.uid.empty() && on_server) {
      writes->push_back({Write::Verb::kDelete, "PodGroup", key, PodGroupsPath(ns) + "/" + name,
                         Json(), old.meta.uid});  // made again: the old one goes first
    } else if (now != nullptr && now->meta.uid.empty()) {
      auto owner = owners.find(key);
      writes->push_back({Write::Verb::kCreate, "PodGroup", key, PodGroupsPath(ns),
                         PodGroupJson(*now, owner == owners.end() ? nullptr : &owner->second), ""});
    } else if (now == nullptr && on_server) {
      writes->push_back({Write::Verb::kDelete, "PodGroup", key, PodGroupsPath(ns) + "/" + name,
                         Json(), old.meta.uid});
    } else if (now != nullptr && on_server &&
               (now->min_member != old.min_member || now->queue != old.queue ||
                now->min_task_member != old.min_task_member)) {
      Json spec = PodGroupJson(*now, nullptr)["spec"];
      writes->push_back({Write::Verb::kMergePatch, "PodGroup", key, PodGroupsPath(ns) + "/" + name,
                         Json{{"spec", std::move(spec)}}, ""});
    }
  }
}

void LiveControllers::CollectJobWrites(std::vector<Write>* writes) {
  for (const auto& [key, server] : job_objects_) {
    auto [ns, name] = SplitKey(key);
    const VcJob* job = state_->FindJob(key);
    if (job == nullptr) {  // deleted by the controller (ttlSecondsAfterFinished)
      writes->push_back(
          {Write::Verb::kDelete, "Job", key, JobsPath(ns) + "/" + name, Json(), UidOf(server)});
      continue;
    }
    job_internal::PodCounts c = job_internal::CountPods(*state_, *job);
    Json desired = VcJobStatusJson(
        *job, JobPodCounts{c.pending, c.running, c.succeeded, c.failed, c.terminating});
    if (StatusMatches(Member(server, "status"), desired)) continue;
    writes->push_back({Write::Verb::kMergePatch, "JobStatus", key,
                       JobsPath(ns) + "/" + name + "/status", Json{{"status", std::move(desired)}},
                       ""});
  }
}

// A queue's state (after open/close) and, as Volcano's queue controller
// keeps them, the number of its PodGroups in each phase.
void LiveControllers::CollectQueueWrites(std::vector<Write>* writes) {
  std::map<std::string, std::map<std::string, int>> counts;  // queue -> phase -> groups
  for (const auto& [key, pg] : state_->podgroups()) {
    std::string phase = PodGroupPhaseName(pg.phase);
    phase[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(phase[0])));
    ++counts[pg.queue.empty() ? "default" : pg.queue][phase];
  }
  for (const auto& [name, q] : state_->queues()) {
    auto server = queue_status_.find(name);
    if (server == queue_status_.end()) continue;  // implicit queues have no object
    Json desired = {{"state", q.state}};
    for (const char* phase : {"pending", "inqueue", "running", "unknown", "completed"})
      desired[phase] = counts[name][phase];
    if (StatusMatches(server->second, desired)) continue;
    writes->push_back({Write::Verb::kMergePatch, "QueueStatus", name,
                       "/apis/scheduling.volcano.sh/v1beta1/queues/" + name + "/status",
                       Json{{"status", std::move(desired)}}, ""});
  }
}

void LiveControllers::CollectPluginObjectWrites(std::vector<Write>* writes) {
  std::set<std::string> present;
  auto want = [&](const char* kind, const ObjectMeta& meta, const std::string& collection,
                  Json body) {
    std::string id = std::string(kind) + "/" + meta.Key();
    present.insert(id);
    if (plugin_objects_.count(id)) return;
    writes->push_back({Write::Verb::kCreate, kind, meta.Key(), collection, std::move(body), ""});
  };
  const std::string core = "/api/v1/namespaces/";
  for (const auto& [k, o] : job_plugins_.secrets())
    want("Secret", o.meta, core + o.meta.namespace_ + "/secrets", SecretJson(o));
  for (const auto& [k, o] : job_plugins_.config_maps()) {
    const std::string collection = core + o.meta.namespace_ + "/configmaps";
    want("ConfigMap", o.meta, collection, ConfigMapJson(o));
    // On the server already: rewritten when its data changed (the svc host
    // files follow the job's replicas), or once after a 409 adopted it.
    const std::string id = "ConfigMap/" + o.meta.Key();
    auto written = config_map_data_.find(id);
    const Json desired = o.data;
    if (!plugin_objects_.count(id) ||
        (written != config_map_data_.end() && written->second == desired))
      continue;
    Json data = desired;
    if (written != config_map_data_.end()) {
      for (const auto& [key, value] : written->second.items()) {
        if (!desired.contains(key)) data[key] = nullptr;  // a merge patch removes it
      }
    }
    writes->push_back({Write::Verb::kMergePatch, "ConfigMap", o.meta.Key(),
                       collection + "/" + o.meta.name, Json{{"data", std::move(data)}}, ""});
  }
  for (const auto& [k, o] : job_plugins_.services())
    want("Service", o.meta, core + o.meta.namespace_ + "/services", ServiceJson(o));
  for (const auto& [k, o] : job_plugins_.network_policies())
    want("NetworkPolicy", o.meta,
         "/apis/networking.k8s.io/v1/namespaces/" + o.meta.namespace_ + "/networkpolicies",
         NetworkPolicyJson(o));
  for (auto it = plugin_objects_.begin(); it != plugin_objects_.end();) {
    if (present.count(*it)) {
      ++it;
      continue;
    }
    // "Kind/ns/name": the job went, and so do its objects.
    auto first = it->find('/');
    std::string kind = it->substr(0, first), key = it->substr(first + 1);
    auto [ns, name] = SplitKey(key);
    std::string collection =
        kind == "NetworkPolicy" ? "/apis/networking.k8s.io/v1/namespaces/" + ns + "/networkpolicies"
                                : core + ns + "/" +
                                      (kind == "Secret"      ? "secrets"
                                       : kind == "ConfigMap" ? "configmaps"
                                                             : "services");
    writes->push_back({Write::Verb::kDelete, kind, key, collection + "/" + name, Json(), ""});
    config_map_data_.erase(*it);
    it = plugin_objects_.erase(it);
  }
}

// The job controller's ExecuteAction events, named as client-go names an
// event (`<object>.<hex nanoseconds>`), one nanosecond apart when they share
// a clock reading.
void LiveControllers::CollectJobEventWrites(int64_t now, std::vector<Write>* writes) {
  const std::string timestamp = FormatRfc3339(now, TimeZone());
  for (const JobActionEvent& e : jobs_.TakeActionEvents()) {
    const uint64_t wall =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
    last_event_nanos_ = std::max(wall, last_event_nanos_ + 1);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(last_event_nanos_));
    auto [ns, job] = SplitKey(e.job_key);
    const std::string name = job + "." + hex;
    writes->push_back({Write::Verb::kCreate, "Event", ns + "/" + name,
                       "/api/v1/namespaces/" + ns + "/events",
                       JobActionEventJson(e, name, timestamp), ""});
  }
}

ControllerPassSummary LiveControllers::Sync(int64_t now) {
  std::vector<Write> writes;
  {
    std::lock_guard<std::mutex> lock(sink_->mutex());
    // The state of every pod and PodGroup the controllers touch, as it was
    // before (an empty name: it did not exist).
    std::map<std::string, Pod> pods_before;
    std::map<std::string, PodGroup> groups_before;
    state_->set_change_observer([&](const ClusterState& s, const ClusterState::Change& c) {
      if (c.kind == ClusterState::Change::Kind::kPod && !pods_before.count(c.key)) {
        const Pod* p = s.FindPod(c.key);
        pods_before.emplace(c.key, p ? *p : Pod{});
      } else if (c.kind == ClusterState::Change::Kind::kPodGroup && !groups_before.count(c.key)) {
        const PodGroup* g = s.FindPodGroup(c.key);
        groups_before.emplace(c.key, g ? *g : PodGroup{});
      }
    });
    ReactToInformers(now);
    RunCommands(now, &writes);
    jobs_.Sync(*state_, now);
    job_plugins_.Sync(*state_);
    podgroups_.Sync(*state_);
    queues_.Sync(*state_);
    std::vector<Write> flow_writes;
    SyncJobFlows(now, &flow_writes);
    SyncCronJobs(now, &flow_writes);
    state_->set_change_observer(nullptr);
    CollectPluginObjectWrites(&writes);
    CollectPodGroupWrites(groups_before, pods_before, &writes);
    CollectPodWrites(pods_before, &writes);
    CollectJobWrites(&writes);
    CollectQueueWrites(&writes);
    for (Write& w : flow_writes) writes.push_back(std::move(w));
    CollectJobEventWrites(now, &writes);
  }
  // Bare pods' bookkeeping waits for the cycle's binds (see ApplyDeferred).
  std::vector<Write> urgent;
  for (Write& w : writes) {
    bool bookkeeping = (w.kind == "PodGroup" && w.verb == Write::Verb::kCreate &&
                        w.key.find("/" + std::string(kBarePodGroupPrefix)) != std::string::npos) ||
                       (w.kind == "Pod" && w.verb == Write::Verb::kMergePatch);
    (bookkeeping ? deferred_ : urgent).push_back(std::move(w));
  }
  ControllerPassSummary sum;
  Apply(std::move(urgent), &sum);
  return sum;
}

ControllerPassSummary LiveControllers::ApplyDeferred(std::chrono::milliseconds budget) {
  // In slices, for at most `budget`: a burst of thousands of new pods must not
  // hold up the next cycles (their binds) while its bookkeeping is written.
  // What is left waits for the next call, in order.
  const auto until = Clock::now() + budget;
  ControllerPassSummary sum;
  size_t sent = 0;
  // One slice at least, so that a zero budget still makes progress.
  while (sent < deferred_.size() && (sent == 0 || Clock::now() < until)) {
    size_t n = std::min(kDeferredSlice, deferred_.size() - sent);
    std::vector<Write> slice(std::make_move_iterator(deferred_.begin() + sent),
                             std::make_move_iterator(deferred_.begin() + sent + n));
    Apply(std::move(slice), &sum);
    sent += n;
  }
  deferred_.erase(deferred_.begin(), deferred_.begin() + sent);
  metrics_->Set("basalt_controller_writes_deferred", static_cast<double>(deferred_.size()));
  return sum;
}

bool LiveControllers::InFlight(const std::string& id, Clock::time_point now) const {
  auto it = in_flight_.find(id);
  return it != in_flight_.end() && now - it->second < options_.in_flight_ttl;
}

void LiveControllers::DropLocalObject(const Write& w) {
  std::lock_guard<std::mutex> lock(sink_->mutex());
  if (w.kind == "Pod") {
    const Pod* p = state_->FindPod(w.key);
    if (p && p->meta.uid.empty()) state_->DeletePod(w.key);
  } else if (w.kind == "PodGroup") {
    const PodGroup* g = state_->FindPodGroup(w.key);
    if (g && g->meta.uid.empty()) state_->DeletePodGroup(w.key);
  }
}

// Sends `writes` with up to `kWriteParallelism` on the wire at once: one
// object's writes stay in their order (a delete before the create that
// replaces it), different objects' go side by side — a pass that makes
// thousands of PodGroups for new bare pods must not take thousands of round
// trips end to end. The answers are then handled in the writes' order.
void LiveControllers::Apply(std::vector<Write> writes, ControllerPassSummary* sum) {
  const auto now = Clock::now();
  for (auto it = in_flight_.begin(); it != in_flight_.end();)
    it = now - it->second >= options_.in_flight_ttl ? in_flight_.erase(it) : std::next(it);
  // A patch is keyed by its content (a different status is sent at once), a
  // delete by the incarnation it deletes. Creates are never held back: the
  // controllers ask for one only when they make the object (again), and a
  // repeated create is answered 409 and adopted.
  std::vector<std::string> ids(writes.size());
  std::vector<bool> send(writes.size(), false);
  std::map<std::string, std::vector<size_t>> by_object;  // kind|key -> write indexes, in order
  for (size_t i = 0; i < writes.size(); ++i) {
    const Write& w = writes[i];
    ids[i] = std::string(kVerbNames[static_cast<int>(w.verb)]) + "|" + w.kind + "|" + w.key + "|" +
             (w.verb == Write::Verb::kMergePatch ? w.body.dump() : w.uid);
    send[i] = w.verb == Write::Verb::kCreate || !InFlight(ids[i], now);
    if (send[i]) by_object[w.kind + "|" + w.key].push_back(i);
  }
  std::vector<std::vector<size_t>> lanes;
  for (auto& [object, indexes] : by_object) lanes.push_back(std::move(indexes));
  std::vector<std::optional<kube::ApiOr<kube::HttpResponse>>> replies(writes.size());
  std::atomic<size_t> next_lane{0};
  auto work = [&] {
    for (size_t l = next_lane++; l < lanes.size(); l = next_lane++) {
      for (size_t i : lanes[l]) replies[i].emplace(Send(writes[i]));
    }
  };
  constexpr size_t kWriteParallelism = 16;
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(kWriteParallelism, lanes.size()); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < writes.size(); ++i) {
    if (send[i]) Record(writes[i], ids[i], *replies[i], now, sum);
  }
}

// Volcano's job-to-pod latency: the pod's creationTimestamp, as the server
// answered the create, minus its Volcano Job's. Pods of no Job are skipped.
void LiveControllers::ObservePodCreated(const Write& w, const std::string& reply) {
  auto meta = w.body.find("metadata");
  if (meta == w.body.end() || !meta->is_object()) return;
  const Json annotations = meta->value("annotations", Json::object());
  const std::string job =
      annotations.is_object() ? annotations.value(job_internal::kJobName, "") : "";
  if (job.empty()) return;
  const Json created = Json::parse(reply, nullptr, false);
  if (!created.is_object() || !created.contains("metadata")) return;
  auto pod_created = ParseTimestamp(created["metadata"].value("creationTimestamp", ""));
  if (!pod_created.ok()) return;
  int64_t job_created = 0;
  {
    std::lock_guard<std::mutex> lock(sink_->mutex());
    const VcJob* vcjob = state_->FindJob(SplitKey(w.key).first + "/" + job);
    if (vcjob == nullptr) return;
    job_created = vcjob->meta.creation_timestamp;
  }
  ObserveJobToPodCreation(*metrics_, job_created, *pod_created);
}

kube::ApiOr<kube::HttpResponse> LiveControllers::Send(const Write& w) {
  switch (w.verb) {
    case Write::Verb::kCreate:
      return client_->Call("POST", w.path, {}, w.body.dump(), "application/json");
    case Write::Verb::kDelete: {
      Json options = {
          {"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
      if (!w.uid.empty()) options["preconditions"] = {{"uid", w.uid}};
      return client_->Call("DELETE", w.path, {}, options.dump(), "application/json");
    }
    case Write::Verb::kMergePatch:
      break;
  }
  return client_->Call("PATCH", w.path, {}, w.body.dump(), kMergePatch);
}

void LiveControllers::Record(const Write& w, const std::string& id,
                             const kube::ApiOr<kube::HttpResponse>& r,
                             std::chrono::steady_clock::time_point now,
                             ControllerPassSummary* sum) {
  const char* verb = kVerbNames[static_cast<int>(w.verb)];
  std::string outcome = "ok";
  if (r.ok()) {
    in_flight_[id] = now;
    if (w.verb == Write::Verb::kCreate) ++sum->creates;
    if (w.verb == Write::Verb::kCreate && w.kind == "Pod") ObservePodCreated(w, r->body);
    if (w.verb == Write::Verb::kDelete) ++sum->deletes;
    if (w.verb == Write::Verb::kMergePatch) ++sum->updates;
  } else if (w.verb == Write::Verb::kCreate && r.error().code == 409) {
    outcome = "exists";  // made by us before, or by someone else: adopt it
    in_flight_[id] = now;
    ++sum->adopted;
  } else if (r.error().code == 404 || (w.verb == Write::Verb::kDelete && r.error().code == 409)) {
    outcome = "gone";  // deleted meanwhile, or replaced under the same name
  } else {
    outcome = "error";
    ++sum->failures;
    sum->errors.push_back(r.error().ToString());
    Log("controllers")
        .warn("msg=\"write failed\" verb={} kind={} object={} error={}", verb, w.kind, w.key,
              LogValue(r.error().ToString()));
    if (w.verb == Write::Verb::kCreate) DropLocalObject(w);
    if (w.verb == Write::Verb::kCreate && w.kind == "Job") flow_job_creates_.erase(w.key);
  }
  if (outcome != "error" && (w.kind == "Secret" || w.kind == "ConfigMap" || w.kind == "Service" ||
                             w.kind == "NetworkPolicy")) {
    if (w.verb == Write::Verb::kCreate) plugin_objects_.insert(w.kind + "/" + w.key);
    // The ConfigMap data the server holds, as far as we know: what we wrote
    // (not what a 409 found there).
    if (w.kind == "ConfigMap" && outcome == "ok" && w.verb != Write::Verb::kDelete) {
      Json data = w.body.value("data", Json::object());
      for (auto d = data.begin(); d != data.end();) d = d->is_null() ? data.erase(d) : std::next(d);
      config_map_data_[w.kind + "/" + w.key] = std::move(data);
    }
  }
  metrics_->Inc("basalt_controller_writes_total", {w.kind, verb, outcome});
  Log("controllers")
      .debug("msg=write verb={} kind={} object={} outcome={}", verb, w.kind, w.key, outcome);
}

}  // namespace basalt
