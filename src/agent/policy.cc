#include "agent/policy.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace basalt::agent {

int64_t Oversold(int64_t online_requested, int64_t online_used, int margin_percent) {
  int64_t margin = online_requested * margin_percent / 100;
  return std::max<int64_t>(0, online_requested - online_used - margin);
}

bool ShouldReport(const ReportPolicy& policy, std::optional<int64_t> last_value,
                  int64_t last_at_nanos, int64_t value, int64_t now_nanos) {
  if (!last_value) return true;
  if (value == *last_value) return false;
  if (now_nanos - last_at_nanos < policy.min_interval_nanos) return false;
  if (value == 0 || *last_value == 0) return true;
  int64_t change = std::llabs(value - *last_value);
  int64_t threshold =
      std::max(*last_value * policy.material_percent / 100, policy.material_absolute);
  return change >= threshold;
}

void LastOversoldReport::Record(const OversoldFigures& figures, int64_t now_nanos) {
  cpu_milli = figures.cpu_milli;
  memory_bytes = figures.memory_bytes;
  cpu_at_nanos = memory_at_nanos = now_nanos;
}

std::optional<OversoldFigures> OversoldReportDue(const OversoldPolicy& policy,
                                                 const LastOversoldReport& last,
                                                 const OnlineDemand& demand, int64_t now_nanos) {
  OversoldFigures f;
  f.cpu_milli =
      Oversold(demand.cpu_requested_milli, demand.cpu_peak_milli, policy.cpu_margin_percent);
  f.memory_bytes = Oversold(demand.memory_requested_bytes, demand.memory_peak_bytes,
                            policy.memory_margin_percent);
  const bool cpu_due =
      ShouldReport(policy.cpu_report, last.cpu_milli, last.cpu_at_nanos, f.cpu_milli, now_nanos);
  const bool memory_due = ShouldReport(policy.memory_report, last.memory_bytes,
                                       last.memory_at_nanos, f.memory_bytes, now_nanos);
  if (!cpu_due && !memory_due) return std::nullopt;
  if (!cpu_due) f.cpu_milli = *last.cpu_milli;
  if (!memory_due) f.memory_bytes = *last.memory_bytes;
  return f;
}

std::vector<std::string> PickEvictionVictims(std::vector<EvictionCandidate> candidates,
                                             int64_t node_used, int64_t capacity,
                                             const Watermarks& watermarks) {
  std::vector<std::string> victims;
  if (capacity <= 0) return victims;
  auto percent_times_capacity = [&](int percent) { return capacity * percent; };
  int64_t used = node_used;
  for (const auto& c : candidates) {
    if (c.leaving) used -= c.usage;
  }
  if (used * 100 < percent_times_capacity(watermarks.high_percent)) return victims;
  std::erase_if(candidates,
                [](const EvictionCandidate& c) { return c.leaving || IsOnline(c.level); });
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    // Lowest priority, then the newest start (least work lost), then the key.
    return std::tie(a.priority, b.start_time, a.key) < std::tie(b.priority, a.start_time, b.key);
  });
  for (const auto& c : candidates) {
    if (used * 100 < percent_times_capacity(watermarks.low_percent)) break;
    victims.push_back(c.key);
    used -= c.usage;
  }
  return victims;
}

ThrottleDecision DecideThrottle(const ThrottlePolicy& policy, bool engaged_before,
                                int64_t online_used_milli, int64_t capacity_milli) {
  ThrottleDecision d;
  int64_t online_percent_x100 = online_used_milli * 100;
  d.engaged = engaged_before ? online_percent_x100 >= capacity_milli * policy.release_percent
                             : online_percent_x100 >= capacity_milli * policy.engage_percent;
  if (!d.engaged) return d;
  int64_t budget = capacity_milli * policy.budget_percent / 100 - online_used_milli;
  d.be_budget_milli = std::max(budget, policy.min_be_milli);
  return d;
}

int64_t QuotaPerPod(int64_t budget_milli, int pods, int64_t period_us) {
  if (pods <= 0) pods = 1;
  int64_t quota = budget_milli * period_us / 1000 / pods;
  return std::max<int64_t>(quota, 1000);
}

}  // namespace basalt::agent
