// List-then-watch loops that keep a `ClusterState` in step with the API server.
//
// One `Informer` per resource. Its loop:
//
//   1. LIST (paginated) -> replace this resource's objects in the state
//      (objects it had delivered before and that are absent now are deleted),
//      remember the list's resourceVersion.
//   2. WATCH from that RV with bookmarks; apply ADDED/MODIFIED (upsert) and
//      DELETED; every event and every BOOKMARK advances the RV.
//   3. When the stream ends (timeoutSeconds, a broken connection, a server
//      restart) re-watch from the last RV. When the server says 410 — as an
//      HTTP status or as an ERROR event — go back to 1 (the RV is gone, only a
//      fresh list is consistent). Any other failure: back off (bounded,
//      exponential) and relist, so nothing is lost for good: the next list is
//      the truth.
//
// Decoding uses the manifest decoder's rules (`api/decode_json.h`: the same
// rules as `basalt schedule`, read straight from the JSON for Pods and Nodes),
// so a watched object means exactly what the same object in a manifest means. An
// object the decoder refuses is skipped and counted (`decode_errors`) rather
// than stopping the loop: one bad object must not blind the scheduler to the
// rest of the cluster.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/decode.h"
#include "kube/client.h"
#include "state/cluster_state.h"

namespace basalt::kube {

// The resources basalt watches.
struct InformerSpec {
  std::string kind;  // "Pod", "Node", "Queue", "PodGroup", "Job", "Command", ...
  ResourcePath path;
};

// Nodes, Pods, PriorityClasses, Queues, PodGroups, vcjobs, Commands,
// JobTemplates, JobFlows, CronJobs, Deployments, ReplicaSets, HyperNodes,
// PodDisruptionBudgets (pdb), ResourceQuotas (resourcequota).
std::vector<InformerSpec> DefaultInformerSpecs();

// Applies decoded objects to a `ClusterState` under a mutex that the
// scheduling loop also takes while it snapshots.
class StateSink {
 public:
  explicit StateSink(ClusterState* state) : state_(state) {}
  std::mutex& mutex() { return mu_; }

  // Upserts (added/modified) or deletes one watched object of `kind`. Returns
  // a decode error (the object is skipped); kinds basalt does not store
  // (Command) are accepted and ignored.
  Status Apply(const std::string& kind, bool deleted, const Json& object);
  // Replaces every object of `kind` that `known` lists and `items` does not
  // have by deleting it, then upserts `items`. `known` is updated to the keys
  // of `items`. Returns the number of decode errors.
  int Replace(const std::string& kind, const std::vector<Json>& items,
              std::set<std::string>* known);
  // A list a page at a time: `ApplyPage` decodes the page's objects (before
  // taking the lock, on more than one thread for a large page) and upserts
  // them, adding their keys to `seen`; `FinishList` then deletes what `known`
  // had and the list did not, and makes `known` the list's keys.
  int ApplyPage(const std::string& kind, const std::vector<Json>& items,
                std::set<std::string>* seen);
  void FinishList(const std::string& kind, std::set<std::string> seen,
                  std::set<std::string>* known);

  // Sees every watched object just before it is applied, under the sink's
  // lock, with the store as it still is: `deleted` with the object's last
  // state (an empty `object` when a relist found it gone). The live
  // controllers learn from it what the pods were before a change (a deleted
  // pod, a phase change) and what the server holds. Set before the informers
  // start.
  using ApplyObserver =
      std::function<void(const std::string& kind, bool deleted, const std::string& key,
                         const Json& object, const ClusterState& before)>;
  void set_apply_observer(ApplyObserver observer) { observers_ = {std::move(observer)}; }
  // Adds one more observer (each sees every object, in the order added).
  void add_apply_observer(ApplyObserver observer) { observers_.push_back(std::move(observer)); }

 private:
  void UpsertLocked(ClusterObjects objects);
  void DeleteLocked(const std::string& kind, const std::string& key);
  ClusterState* state_;
  std::mutex mu_;
  std::vector<ApplyObserver> observers_;
};

struct InformerOptions {
  // Objects per list page. Larger pages cost the API server less per object
  // (each page is a request of its own); 2,000 running pods are about 6 MB of JSON.
  int page_size = 2000;
  int watch_timeout_seconds = 300;  // the server ends the stream then; we re-watch
  std::chrono::milliseconds initial_backoff{200};
  // Short: after the API server comes back, the store must catch up within
  // seconds, not after a long backoff.
  std::chrono::milliseconds max_backoff{5000};
};

struct InformerStats {
  int lists = 0;
  int watches = 0;
  int relists_on_gone = 0;
  int events = 0;
  int bookmarks = 0;
  int decode_errors = 0;
  int failures = 0;
  // The last list answered 404: the resource is not served (its CRD is not
  // installed). Synced, empty and healthy; `last_error` says what the server said.
  bool not_served = false;
  std::string last_error;
  std::string resource_version;
  // The last complete list: objects, pages, wall seconds in all and the part
  // spent decoding and applying them (the rest is the API server and the
  // transfer). Logged, so a slow start-up says where its time went.
  int last_list_objects = 0;
  int last_list_pages = 0;
  double last_list_seconds = 0;
  double last_list_apply_seconds = 0;
};

class Informer {
 public:
  Informer(Client* client, InformerSpec spec, StateSink* sink, InformerOptions options = {});

  // Runs the loop until `stop` is set. Never returns early on a server error;
  // only `stop` ends it. Backoff sleeps are sliced so `stop` is seen quickly.
  // (In-flight watches are cut by the transport's cancel flag, see CurlOptions.)
  void Run(const std::atomic<bool>& stop);
  // One list (if needed) plus one watch; for tests and for callers with their
  // own loop. Returns false when the step failed (the caller should back off).
  bool Step(const std::atomic<bool>& stop);

  // True once the first list has been applied (or answered 404: the
  // resource is not served, so there are none; that is not a failure either).
  bool synced() const { return synced_.load(); }
  // False after a failed list or watch, until the next list or event: the
  // store may be falling behind the server.
  bool healthy() const { return !failing_.load(); }
  InformerStats stats();

 private:
  void Fail(const std::string& message);

  Client* client_;
  InformerSpec spec_;
  StateSink* sink_;
  InformerOptions options_;
  bool need_list_ = true;
  std::string rv_;
  std::set<std::string> known_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> failing_{false};
  std::mutex stats_mu_;
  InformerStats stats_;
};

}  // namespace basalt::kube
