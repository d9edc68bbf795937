// The agent's decisions as pure functions: how much to oversell, whether a
// new figure is worth reporting, which BE pods to evict under pressure and
// how much CPU quota BE pods get. No I/O here, so each is tested by hand-worked
// numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/pod_qos.h"

namespace basalt::agent {

// Oversold amount of one resource:
//   requested - used - margin,  margin = requested x margin_percent / 100,
// never negative. `requested`: what the online pods request; `used`: what they
// used over the window (the agent passes the window's peak, so a burst inside
// the window is not lent out).
int64_t Oversold(int64_t online_requested, int64_t online_used, int margin_percent);

// Reporting only on material change, and not too often.
struct ReportPolicy {
  int64_t min_interval_nanos = 0;  // at least this long between two reports
  int material_percent = 10;       // a change smaller than this share of the last value is noise
  int64_t material_absolute = 0;   // ... unless it is at least this big
  bool operator==(const ReportPolicy&) const = default;
};
// True when `value` should be reported at `now`: nothing reported yet, or the
// interval has passed and |value - last| >= max(last x percent / 100, absolute)
// (a move to or from 0 always counts).
bool ShouldReport(const ReportPolicy& policy, std::optional<int64_t> last_value,
                  int64_t last_at_nanos, int64_t value, int64_t now_nanos);

// One period's oversubscription report: the two figures go to the Node together.
struct OversoldFigures {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
};
// What a node last reported, and when (nothing yet: both unset).
struct LastOversoldReport {
  std::optional<int64_t> cpu_milli, memory_bytes;
  int64_t cpu_at_nanos = 0, memory_at_nanos = 0;
  void Record(const OversoldFigures& figures, int64_t now_nanos);
};
// The margins and report policies of the two resources.
struct OversoldPolicy {
  int cpu_margin_percent = 10;
  int memory_margin_percent = 10;
  ReportPolicy cpu_report;
  ReportPolicy memory_report;
};
// What the online pods of a node request and used at their busiest in the window.
struct OnlineDemand {
  int64_t cpu_requested_milli = 0;
  int64_t cpu_peak_milli = 0;
  int64_t memory_requested_bytes = 0;
  int64_t memory_peak_bytes = 0;
};
// The figures to report at `now`: Oversold of each resource, or nothing when
// neither is due (ShouldReport); when only one is due, the other keeps its
// last reported value. The agent and the simulator's model of it both decide
// through this.
std::optional<OversoldFigures> OversoldReportDue(const OversoldPolicy& policy,
                                                 const LastOversoldReport& last,
                                                 const OnlineDemand& demand, int64_t now_nanos);

struct EvictionCandidate {
  std::string key;  // namespace/name
  QosLevel level = QosLevel::kBE;
  int32_t priority = 0;
  int64_t start_time = 0;  // seconds since the epoch
  int64_t usage = 0;       // of the resource under pressure
  // Asked to leave already: its usage counts as freed and it is not picked again.
  bool leaving = false;
};

struct Watermarks {
  int high_percent = 80;
  int low_percent = 30;
  bool operator==(const Watermarks&) const = default;
};

// The pods to evict when `node_used` of `capacity` is at or above the high
// watermark: BE pods only, lowest priority first, then most recently started,
// then by key; each counts its usage as freed (as does every candidate already
// leaving, before picking starts), and picking stops as soon as
// the node would be below the low watermark. Online pods are never picked,
// even if all BE pods together cannot bring the node down. Empty below the
// high watermark.
std::vector<std::string> PickEvictionVictims(std::vector<EvictionCandidate> candidates,
                                             int64_t node_used, int64_t capacity,
                                             const Watermarks& watermarks);

// CPU throttling of BE pods, with hysteresis: it engages when online usage
// reaches `engage_percent` of the node's CPU and lifts when it falls below
// `release_percent`. While engaged, BE pods share a budget of
//   capacity x budget_percent / 100 - online usage,  at least min_be_milli.
struct ThrottlePolicy {
  int engage_percent = 40;
  int release_percent = 20;
  int budget_percent = 80;
  int64_t min_be_milli = 100;
  bool operator==(const ThrottlePolicy&) const = default;
};
struct ThrottleDecision {
  bool engaged = false;
  int64_t be_budget_milli = -1;  // -1: unlimited
};
ThrottleDecision DecideThrottle(const ThrottlePolicy& policy, bool engaged_before,
                                int64_t online_used_milli, int64_t capacity_milli);
// A budget split evenly across `pods` BE groups, as a CFS quota per `period_us`
// (at least 1000 us, the kernel's minimum).
int64_t QuotaPerPod(int64_t budget_milli, int pods, int64_t period_us);

}  // namespace basalt::agent
