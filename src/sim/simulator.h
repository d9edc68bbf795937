// The discrete-event cluster simulator behind `basalt simulate`.
//
// Time is simulated seconds from 0 to `scenario.duration`; nothing reads the
// wall clock and the only randomness is one `std::mt19937_64` seeded from the
// scenario (or `--seed`), so one seed gives byte-identical outputs.
//
// Events sit in one queue ordered by (time, kind, sequence number):
//
//   kind 0  node events (fail / recover / drain)
//   kind 1  completions (a training job that ran its duration, a trace pod)
//   kind 2  trace deletions (DLRM instances)
//   kind 3  inference replica changes (the tide curve, every `step`)
//   kind 4  arrivals (training vcjobs, trace pods)
//
// Every `period` seconds (t = period, 2·period, ...), after the events up to
// and including t, one scheduling cycle runs through `CycleRunner` (snapshot,
// actions, decisions applied), then its world step (bound pods Running,
// evicted pods gone, controllers react), then the simulator's own controllers:
// each inference ReplicaSet tops its replicas back up, training jobs whose gang
// is complete start their clock (a job that loses its gang loses its progress),
// and gang violations are counted. Metrics are sampled at every multiple of
// `metrics_interval` after that step.
//
// A cycle's session is skipped when nothing changed since the last one: no
// event was applied since, and the last cycle changed nothing in the store (its
// session bound, evicted, nominated nothing and wrote no new PodGroup phase or
// queue allocation; its world step deleted and started no pod; the controllers
// and ReplicaSets created, deleted and re-phased nothing). The skipped session
// would see the same store as the last one and decide the same nothing, so
// the outputs are byte-identical (`SimulatorOptions::skip_idle_cycles` turns
// the shortcut off; a test compares both). The world step still runs while
// Running pods count down their steps. With a plugin that reads the session
// clock (sla, rescheduling) no session is skipped. `cycles.skipped_idle` in
// the summary counts the skipped sessions.
//
// The simulator's own bookkeeping is incremental: ReplicaSets are reconciled
// only when their desired count changed or one of their pods went; waits are
// checked only for pods still waiting; a job's pods are found by name; the
// whole store is scanned only for a metrics sample.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/limits.h"
#include "api/status.h"
#include "engine/cycle_runner.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "sim/idle_reasons.h"
#include "sim/metrics.h"
#include "sim/placement_quality.h"
#include "sim/scenario.h"
#include "sim/traces.h"
#include "state/cluster_state.h"

namespace basalt {

struct SimulatorOptions {
  std::optional<uint64_t> seed;  // overrides the scenario's seed
  // Called about every 1 % of simulated time with (now, duration); may be empty.
  std::function<void(int64_t, int64_t)> progress;
  // Skip cycles that would change nothing (see above). Off only to prove that
  // the shortcut does not change the outputs.
  bool skip_idle_cycles = true;
  // Caps on the simulated cluster (`--max-nodes`, `--max-job-pods`, ...; api/limits.h).
  InputLimits limits;
};

class Simulator {
 public:
  // Validates the scheduler configuration, builds the cluster and loads the
  // traces; every user error comes back here, before any time passes.
  static Result<std::unique_ptr<Simulator>> Create(Scenario scenario, SimulatorOptions options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Runs to the end of the scenario. Fails only if a cycle fails.
  Status Run();

  const MetricsRecorder& metrics() const { return metrics_; }
  const Scenario& scenario() const { return scenario_; }
  uint64_t seed() const { return seed_; }
  const ClusterState& state() const { return state_; }
  // Placements of the training gangs; null without a `topology` section.
  const PlacementQuality* placement() const { return placement_.get(); }

 private:
  enum Kind : int { kNodeEvent = 0, kCompletion = 1, kTraceDelete = 2, kScale = 3, kArrival = 4 };
  struct Event {
    int64_t t = 0;
    int kind = 0;
    uint64_t seq = 0;
    // Payload: which workload / node event / trace pod / job.
    int64_t index = 0;
    std::string key;
    int64_t epoch = 0;
    bool operator>(const Event& o) const {
      return std::tie(t, kind, seq) > std::tie(o.t, o.kind, o.seq);
    }
  };
  struct JobTrack {
    std::string queue;
    int32_t min_available = 0;
    int64_t arrived = 0;
    int64_t duration = 0;
    bool running = false;  // the gang is complete and its clock runs
    bool ever_started = false;
    int64_t epoch = 0;  // bumped when the gang breaks: stale completions are ignored
  };
  struct TracePodTrack {
    std::string queue;
    int64_t arrived = 0;
    int64_t run_for = 0;
    bool started = false;
  };
  struct Deployment {
    std::set<std::string> pods;  // pod keys; names carry a zero-padded sequence -> creation order
    int32_t desired = 0;
    int64_t next_seq = 0;
  };

  Simulator(Scenario scenario, SimulatorOptions options);
  Status Init();
  void Push(int64_t t, Kind kind, int64_t index, std::string key = "", int64_t epoch = 0);
  void Apply(const Event& e);
  void ApplyNodeEvent(const NodeEvent& e);
  void EvictPod(const std::string& key, const std::string& cause);
  // Marks the ReplicaSet owning `pod_key` (if any) for reconciliation.
  void TouchDeploymentOf(const std::string& pod_key);
  // Returns whether pods were created.
  bool ReconcileDeployment(size_t index);
  // `full`: the store may have changed since the last call (a cycle ran);
  // otherwise only a due metrics sample is taken.
  void AfterWorldStep(bool full);
  void TrackStarts();
  void TrackJobs();
  // Jobs from the scenario's manifests (vcjobs, and those a JobFlow creates):
  // counted as submitted when first seen, as completed when Completed.
  void TrackManifestJobs();
  void Sample();
  IdleSnapshot IdleNow(const std::map<std::string, int64_t>& queue_gpu_milli) const;
  void CompleteJob(const std::string& key);
  // Colocation (sim/colocation.h): the agents' model, built when the scenario
  // has the section, and its periods up to `t` (`inclusive`: at `t` too).
  Status InitColocation(const std::set<std::string>& workloads);
  void RunAgentsUntil(int64_t t, bool inclusive);
  // Job phases, versions and retry counts (changes the store's generation
  // counter does not see).
  uint64_t JobsFingerprint() const;
  // The scenario's `topology` section: its HyperNodes are in the store; checks
  // the jobs' constraints against them and starts recording placements.
  Status InitTopology();

  Scenario scenario_;
  SimulatorOptions options_;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  ClusterState state_;
  PluginRegistry plugins_;
  ActionRegistry actions_;
  SchedulerConfig conf_;
  std::unique_ptr<CycleRunner> runner_;
  MetricsRecorder metrics_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t next_event_seq_ = 0;
  int64_t now_ = 0;
  bool dirty_ = true;         // an event was applied since the last cycle
  bool changed_last_ = true;  // the last cycle changed the store
  bool clock_sensitive_ =
      false;  // a configured plugin reads the session clock (Plugin::ReadsClock)

  std::map<std::string, int32_t> priority_values_;
  std::vector<int64_t> training_seq_;
  std::map<std::string, JobTrack> jobs_;  // active training jobs by key
  std::vector<Deployment> deployments_;
  std::vector<char> deployment_dirty_;
  std::map<std::string, size_t> pod_deployment_;  // inference pod key -> deployment index
  std::vector<std::vector<TracePod>> trace_pods_;
  std::map<std::string, TracePodTrack> trace_tracks_;
  std::set<std::string> unstarted_traces_;        // trace pods with a run time, not yet Running
  std::map<std::string, int64_t> pending_since_;  // inference / trace pod key -> creation second
  std::map<std::string, std::string> pod_queue_;  // inference / trace pod key -> queue (for waits)
  std::map<std::string, std::string> card_model_of_node_;
  std::set<std::string> inference_queues_, training_queues_;
  std::unique_ptr<ColocationModel> colocation_;
  int64_t next_agent_t_ = 0;
  std::unique_ptr<PlacementQuality> placement_;
  int32_t default_topology_tier_ = 0;  // the highest HyperNode tier
  int64_t total_gpu_capacity_ = 0;     // milli-GPUs of all nodes at the start
  std::set<std::string> manifest_jobs_seen_, manifest_jobs_completed_;
};

}  // namespace basalt
