// tdm (time-division multiplexing): nodes labelled with a revocable zone
// (volcano.sh/revocable-zone) lend their capacity to preemptable pods during
// the zone's daily window and take it back outside it
// (docs/plugins/tdm.md; Volcano v1.15.1 pkg/scheduler/plugins/tdm).
//
// Arguments: tdm.revocable-zone.<zone>: "HH:MM-HH:MM" (a window that ends at
// or before it starts runs into the next day); tdm.evict.period (1m), how
// often shuffle may take pods back from zones out of their window.
//
//   * predicate: a node of a zone takes only pods that may go to revocable
//     nodes (annotation volcano.sh/revocable-zone: "*", or
//     volcano.sh/preemptable: true), and only inside the zone's window;
//   * node order: such a pod scores 100 on a node of a zone in its window;
//   * preemptable: a preemptor that is preemptable or may go to revocable
//     nodes takes nothing; others take Running preemptable pods on ordinary
//     nodes, at most the job's disruption budget per job (below);
//   * victim tasks (shuffle, at most once per period): Running preemptable
//     pods on nodes of zones out of their window, the budget per job;
//   * job order: jobs that are not preemptable first; pipelined: the job's
//     waiting + ready + pending best-effort tasks reach minMember; starving:
//     a job that is not preemptable with pending tasks.
// The budget of a job is its PodGroup's volcano.sh/jdb-max-unavailable
// (pods beyond those already down), else volcano.sh/jdb-min-available (running
// pods above it), else 1; counts may be percentages of the job's pods.
// Windows are read in the process's local time zone, as Volcano reads them.
#include <time.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/go_duration.h"
#include "api/log.h"
#include "api/text.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/k8s_match.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr const char* kZonePrefix = "tdm.revocable-zone.";
constexpr const char* kEvictPeriod = "tdm.evict.period";
constexpr const char* kRevocableZoneKey = "volcano.sh/revocable-zone";
constexpr const char* kPreemptableKey = "volcano.sh/preemptable";
constexpr const char* kMinAvailableKey = "volcano.sh/jdb-min-available";
constexpr const char* kMaxUnavailableKey = "volcano.sh/jdb-max-unavailable";
constexpr double kMaxNodeScore = 100;

// "H:MM" or "HH:MM" (Go's "15:04" layout) as minutes after midnight.
std::optional<int> ParseClock(std::string_view s) {
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 2 || s.size() != colon + 3)
    return std::nullopt;
  auto digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string_view h = s.substr(0, colon), m = s.substr(colon + 1);
  if (!digits(h) || !digits(m)) return std::nullopt;
  const int hour = std::stoi(std::string(h)), minute = std::stoi(std::string(m));
  if (hour > 23 || minute > 59) return std::nullopt;
  return hour * 60 + minute;
}

// Seconds since the epoch of `minutes` after local midnight of `now`'s day, plus `days`.
int64_t LocalTimeOfDay(int64_t now, int minutes, int days) {
  time_t t = static_cast<time_t>(now);
  struct tm local {};
  localtime_r(&t, &local);
  local.tm_hour = minutes / 60;
  local.tm_min = minutes % 60;
  local.tm_sec = 0;
  local.tm_mday += days;
  local.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&local));
}

// "HH:MM-HH:MM", as the zone's window must be written.
bool ValidWindow(const std::string& window) {
  const std::vector<std::string> parts = Split(Trim(window), '-');
  return parts.size() == 2 && ParseClock(parts[0]) && ParseClock(parts[1]);
}

// Why the zone does not lend its nodes at `now`; "" when it does.
std::string ZoneClosed(const std::map<std::string, std::string>& zones, const std::string& zone,
                       int64_t now) {
  auto it = zones.find(zone);
  if (it == zones.end()) return "revocable zone " + zone + " not support";
  const std::vector<std::string> parts = Split(Trim(it->second), '-');
  if (parts.size() != 2) return "revocable zone " + it->second + " format error";
  const std::optional<int> from = ParseClock(parts[0]), to = ParseClock(parts[1]);
  if (!from || !to) return "revocable zone " + zone + ": \"" + it->second + "\" is not HH:MM-HH:MM";
  const int64_t start = LocalTimeOfDay(now, *from, 0);
  const int64_t end = LocalTimeOfDay(now, *to, *from >= *to ? 1 : 0);
  if (now < start || now > end)
    return "current time beyond revocable zone " + zone + ":" + it->second;
  return "";
}

// The pod may go to revocable nodes: "*" in volcano.sh/revocable-zone, or,
// without that annotation, volcano.sh/preemptable true.
bool MayUseRevocable(const Pod& pod) {
  auto zone = pod.meta.annotations.find(kRevocableZoneKey);
  if (zone != pod.meta.annotations.end()) return zone->second == "*";
  auto pre = pod.meta.annotations.find(kPreemptableKey);
  if (pre == pod.meta.annotations.end()) return false;
  // Go's strconv.ParseBool spellings of true.
  const std::string& v = pre->second;
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "True" || v == "TRUE";
}

std::string ZoneOf(const NodeInfo& node) {
  if (node.node == nullptr) return "";
  auto it = node.node->meta.labels.find(kRevocableZoneKey);
  return it == node.node->meta.labels.end() ? "" : it->second;
}

// An IntOrString budget: an integer, or "N%" of `total` rounded up; anything else 0.
int64_t BudgetCount(const std::string& text, int64_t total) {
  if (auto n = k8s::ParseInt64(text)) return *n;
  if (text.size() > 1 && text.back() == '%') {
    if (auto p = k8s::ParseInt64(std::string_view(text).substr(0, text.size() - 1)))
      return (*p * total + 99) / 100;
  }
  return 0;
}

// How many of `job`'s pods may be taken at once (Volcano's getMaxPodEvictNum).
int64_t EvictBudget(const JobInfo& job) {
  const int64_t total = static_cast<int64_t>(job.tasks.size());
  const int64_t running = job.Count(TaskStatus::kRunning);
  std::string min_available, max_unavailable;
  if (job.podgroup != nullptr) {
    const auto& ann = job.podgroup->meta.annotations;
    // Volcano reads min-available first and max-unavailable only without it.
    if (auto it = ann.find(kMinAvailableKey); it != ann.end()) {
      min_available = it->second;
    } else if (auto mu = ann.find(kMaxUnavailableKey); mu != ann.end()) {
      max_unavailable = mu->second;
    }
  }
  if (!max_unavailable.empty()) {
    const int64_t allowed = BudgetCount(max_unavailable, total);
    const int64_t finished = job.Count(TaskStatus::kSucceeded) + job.Count(TaskStatus::kFailed);
    const int64_t down = total - finished - running;
    return down >= allowed ? 0 : allowed - down;
  }
  if (!min_available.empty()) {
    const int64_t keep = BudgetCount(min_available, total);
    if (running >= keep) return running - keep;
  }
  return 1;
}

// The first EvictBudget(job) candidates of each job, jobs in id order.
std::vector<const TaskInfo*> WithinJobBudgets(
    const Session& ssn, const std::map<JobId, std::vector<const TaskInfo*>>& by_job) {
  std::vector<const TaskInfo*> victims;
  for (const auto& [job, tasks] : by_job) {
    const int64_t n =
        std::min<int64_t>(EvictBudget(ssn.job(job)), static_cast<int64_t>(tasks.size()));
    victims.insert(victims.end(), tasks.begin(), tasks.begin() + std::max<int64_t>(n, 0));
  }
  return victims;
}

struct TdmConf {
  std::map<std::string, std::string> zones;  // zone -> "HH:MM-HH:MM"
  int64_t evict_period_ns = 60 * kNanosPerSecond;
};

class TdmPlugin : public Plugin {
 public:
  TdmPlugin(TdmConf conf, std::shared_ptr<int64_t> last_evict)
      : conf_(std::move(conf)), last_evict_(std::move(last_evict)) {}
  std::string_view Name() const override { return "tdm"; }
  bool ReadsClock() const override { return true; }

  void OnSessionOpen(Session& ssn) override {
    const int64_t now = ssn.options().now;
    ssn.AddPredicateFn([this, now](const TaskInfo& task, const NodeInfo& node) {
      const std::string zone = ZoneOf(node);
      if (zone.empty()) return PredicateStatus::Success();
      const std::string closed = ZoneClosed(conf_.zones, zone, now);
      if (!closed.empty()) return PredicateStatus::Unresolvable(closed);
      if (!MayUseRevocable(*task.pod))
        return PredicateStatus::Unresolvable("not allow to dispatch to revocable node");
      return PredicateStatus::Success();
    });
    ssn.AddNodeOrderFn([this, now](const TaskInfo& task, const NodeInfo& node) {
      const std::string zone = ZoneOf(node);
      if (zone.empty() || !ZoneClosed(conf_.zones, zone, now).empty()) return 0.0;
      return MayUseRevocable(*task.pod) ? kMaxNodeScore : 0.0;
    });
    ssn.AddPreemptableFn(
        [&ssn](const TaskInfo& preemptor, const std::vector<const TaskInfo*>& cands) {
          if (preemptor.preemptable || MayUseRevocable(*preemptor.pod))
            return std::make_pair(std::vector<const TaskInfo*>{}, Vote::kReject);
          std::map<JobId, std::vector<const TaskInfo*>> by_job;
          for (const TaskInfo* t : cands) {
            if (!t->preemptable || t->status != TaskStatus::kRunning || t->node == kNone) continue;
            if (!ZoneOf(ssn.node(t->node)).empty()) continue;
            by_job[t->job].push_back(t);
          }
          return std::make_pair(WithinJobBudgets(ssn, by_job), Vote::kPermit);
        });
    ssn.AddVictimTasksFn(
        [this, &ssn, now](const std::vector<const TaskInfo*>&) { return TakeBack(ssn, now); });
    ssn.AddJobOrderFn([](const JobInfo& a, const JobInfo& b) {
      if (a.preemptable == b.preemptable) return 0;
      return a.preemptable ? 1 : -1;
    });
    ssn.AddJobPipelinedFn([&ssn](const JobInfo& job) {
      int32_t best_effort = 0;
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (t.status == TaskStatus::kPending && t.best_effort) ++best_effort;
      }
      return job.WaitingTaskNum() + job.ReadyTaskNum() + best_effort >= job.min_member
                 ? Vote::kPermit
                 : Vote::kReject;
    });
    ssn.AddJobStarvingFn(
        [](const JobInfo& job) { return !job.preemptable && job.Count(TaskStatus::kPending) > 0; });
  }

 private:
  // Running preemptable pods on nodes of zones out of their window, once per period.
  std::vector<const TaskInfo*> TakeBack(const Session& ssn, int64_t now) {
    const long double next =
        static_cast<long double>(*last_evict_) * kNanosPerSecond + conf_.evict_period_ns;
    if (*last_evict_ != 0 && next > static_cast<long double>(now) * kNanosPerSecond) return {};
    std::vector<const TaskInfo*> victims;
    for (const auto& [zone, window] : conf_.zones) {
      if (ZoneClosed(conf_.zones, zone, now).empty()) continue;  // in its window
      std::map<JobId, std::vector<const TaskInfo*>> by_job;
      for (const NodeInfo& node : ssn.nodes()) {
        if (ZoneOf(node) != zone) continue;
        for (TaskId id : node.tasks) {
          const TaskInfo& t = ssn.task(id);
          if (t.preemptable && t.status == TaskStatus::kRunning) by_job[t.job].push_back(&t);
        }
      }
      const std::vector<const TaskInfo*> taken = WithinJobBudgets(ssn, by_job);
      victims.insert(victims.end(), taken.begin(), taken.end());
    }
    *last_evict_ = now;
    return victims;
  }

  TdmConf conf_;
  std::shared_ptr<int64_t> last_evict_;  // session clock of the last take-back; 0 never
};

Result<TdmConf> ParseTdmConf(const Arguments& args) {
  TdmConf conf;
  for (const auto& [key, value] : args.values()) {
    const size_t at = key.find(kZonePrefix);
    if (at == std::string::npos) continue;
    std::string zone = key;
    zone.erase(at, std::string(kZonePrefix).size());
    conf.zones[zone] = value;
    if (!ValidWindow(value))
      CliLog().warn("warning: {}: arguments.{}: \"{}\" is not HH:MM-HH:MM; the zone never opens",
                    args.owner(), key, value);
  }
  std::string period;
  BASALT_RETURN_IF_ERROR(args.GetString(kEvictPeriod, &period));
  if (!period.empty()) {
    auto d = ParseGoDuration(period, args.owner() + ": arguments." + kEvictPeriod);
    if (d.ok()) {
      conf.evict_period_ns = *d;
    } else {
      BASALT_RETURN_IF_ERROR(args.Invalid(kEvictPeriod, d.status(), "1m"));
    }
  }
  return conf;
}

std::string UnknownTdmPart(const std::string& key) {
  if (key == kEvictPeriod || key.find(kZonePrefix) != std::string::npos) return "";
  return key;
}

}  // namespace

PluginFactory NewTdmPluginFactory() {
  auto last_evict = std::make_shared<int64_t>(0);
  return [last_evict](const Arguments& args) -> Result<std::unique_ptr<Plugin>> {
    BASALT_ASSIGN_OR_RETURN(TdmConf conf, ParseTdmConf(args));
    WarnUnknownArguments(args, UnknownTdmPart, "tdm.revocable-zone.<zone>, tdm.evict.period");
    return std::unique_ptr<Plugin>(new TdmPlugin(std::move(conf), last_evict));
  };
}

}  // namespace basalt
