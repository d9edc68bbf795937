// The scheduling loop of `basalt serve`: one session over the informers'
// ClusterState, then its decisions applied through the Kubernetes API.
//
//   lock the store -> re-apply what we did and the informers have not shown
//   yet (assumed binds and evictions) -> session (actions, close) -> unlock
//   -> evictions -> binds (bounded parallelism) -> nominatedNodeName
//   -> PodGroup status -> Queue status -> Events
//
// Safety rules, each with the reply that triggers it:
//   - A pod is bound once. A pod with spec.nodeName is bound already (the
//     session never places it again, also after a restart of basalt). A pod we
//     bound is *assumed* bound until the informer shows it, so a lagging watch
//     cannot make the next cycle bind it again. A 409 on binding is never
//     retried: the pod is re-read (GET) and taken as it is on the server.
//   - An eviction refused by a disruption budget (429) is reported (metric,
//     Warning event) and not lost: the next session decides again, and the
//     call is repeated once the server's Retry-After has passed.
//   - PodGroup status is written with the object's resourceVersion (PUT of the
//     whole object; the CRD has no /status); a 409 refetches and retries.
//     Queue status is a merge patch on queues/NAME/status.
//   - Any other API failure (5xx after the client's retries, 403) is counted
//     and logged, never fatal: the next cycle starts from the informers' view.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "framework/snapshot_cache.h"
#include "kube/client.h"
#include "kube/metrics.h"
#include "state/cluster_state.h"

namespace basalt {

struct ServeLoopOptions {
  std::string scheduler_name = "volcano";
  std::string reporting_instance = "basalt";
  int bind_parallelism = 4;
  // How long a bind or eviction we made is assumed while the informer has not
  // shown it yet.
  std::chrono::seconds assume_ttl{120};
  // The same event (object, reason, message) is not repeated within this time.
  std::chrono::seconds event_repeat{300};
  bool write_events = true;
};

// What one cycle did (also in the metrics).
struct CycleSummary {
  int64_t cycle = 0;
  int binds = 0;
  int bind_conflicts = 0;  // 409 / 404 on binding: re-read, not retried
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

  // Parses `conf_text` (empty: Volcano's default) and builds its actions and
  // plugins once to check them. On error the previous configuration stays.
  Status Configure(const std::string& conf_text, const std::string& source);

  // One cycle. Never throws; failures are in the summary and the metrics.
  CycleSummary RunCycle();

  int64_t cycles() const { return cycle_; }
  // Assumed binds not yet shown by the informers (for tests).
  size_t assumed() const { return assumed_.size(); }

 private:
  struct Assumed {
    std::string uid;
    std::string node;  // a bind; empty for an eviction
    bool evicted = false;
    std::chrono::steady_clock::time_point since;
  };
  struct PodInfo {
    std::string uid;
    std::string nominated;
    bool has_node = false;
  };
  void ApplyAssumedLocked(std::chrono::steady_clock::time_point now);
  void ApplyBinds(const std::vector<BindDecision>& binds,
                  const std::map<std::string, PodInfo>& pods, CycleSummary* sum);
  void ApplyEvictions(const std::vector<EvictDecision>& evictions,
                      const std::map<std::string, PodInfo>& pods, CycleSummary* sum);
  void Refresh(const std::string& pod_key, const std::string& uid);
  void Event(const std::string& object, const std::string& uid, const std::string& type,
             const std::string& reason, const std::string& action, const std::string& message,
             CycleSummary* sum);
  void Fail(const kube::ApiError& e, CycleSummary* sum);
  struct PendingPod {
    std::string key, uid, group;  // group: "ns/name", empty when none yet
    int64_t created = 0;
  };
  void ReportUnschedulable(const std::vector<PendingPod>& pending, const Decisions& d,
                           CycleSummary* sum);

  kube::Client* client_;
  ClusterState* state_;
  std::mutex* state_mu_;
  kube::Metrics* metrics_;
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
  std::map<std::string, std::chrono::steady_clock::time_point> blocked_until_;
  struct SentEvent {
    std::string message;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, SentEvent> sent_events_;  // "object|reason"
  std::map<std::string, std::map<std::string, std::string>>
      queue_written_;                                     // queue -> allocated we wrote
  std::map<std::string, std::string> podgroup_written_;   // key -> status JSON we wrote
  std::map<std::string, std::string> condition_written_;  // pod key -> PodScheduled message
};

}  // namespace basalt
