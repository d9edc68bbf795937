#include "kube/informer.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <optional>
#include <thread>

#include "api/decode.h"
#include "api/decode_json.h"
#include "api/log.h"

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

// Decodes one API object with the manifest decoder's rules and messages (the
// same as `basalt schedule`): Pods and Nodes straight from the JSON, other
// kinds from a YAML tree built from it; managedFields are never read.
Status DecodeApiObject(const std::string& kind, const std::string& key, const Json& object,
                       ClusterObjects* out) {
  return DecodeJsonObject(object, "kube:" + kind + "/" + key, out);
}

// Sleeps `d` on the real clock in short slices so `stop` is noticed quickly.
void SleepUnlessStopped(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  auto end = std::chrono::steady_clock::now() + d;
  while (!stop.load() && std::chrono::steady_clock::now() < end) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(20)));
  }
}

// Pages handed from the thread that lists to the one that decodes; at most
// two wait, so a slow decoder holds the list back instead of memory growing.
class PageQueue {
 public:
  struct Page {
    std::vector<Json> items;
    bool first_page = false;
  };
  void Push(Page page) {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [this] { return queue_.size() < kCapacity; });
    queue_.push_back(std::move(page));
    ready_.notify_one();
  }
  // The next page; nullopt once closed and drained.
  std::optional<Page> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    Page page = std::move(queue_.front());
    queue_.pop_front();
    room_.notify_one();
    return page;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_all();
  }

 private:
  static constexpr size_t kCapacity = 2;
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Page> queue_;
  bool closed_ = false;
};

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
      {"CronJob", {"/apis/batch.volcano.sh/v1alpha1", "cronjobs"}},
      {"Deployment", {"/apis/apps/v1", "deployments"}},
      {"ReplicaSet", {"/apis/apps/v1", "replicasets"}},
      {"HyperNode", {"/apis/topology.volcano.sh/v1alpha1", "hypernodes"}},
      {"PodDisruptionBudget", {"/apis/policy/v1", "poddisruptionbudgets"}},
      {"ResourceQuota", {core, "resourcequotas"}},
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
  } else if (kind == "CronJob") {
    state_->DeleteCronJob(key);
  } else if (kind == "HyperNode") {
    state_->DeleteHyperNode(key);
  } else if (kind == "PodDisruptionBudget") {
    state_->DeleteDisruptionBudget(key);
  } else if (kind == "ResourceQuota") {
    state_->DeleteResourceQuota(key);
  }
  // TODO(kube): PriorityClass and owner objects have no delete in
  // ClusterState yet; a deleted PriorityClass keeps its last value (pods carry
  // their resolved priority, so scheduling is unaffected) and a stale owner
  // object only matters to controllers that look it up by a pod's reference.
}

void StateSink::UpsertLocked(ClusterObjects objs) {
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
  for (auto& o : objs.cron_jobs) state_->UpsertCronJob(std::move(o));
  for (auto& o : objs.disruption_budgets) state_->UpsertDisruptionBudget(std::move(o));
  for (auto& o : objs.resource_quotas) state_->UpsertResourceQuota(std::move(o));
  for (auto& o : objs.hypernodes) {
    std::string name = o.meta.name;
    Status kept = state_->UpsertHyperNode(std::move(o));
    // A HyperNode that would break the tree (a second parent, a cycle) is
    // left out until it is mended; the admission webhook refuses it earlier.
    if (!kept.ok())
      Log("informer")
          .warn("msg=\"HyperNode left out\" name={} reason={}", name, LogValue(kept.message()));
  }
}

Status StateSink::Apply(const std::string& kind, bool deleted, const Json& object) {
  std::string key = KeyOf(object);
  if (key.empty()) return Status::InvalidArgument("watched " + kind + " without metadata.name");
  ClusterObjects objs;
  Status decoded = deleted ? Status::Ok() : DecodeApiObject(kind, key, object, &objs);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& observe : observers_) observe(kind, deleted, key, object, *state_);
  if (deleted) {
    DeleteLocked(kind, key);
    return Status::Ok();
  }
  if (!decoded.ok()) return decoded;
  UpsertLocked(std::move(objs));
  return Status::Ok();
}

int StateSink::ApplyPage(const std::string& kind, const std::vector<Json>& items,
                         std::set<std::string>* seen) {
  struct Decoded {
    std::string key;
    ClusterObjects objs;
    Status status;
  };
  std::vector<Decoded> decoded(items.size());
  auto decode_range = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      decoded[i].key = KeyOf(items[i]);
      decoded[i].status = decoded[i].key.empty()
                              ? Status::InvalidArgument("listed " + kind + " without metadata.name")
                              : DecodeApiObject(kind, decoded[i].key, items[i], &decoded[i].objs);
    }
  };
  // A large page (a restart on a big cluster) is decoded on two threads: the
  // first list is what stands between a restart and the first bind.
  constexpr size_t kParallelFrom = 256;
  if (items.size() >= kParallelFrom) {
    size_t half = items.size() / 2;
    std::thread other(decode_range, half, items.size());
    decode_range(0, half);
    other.join();
  } else {
    decode_range(0, items.size());
  }
  int errors = 0;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < items.size(); ++i) {
    Decoded& d = decoded[i];
    if (d.key.empty()) {
      ++errors;
      continue;
    }
    seen->insert(d.key);
    for (const auto& observe : observers_) observe(kind, false, d.key, items[i], *state_);
    if (!d.status.ok()) {
      ++errors;
      continue;
    }
    UpsertLocked(std::move(d.objs));
  }
  return errors;
}

void StateSink::FinishList(const std::string& kind, std::set<std::string> seen,
                           std::set<std::string>* known) {
  std::lock_guard<std::mutex> lock(mu_);
  // Objects deleted while we were not watching (the reason for the relist)
  // exist only as absences in the new list.
  for (const std::string& key : *known) {
    if (seen.count(key)) continue;
    for (const auto& observe : observers_) observe(kind, true, key, Json(), *state_);
    DeleteLocked(kind, key);
  }
  *known = std::move(seen);
}

int StateSink::Replace(const std::string& kind, const std::vector<Json>& items,
                       std::set<std::string>* known) {
  std::set<std::string> seen;
  int errors = ApplyPage(kind, items, &seen);
  FinishList(kind, std::move(seen), known);
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
    std::set<std::string> seen;
    int errors = 0;
    const auto list_start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration applying{};
    // Pages are decoded on a thread of their own while the next page is on
    // its way: on a large cluster the list is as long as the slower of the
    // two, not their sum.
    PageQueue pages;
    std::thread decoder([&] {
      while (auto page = pages.Pop()) {
        if (page->first_page) seen.clear();  // a restarted list: only its own keys count
        auto t0 = std::chrono::steady_clock::now();
        errors += sink_->ApplyPage(spec_.kind, page->items, &seen);
        applying += std::chrono::steady_clock::now() - t0;
      }
    });
    auto list = client_->ListPages(path, options_.page_size,
                                   [&](std::vector<Json>& items, bool first_page) {
                                     pages.Push(PageQueue::Page{std::move(items), first_page});
                                   });
    pages.Close();
    decoder.join();
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
    sink_->FinishList(spec_.kind, std::move(seen), &known_);
    rv_ = list->resource_version;
    need_list_ = false;
    synced_ = true;
    failing_ = false;
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.lists;
    stats_.not_served = false;
    stats_.decode_errors += errors;
    stats_.last_list_objects = static_cast<int>(known_.size());
    stats_.last_list_pages = list->pages;
    stats_.last_list_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - list_start).count();
    stats_.last_list_apply_seconds = std::chrono::duration<double>(applying).count();
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
