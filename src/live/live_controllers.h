// The controllers of `basalt serve`: the vcjob, PodGroup, Queue and JobFlow
// controllers of `basalt schedule` and `simulate` (controllers/), run by the
// leader on the informers' store, their changes written to the API server.
//
// One pass (`Sync`, once per scheduling period, before the session):
//
//   under the store's lock:
//     react to what the informers saw since the last pass, as the world step
//     of the offline front ends does: a pod gone (OnPodDeleted), a pod whose
//     phase changed (OnPodPhaseChanged); run the Commands; sync the vcjob,
//     job plugin, PodGroup and Queue controllers — with a change observer on
//     the store recording which pods and PodGroups they create, change or
//     delete; then collect the writes:
//       pod / PodGroup new (no uid yet)   -> create (POST)
//       pod / PodGroup the server has,
//         gone from the store             -> delete (uid precondition)
//       pod annotations changed           -> merge patch
//       vcjob status changed              -> merge patch on jobs/NAME/status
//       vcjob deleted (TTL)               -> delete
//       queue state or PodGroup counts
//         changed                         -> merge patch on queues/NAME/status
//       Command run                       -> delete
//       job plugin object new / gone      -> create / delete
//       svc host ConfigMap data changed   -> merge patch (scaling)
//       JobFlow: a flow's job due         -> create (POST jobs), from the
//                                            JobTemplate's JSON as stored
//       JobFlow status changed            -> merge patch on jobflows/NAME/status
//       CronJob: a job due                -> create (POST jobs) from the
//                                            template as stored; history
//                                            limits, Replace -> delete
//       CronJob status changed            -> merge patch on cronjobs/NAME/status
//       vcjob action started or put off   -> create (POST events, core/v1) an
//                                            ExecuteAction event on the job
//   without the lock: the writes — one object's in that order, different
//   objects' side by side (up to 16 on the wire).
//
// The JobFlow controller (live/live_jobflow.cc) never puts the jobs it creates
// into the store: the informers bring them in, so the vcjob controller sees
// them exactly as the server has them. A flow's job is created once: not
// while the job exists, nor while its create is on its way, nor once the
// flow's status lists it (jobStatusList outlives the job, and survives a
// restart of basalt).
//
// Idempotence: the store is the informers' picture of the server, so a write
// that has not been seen back yet would be made again by the next pass. A
// create answered 409 AlreadyExists adopts the object; a delete answered 404
// is done; a delete or patch is not repeated while it is still "in flight"
// (sent, not yet seen back, younger than `in_flight_ttl`). A create is asked
// for only when a controller makes the object (again), and always sent. Writes go through the
// writes client, fenced by the lease (kube/leader.h): a replica that lost the lease writes nothing.
// A create that fails otherwise removes the controller's local object, so the store keeps matching
// the server and the next pass tries again.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"
#include "controllers/podgroup_controller.h"
#include "controllers/queue_controller.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/metrics.h"
#include "state/cluster_state.h"

namespace basalt {

using Json = nlohmann::json;

struct LiveControllerOptions {
  std::set<std::string> scheduler_names = {"volcano"};
  // How long a write is assumed on its way before the next pass may repeat it.
  std::chrono::seconds in_flight_ttl{30};
};

// What one pass wrote (also counted in the metrics).
struct ControllerPassSummary {
  int creates = 0;
  int deletes = 0;
  int updates = 0;
  int adopted = 0;  // create answered 409: already there
  int failures = 0;
  std::vector<std::string> errors;
};

class LiveControllers {
 public:
  // `sink` feeds `state` (guarded by `sink->mutex()`); the controllers watch
  // it through the sink's apply observer, which this constructor sets.
  LiveControllers(kube::Client* client, ClusterState* state, kube::StateSink* sink,
                  kube::Metrics* metrics, LiveControllerOptions options);

  // One pass at wall time `now` (seconds since the epoch). The leader only.
  // The bookkeeping of bare pods — their PodGroup `podgroup-*` creates and
  // group-name annotations — is kept back for `ApplyDeferred` (the store has
  // both already, so the session schedules those pods without waiting).
  ControllerPassSummary Sync(int64_t now);
  // Sends what the passes kept back, oldest first: one slice, then more
  // while `budget` lasts (the rest waits for the next call); called once the cycle's binds are on
  // their way, so a burst of new pods is bound before it is annotated.
  ControllerPassSummary ApplyDeferred(std::chrono::milliseconds budget);
  // Not leading: forgets what the informers reported (a new leader starts
  // from the store as it is).
  void Idle();

 private:
  struct Write {
    enum class Verb { kCreate, kDelete, kMergePatch } verb;
    std::string kind;  // "Pod", "PodGroup", ... (metrics, logs, in-flight keys)
    std::string key;   // "ns/name"
    std::string path;  // collection path for a create, object path otherwise
    Json body;
    std::string uid;  // delete precondition
  };
  // Under the sink's lock, from the informers' thread.
  void OnApplied(const std::string& kind, bool deleted, const std::string& key, const Json& object,
                 const ClusterState& before);
  void ReactToInformers(int64_t now);
  void ObservePodCreated(const Write& w, const std::string& reply);
  void RunCommands(int64_t now, std::vector<Write>* writes);
  void CollectPodWrites(const std::map<std::string, Pod>& before, std::vector<Write>* writes);
  void CollectPodGroupWrites(const std::map<std::string, PodGroup>& before,
                             const std::map<std::string, Pod>& pods_before,
                             std::vector<Write>* writes);
  void CollectJobWrites(std::vector<Write>* writes);
  void CollectQueueWrites(std::vector<Write>* writes);
  void CollectPluginObjectWrites(std::vector<Write>* writes);
  void CollectJobEventWrites(int64_t now, std::vector<Write>* writes);
  // live/live_jobflow.cc. Under the lock, inside the change observer's window
  // (jobRetainPolicy `delete` drops the jobs' pods and PodGroups).
  void SyncJobFlows(int64_t now, std::vector<Write>* writes);
  bool TargetsCompletedOnServer(const JobFlow& flow, const Flow& f) const;
  // live/live_cronjob.cc. Under the lock, inside the change observer's window
  // (deleted jobs drop their pods and PodGroups).
  void SyncCronJobs(int64_t now, std::vector<Write>* writes);
  bool InFlight(const std::string& id, std::chrono::steady_clock::time_point now) const;
  void Apply(std::vector<Write> writes, ControllerPassSummary* sum);
  kube::ApiOr<kube::HttpResponse> Send(const Write& w);
  void Record(const Write& w, const std::string& id, const kube::ApiOr<kube::HttpResponse>& r,
              std::chrono::steady_clock::time_point now, ControllerPassSummary* sum);
  void DropLocalObject(const Write& w);

  kube::Client* client_;
  ClusterState* state_;
  kube::StateSink* sink_;
  kube::Metrics* metrics_;
  LiveControllerOptions options_;
  JobController jobs_;
  JobPluginController job_plugins_;
  PodGroupController podgroups_;
  QueueController queues_;

  // Filled by the informers (under the sink's lock).
  std::vector<Pod> deleted_pods_;
  std::vector<std::pair<std::string, std::string>> phase_changes_;  // pod key, old phase
  std::map<std::string, Json> job_objects_;                         // vcjobs as the server has them
  std::map<std::string, Json> queue_status_;                        // the server's queue status
  std::map<std::string, Json> flow_objects_;      // JobFlows as the server has them
  std::map<std::string, Json> template_objects_;  // JobTemplates as the server has them
  std::map<std::string, Json> cron_objects_;      // CronJobs as the server has them

  // Only the pass's thread.
  std::vector<Write> deferred_;  // bare pods' bookkeeping, for ApplyDeferred
  static constexpr size_t kDeferredSlice = 32;
  std::map<std::string, std::chrono::steady_clock::time_point> in_flight_;
  std::set<std::string> plugin_objects_;  // "Kind/ns/name" created by us
  uint64_t last_event_nanos_ = 0;         // the name of the last job event written
  // "ConfigMap/ns/name" -> the data we last wrote (absent: unknown, e.g. adopted).
  std::map<std::string, Json> config_map_data_;
  // Jobs of JobFlows sent (POST answered 201 or 409), not yet seen by the
  // informers: "ns/name" -> when.
  std::map<std::string, std::chrono::steady_clock::time_point> flow_job_creates_;
  // Jobs of CronJobs sent, not yet seen by the informers: "ns/name" -> when.
  std::map<std::string, std::chrono::steady_clock::time_point> cron_job_creates_;
  // Jobs of JobFlows: "ns/name" -> {phase, when first seen in it} (runningHistories).
  std::map<std::string, std::pair<std::string, std::string>> flow_job_phase_times_;
};

}  // namespace basalt
