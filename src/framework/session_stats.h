// SessionStats: what one session measured about itself and what its plugins
// and actions reported for operators. `basalt serve` exports it under
// Volcano's metric names (live/volcano_metrics.h).
//
// Observation is opt-in per thread: while a SessionStatsScope is open, the
// sessions this thread runs record into its SessionStats (the session its
// timings, proportion/capacity/gang/drf their values at close, preempt its
// attempts); with none open, ActiveSessionStats() is null and nothing is
// recorded or copied. The session's interface stays what every front end
// compiles against, and filling the stats never changes a decision: they hold
// wall-clock timings and copies of values the plugins computed anyway.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/resource.h"

namespace basalt {

// A resource vector in the units Volcano's queue gauges use: cpu in
// millicores, memory in bytes, every other resource in thousandths of its
// unit (one GPU is 1000), `pods` left out.
struct ResourceFigures {
  double milli_cpu = 0;
  double memory = 0;
  std::map<std::string, double> scalars;
};

inline ResourceFigures FiguresOf(const Resource& r) {
  ResourceFigures f;
  f.milli_cpu = static_cast<double>(r.milli_cpu());
  f.memory = static_cast<double>(r.memory());
  for (const auto& [id, v] : r.scalars()) {
    if (id != ResourceNames::kPods) f.scalars[ResourceNames::Name(id)] = static_cast<double>(v);
  }
  return f;
}

// One queue as the fairness plugin (proportion or capacity) saw it when the
// session closed; a field the plugin does not compute stays empty.
struct QueueReport {
  std::optional<ResourceFigures> allocated, request, deserved, capability, real_capability;
  std::optional<double> share;
  std::optional<int32_t> weight;
  std::optional<bool> overused;
};

// One job as the gang plugin judged it at close.
struct GangReport {
  std::string name;  // the PodGroup's name (Volcano labels these series by name alone)
  int32_t unready_tasks = 0;
  bool ready = true;
};

struct PluginTiming {
  std::string plugin;
  double seconds = 0;
};

struct SessionStats {
  // Wall time of taking the snapshot (patched from the cache, or built).
  double snapshot_seconds = 0;
  // Wall time of Session::Open: the snapshot, the indexes over it, every
  // plugin's OnSessionOpen.
  double open_seconds = 0;
  // Each configured plugin's OnSessionOpen and OnSessionClose, in order.
  std::vector<PluginTiming> plugin_open, plugin_close;

  // From proportion or capacity (OnSessionClose), by queue name.
  std::map<std::string, QueueReport> queues;
  // From gang (OnSessionClose): every job with at least one task.
  bool gang_reported = false;
  std::vector<GangReport> gangs;
  // From drf: each job's dominant share at close, by "namespace/name".
  std::map<std::string, double> job_shares;
  // From preempt: preemptors that looked for victims, and the size of the
  // last victim vote (Volcano keeps the last one as a gauge).
  int64_t preemption_attempts = 0;
  std::optional<int64_t> last_preemption_victims;
};

namespace session_stats_internal {
inline thread_local SessionStats* active = nullptr;
}  // namespace session_stats_internal

// The stats the sessions of this thread record into; null when none is open.
inline SessionStats* ActiveSessionStats() { return session_stats_internal::active; }

// Opens observation for the sessions this thread runs during its lifetime
// (scopes nest: the inner one wins until it closes).
class SessionStatsScope {
 public:
  explicit SessionStatsScope(SessionStats* stats) : previous_(session_stats_internal::active) {
    session_stats_internal::active = stats;
  }
  ~SessionStatsScope() { session_stats_internal::active = previous_; }
  SessionStatsScope(const SessionStatsScope&) = delete;
  SessionStatsScope& operator=(const SessionStatsScope&) = delete;

 private:
  SessionStats* previous_;
};

}  // namespace basalt
