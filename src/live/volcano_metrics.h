// Volcano v1.15.1's metric families, exported by `basalt serve` beside its
// own `basalt_*` ones so that Volcano's Grafana dashboards and alerts work
// unchanged (docs/metrics.md). Same names, types, label names and histogram
// bucket bounds as Volcano's registry writes them; every value is one of
// basalt's own measurements. What basalt cannot measure is not exported at
// all (never a constant): the list and the reasons are in docs/metrics.md.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/session_stats.h"
#include "kube/metrics.h"
#include "state/cluster_state.h"

namespace basalt {

// The stage names Volcano labels its per-task histograms with.
namespace volcano_stage {
inline constexpr const char* kWatched = "Watched";
inline constexpr const char* kAssumed = "Assumed";
inline constexpr const char* kPreBound = "PreBound";
inline constexpr const char* kBound = "Bound";
inline constexpr const char* kPreBind = "PreBind";
inline constexpr const char* kBind = "Bind";
}  // namespace volcano_stage

// Bucket bounds of Volcano's histograms: what Prometheus' Go client returns
// for ExponentialBucketsRange(min, max, count) and ExponentialBuckets(start,
// factor, count), bit for bit (see VolcanoBuckets in volcano_metrics.cc).
std::vector<double> VolcanoBuckets(const std::string& layout);

// The scheduler's families (serve loop).
void DeclareVolcanoSchedulerMetrics(kube::Metrics& m);
// The controller manager's families (live controllers).
void DeclareVolcanoControllerMetrics(kube::Metrics& m);

// Milliseconds from a pod's or job's creation (seconds since the epoch, as
// metadata.creationTimestamp has it) to `now_seconds`; never negative.
double MillisecondsSince(int64_t created, double now_seconds);
// The wall clock, seconds since the epoch.
double WallSeconds();

// Feeds the scheduler's families from one serve cycle. Keeps which job and
// queue series exist so that those of deleted objects go away, as Volcano
// deletes them when the object leaves its cache.
class VolcanoSchedulerMetrics {
 public:
  explicit VolcanoSchedulerMetrics(kube::Metrics* metrics);

  void ObserveAction(const std::string& action, double seconds);
  // A session's own timings (`e2e_seconds`: open, actions and close) and
  // what its plugins and actions reported.
  void ObserveSession(const SessionStats& stats, double e2e_seconds);
  // A pod of ours reached `stage` at `now_seconds`.
  void ObserveTaskStage(const char* stage, int64_t pod_created, double now_seconds);
  void ObserveStageDuration(const char* stage, double seconds);
  // A task of the job was placed (bound or pipelined) by the session.
  void JobTaskPlaced(const PodGroup& group, const std::string& queue, double now_seconds);
  // Pods of ours the session placed, left pending, or whose bind came back
  // without a verdict.
  void CountAttempts(const char* result, int64_t n);
  // Per cycle, from the store: a new PodGroup's start time; the series of
  // jobs that are gone removed.
  void SyncJobs(const ClusterState& state, const std::string& default_queue);

 private:
  void SetQueueGauges(const std::map<std::string, QueueReport>& queues);
  void SetResourceGauges(const std::string& quantity, const std::string& queue,
                         const ResourceFigures& figures);
  void SetGangGauges(const SessionStats& stats);

  kube::Metrics* m_;
  // Scalar resources each queue has shown under each `*_scalar_resources`
  // family: one that is no longer there reads 0, as in Volcano.
  std::map<std::string, std::map<std::string, std::set<std::string>>> known_scalars_;
  // The per-job series by PodGroup key "ns/name": labels {name, queue,
  // namespace} and the creation time they were written for.
  struct JobSeries {
    std::vector<std::string> labels;
    int64_t created = 0;
  };
  std::map<std::string, JobSeries> job_series_;
  std::set<std::string> gang_series_;   // job names with unschedule_task_count / retries
  std::set<std::string> share_series_;  // "ns/name" with a job_share series
};

// The controller manager's: latency from a Volcano Job's creation to one of
// its pods' creation (both as the API server stamped them).
void ObserveJobToPodCreation(kube::Metrics& m, int64_t job_created, int64_t pod_created);

// Volcano's queue controller gauges: PodGroups per phase in each queue, as the
// store holds them.
void SetQueuePodGroupCounts(kube::Metrics& m, const ClusterState& state,
                            const std::string& default_queue);

}  // namespace basalt
