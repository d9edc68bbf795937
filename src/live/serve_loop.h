// The scheduling loop of `basalt serve`: one session over the informers'
// ClusterState, then its decisions applied through the Kubernetes API.
//
//   collect the binds answered since the last cycle -> lock the store ->
//   re-apply what we did and the informers have not shown yet (assumed binds,
//   binds on the wire, evictions) -> session (actions, close) -> unlock
//   -> evictions -> binds handed to the bind pipeline (not waited for)
//   -> nominatedNodeName -> PodGroup status -> Queue status -> Events (queued)
//
// Safety rules, each with the reply that triggers it:
//   - A pod is bound once. A pod with spec.nodeName is bound already (the
//     session never places it again, also after a restart of basalt). A pod we
//     sent a bind for is *assumed* bound from that moment — while the request
//     is on the wire and then until the informer shows it — so neither a
//     cycle that starts before the reply nor a lagging watch can bind it
//     again. A 409 on binding is never retried: the pod is re-read (GET) and
//     taken as it is on the server. A bind that got no verdict (no reply, 5xx
//     after the client's retries) releases the pod to the next sessions after
//     a backoff that doubles with each failure; if it did land, the next
//     attempt is answered 409 "already assigned".
//   - An eviction refused by a disruption budget (429) is reported (metric,
//     Warning event) and not lost: the next session decides again, and the
//     call is repeated once the server's Retry-After has passed.
//   - PodGroup status is written with one JSON merge patch of `status` when
//     it changed (no read first: the patch touches nothing else).
//     Queue status is a merge patch on queues/NAME/status.
//   - Any other API failure (5xx after the client's retries, 403) is counted
//     and logged, never fatal: the next cycle starts from the informers' view.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "framework/snapshot_cache.h"
#include "kube/client.h"
#include "kube/metrics.h"
#include "live/bind_pipeline.h"
#include "live/event_writer.h"
#include "live/status_writer.h"
#include "live/volcano_metrics.h"
#include "state/cluster_state.h"

namespace basalt {

struct ServeLoopOptions {
  std::string scheduler_name = "volcano";
  std::string reporting_instance = "basalt";
  // Binds on the wire at once (each worker keeps its own kept-alive connection).
  int bind_parallelism = 128;
  // Status writes (PodGroup and Queue status, pod conditions) on the wire at
  // once; they wait while binds wait for a worker.
  int status_parallelism = 4;
  // A bind that got no verdict keeps its pod out of the sessions for this
  // long, doubling with each further failure up to `bind_backoff_max`.
  std::chrono::milliseconds bind_backoff_initial{1000};
  std::chrono::milliseconds bind_backoff_max{60000};
  // How long a bind or eviction we made is assumed while the informer has not
  // shown it yet.
  std::chrono::seconds assume_ttl{120};
  // The same event (object, reason, message) is not repeated within this time.
  std::chrono::seconds event_repeat{300};
  bool write_events = true;
  // True once the process is told to stop: the cycle in progress sends no
  // more writes (what is on the wire finishes). Null: never.
  std::function<bool()> stopping;
};

// What one cycle did (also in the metrics).
struct CycleSummary {
  int64_t cycle = 0;
  int binds_sent = 0;      // handed to the bind pipeline this cycle
  int binds_deferred = 0;  // decided, but the pod's bind backoff has not passed
  // Answers collected this cycle (for binds sent this cycle or before):
  int binds = 0;           // 201
  int bind_conflicts = 0;  // 409 / 404 on binding: re-read, not retried
  int bind_failures = 0;   // no verdict: the pod goes back to the sessions after a backoff
  int evictions = 0;
  int evictions_blocked = 0;   // 429 from a disruption budget
  int evictions_deferred = 0;  // decided again before Retry-After passed
  int podgroup_writes = 0;
  int queue_writes = 0;
  int events = 0;
  int api_failures = 0;
  int pending = 0;  // pods of ours still without a node after the cycle
  double seconds = 0;
  std::vector<std::string> errors;
};

// Declares the metric families the loop updates (idempotent).
void DeclareServeMetrics(kube::Metrics& metrics);

class ServeLoop {
 public:
  // `state` is guarded by `state_mu` (the informers' StateSink mutex).
  ServeLoop(kube::Client* client, ClusterState* state, std::mutex* state_mu, kube::Metrics* metrics,
            kube::Clock* clock, ServeLoopOptions options);
  ~ServeLoop();

  // Parses `conf_text` (empty: Volcano's default) and builds its actions and
  // plugins once to check them. On error the previous configuration stays.
  Status Configure(const std::string& conf_text, const std::string& source);

  // One cycle. Never throws; failures are in the summary and the metrics.
  // Returns once the decisions are handed out: binds are still on the wire.
  CycleSummary RunCycle();

  // Waits (at most `limit`) until every bind sent has been answered and
  // collects the answers as the next cycle would (tests, and the last words
  // before a shutdown).
  CycleSummary AwaitBinds(std::chrono::milliseconds limit);
  // Stops taking work: binds not yet sent are dropped (they never reached
  // the server), those on the wire get until `limit`, queued events too;
  // then `cut_off` is called (it makes the transport abort what is left) and
  // the workers are joined.
  void Shutdown(std::chrono::milliseconds limit, const std::function<void()>& cut_off = {});
  size_t binds_in_flight() { return binder_->InFlight(); }
  bool binds_waiting() { return binder_->Waiting() > 0; }

  // Learns what the server holds of the objects the loop writes (a PodGroup's
  // status), so a restarted basalt does not rewrite what is already there,
  // and when a pending pod of ours was first seen (Volcano's "Watched"
  // stage). Called by the informers' sink observer, under the store's lock,
  // with the store as it was before the object is applied.
  void ObserveObject(const std::string& kind, bool deleted, const std::string& key,
                     const nlohmann::json& object, const ClusterState& before);

  int64_t cycles() const { return cycle_; }
  // Assumed binds not yet shown by the informers (for tests).
  size_t assumed() const { return assumed_.size(); }

 private:
  struct Assumed {
    std::string uid;
    std::string node;  // a bind; empty for an eviction
    bool evicted = false;
    std::chrono::steady_clock::time_point since;
    bool on_the_wire = false;  // a bind sent and not answered yet: no TTL
  };
  struct PodInfo {
    std::string uid;
    std::string nominated;
    bool has_node = false;
    int64_t created = 0;  // metadata.creationTimestamp, seconds since the epoch
  };
  void ApplyAssumedLocked(std::chrono::steady_clock::time_point now);
  void SendBinds(const std::vector<BindDecision>& binds, const std::map<std::string, PodInfo>& pods,
                 CycleSummary* sum);
  void CollectBindAnswers(CycleSummary* sum);
  void WritePodGroupStatus(const std::map<std::string, nlohmann::json>& desired, CycleSummary* sum);
  void ApplyEvictions(const std::vector<EvictDecision>& evictions,
                      const std::map<std::string, PodInfo>& pods, CycleSummary* sum);
  void Event(const std::string& object, const std::string& uid, const std::string& type,
             const std::string& reason, const std::string& action, const std::string& message,
             CycleSummary* sum);
  void Fail(const kube::ApiError& e, CycleSummary* sum);
  bool Stopping() const { return options_.stopping && options_.stopping(); }
  struct PendingPod {
    std::string key, uid, group;  // group: "ns/name", empty when none yet
    int64_t created = 0;
  };
  // What the session said of why pods and groups stay unplaced: its
  // FailedScheduling events by pod, its Unschedulable events by PodGroup.
  struct SessionReasons {
    std::map<std::string, std::string> pod, group;
    static SessionReasons Of(const Decisions& d);
  };
  void ReportUnschedulable(const std::vector<PendingPod>& pending, const Decisions& d,
                           const SessionReasons& reasons, int64_t now, CycleSummary* sum);
  // Volcano's per-placement families for the session's binds and pipelined
  // tasks; the store's lock is held.
  void RecordPlacementsLocked(const Decisions& d);
  // A pod just seen by the informers: Volcano's "Watched" stage when it is
  // ours and has no node.
  void ObserveNewPod(const nlohmann::json& pod);

  kube::Client* client_;
  ClusterState* state_;
  std::mutex* state_mu_;
  kube::Metrics* metrics_;
  VolcanoSchedulerMetrics volcano_metrics_;  // Volcano's names, beside basalt's own
  kube::Clock* clock_;
  ServeLoopOptions options_;
  PluginRegistry plugins_;
  ActionRegistry actions_registry_;
  std::unique_ptr<SchedulerConfig> conf_;
  std::vector<std::unique_ptr<Action>> actions_;
  // The previous cycle's snapshot, patched by the next cycle (the informers
  // record what changed in the store's journal).
  SnapshotCache snapshot_cache_;
  int64_t cycle_ = 0;
  std::map<std::string, Assumed> assumed_;
  struct BindBackoff {
    int failures = 0;
    std::chrono::steady_clock::time_point until;
  };
  std::map<std::string, BindBackoff> bind_backoff_;  // pod -> after a bind without verdict
  std::unique_ptr<BindPipeline> binder_;
  std::unique_ptr<EventWriter> events_;
  std::map<std::string, std::chrono::steady_clock::time_point> blocked_until_;
  struct SentEvent {
    std::string message;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, SentEvent> sent_events_;  // "object|reason"
  std::unique_ptr<StatusWriter> status_;
  std::map<std::string, std::set<std::string>> queue_resources_stated_;  // queue -> resources
  std::set<std::string> podgroups_described_;                            // keys given a status
  std::map<std::string, std::string> podgroup_on_server_;  // key -> its status there (*state_mu_)
  std::set<std::string> pods_described_unschedulable_;     // pod keys given PodScheduled=False
};

}  // namespace basalt
