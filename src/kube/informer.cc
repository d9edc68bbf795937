#include "kube/informer.h"

#include <algorithm>
#include <thread>

#include "api/decode.h"

namespace basalt::kube {
namespace {

std::string KeyOf(const Json& obj) {
  if (!obj.is_object()) return "";
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  auto str = [&](const char* k) {
    auto it = meta->find(k);
    return it != meta->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string ns = str("namespace"), name = str("name");
  if (name.empty()) return "";
  return ns.empty() ? name : ns + "/" + name;
}

// Kinds the informer receives but `ClusterState` does not store.
// Sleeps `d` on the real clock in short slices so `stop` is noticed quickly.
void SleepUnlessStopped(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  auto end = std::chrono::steady_clock::now() + d;
  while (!stop.load() && std::chrono::steady_clock::now() < end) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(20)));
  }
}

}  // namespace

std::vector<InformerSpec> DefaultInformerSpecs() {
  const std::string core = "/api/v1", sched = "/apis/scheduling.volcano.sh/v1beta1";
  return {
      {"Node", {core, "nodes"}},
      {"Pod", {core, "pods"}},
      {"PriorityClass", {"/apis/scheduling.k8s.io/v1", "priorityclasses"}},
      {"Queue", {sched, "queues"}},
      {"PodGroup", {sched, "podgroups"}},
      {"Job", {"/apis/batch.volcano.sh/v1alpha1", "jobs"}},
      {"Command", {"/apis/bus.volcano.sh/v1alpha1", "commands"}},
      {"JobTemplate", {"/apis/flow.volcano.sh/v1alpha1", "jobtemplates"}},
      {"JobFlow", {"/apis/flow.volcano.sh/v1alpha1", "jobflows"}},
      {"Deployment", {"/apis/apps/v1", "deployments"}},
      {"ReplicaSet", {"/apis/apps/v1", "replicasets"}},
  };
}

void StateSink::DeleteLocked(const std::string& kind, const std::string& key) {
  if (kind == "Pod") {
    state_->DeletePod(key);
  } else if (kind == "Node") {
    state_->DeleteNode(key);
  } else if (kind == "PodGroup") {
    state_->DeletePodGroup(key);
  } else if (kind == "Queue") {
    state_->mutable_queues().erase(key);
  } else if (kind == "Job") {
    state_->mutable_jobs().erase(key);
  } else if (kind == "Command") {
    state_->DeleteCommand(key);
  } else if (kind == "JobTemplate") {
    state_->DeleteJobTemplate(key);
  } else if (kind == "JobFlow") {
    state_->DeleteJobFlow(key);
  }
  // TODO(kube): PriorityClass and owner objects have no delete in
  // ClusterState yet; a deleted PriorityClass keeps its last value (pods carry
  // their resolved priority, so scheduling is unaffected) and a stale owner
  // object only matters to controllers that look it up by a pod's reference.
}

Status StateSink::ApplyLocked(const std::string& kind, bool deleted, const Json& object) {
  std::string key = KeyOf(object);
  if (key.empty()) return Status::InvalidArgument("watched " + kind + " without metadata.name");
  if (observer_) observer_(kind, deleted, key, object, *state_);
  if (deleted) {
    DeleteLocked(kind, key);
    return Status::Ok();
  }
  // The JSON text goes through the manifest decoder (yaml-cpp reads JSON),
  // including its tree checks, so API objects and manifests share one set of
  // rules and one set of error messages.
  ClusterObjects objs;
  Status s = DecodeText(object.dump(), "kube:" + kind + "/" + key, &objs);
  if (!s.ok()) return s;
  for (auto& o : objs.pods) state_->UpsertPod(std::move(o));
  for (auto& o : objs.nodes) state_->UpsertNode(std::move(o));
  for (auto& o : objs.queues) state_->UpsertQueue(std::move(o));
  for (auto& o : objs.podgroups) state_->UpsertPodGroup(std::move(o));
  for (auto& o : objs.jobs) state_->UpsertJob(std::move(o));
  for (auto& o : objs.priority_classes) state_->UpsertPriorityClass(std::move(o));
  for (auto& o : objs.owners) state_->UpsertOwner(std::move(o));
  for (auto& o : objs.commands) state_->UpsertCommand(std::move(o));
  for (auto& o : objs.job_templates) state_->UpsertJobTemplate(std::move(o));
  for (auto& o : objs.job_flows) state_->UpsertJobFlow(std::move(o));
  return Status::Ok();
}

Status StateSink::Apply(const std::string& kind, bool deleted, const Json& object) {
  std::lock_guard<std::mutex> lock(mu_);
  return ApplyLocked(kind, deleted, object);
}

int StateSink::Replace(const std::string& kind, const std::vector<Json>& items,
                       std::set<std::string>* known) {
  std::set<std::string> now;
  for (const Json& item : items) {
    std::string key = KeyOf(item);
    if (!key.empty()) now.insert(key);
  }
  int errors = 0;
  std::lock_guard<std::mutex> lock(mu_);
  // Objects deleted while we were not watching (the reason for the relist)
  // exist only as absences in the new list.
  for (const std::string& key : *known) {
    if (now.count(key)) continue;
    if (observer_) observer_(kind, true, key, Json(), *state_);
    DeleteLocked(kind, key);
  }
  for (const Json& item : items) {
    if (!ApplyLocked(kind, false, item).ok()) ++errors;
  }
  *known = std::move(now);
  return errors;
}

Informer::Informer(Client* client, InformerSpec spec, StateSink* sink, InformerOptions options)
    : client_(client), spec_(std::move(spec)), sink_(sink), options_(options) {}

InformerStats Informer::stats() {
  std::lock_guard<std::mutex> lock(stats_mu_);
  InformerStats s = stats_;
  s.resource_version = rv_;
  return s;
}

void Informer::Fail(const std::string& message) {
  failing_ = true;
  std::lock_guard<std::mutex> lock(stats_mu_);
  ++stats_.failures;
  stats_.last_error = message;
}

bool Informer::Step(const std::atomic<bool>& stop) {
  const std::string path = spec_.path.Collection();
  if (need_list_) {
    auto list = client_->List(path, options_.page_size);
    if (!list.ok()) {
      if (list.error().code == 404) {
        // The resource is not served (e.g. the JobFlow or Command CRD is not
        // installed): there are none of them. That is a state of the cluster,
        // not a failure: synced and empty, healthy (so /readyz stays 200),
        // not counted as a failure, and checked again after the backoff so a
        // CRD installed later is picked up.
        sink_->Replace(spec_.kind, {}, &known_);
        synced_ = true;
        failing_ = false;
        std::lock_guard<std::mutex> lock(stats_mu_);
        stats_.not_served = true;
        stats_.last_error = list.error().ToString();
        return false;
      }
      Fail(list.error().ToString());
      return false;
    }
    int errors = sink_->Replace(spec_.kind, list->items, &known_);
    rv_ = list->resource_version;
    need_list_ = false;
    synced_ = true;
    failing_ = false;
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.lists;
    stats_.not_served = false;
    stats_.decode_errors += errors;
  }
  if (stop.load()) return true;
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.watches;
  }
  int delivered = 0;
  auto w = client_->Watch(path, rv_, options_.watch_timeout_seconds, [&](const WatchEvent& ev) {
    if (stop.load()) return false;
    ++delivered;
    failing_ = false;
    if (ev.type != WatchEventType::kBookmark) {
      bool deleted = ev.type == WatchEventType::kDeleted;
      std::string key = KeyOf(ev.object);
      Status s = sink_->Apply(spec_.kind, deleted, ev.object);
      if (!key.empty()) {
        if (deleted)
          known_.erase(key);
        else
          known_.insert(key);
      }
      std::lock_guard<std::mutex> lock(stats_mu_);
      ++stats_.events;
      if (!s.ok()) {
        ++stats_.decode_errors;
        stats_.last_error = s.message();
      }
    } else {
      std::lock_guard<std::mutex> lock(stats_mu_);
      ++stats_.bookmarks;
    }
    // Applied before the RV moves: resuming from rv_ never skips an event.
    if (!ev.resource_version.empty()) rv_ = ev.resource_version;
    return true;
  });
  if (!w.ok()) {
    // 403 on watch, a malformed stream, a non-410 ERROR event: the events
    // applied so far stand, but the stream's position is doubtful; relist.
    need_list_ = true;
    Fail(w.error().ToString());
    return false;
  }
  if (w->end == WatchEnd::kGone) {
    need_list_ = true;
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.relists_on_gone;
    return true;
  }
  if (delivered == 0) {
    // Nothing arrived: a refused or broken connection, or a quiet watch that
    // reached timeoutSeconds. Back off a little before reconnecting so a dead
    // server, or a proxy closing streams at once, is not hammered.
    if (!w->message.empty()) Fail(w->message);
    return false;
  }
  return true;
}

void Informer::Run(const std::atomic<bool>& stop) {
  int failures = 0;
  while (!stop.load()) {
    if (Step(stop)) {
      failures = 0;
      continue;
    }
    int64_t ms = options_.initial_backoff.count() << std::min(failures, 16);
    ++failures;
    SleepUnlessStopped(std::min(options_.max_backoff, std::chrono::milliseconds(ms)), stop);
  }
}

}  // namespace basalt::kube
