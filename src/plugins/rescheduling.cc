// rescheduling: chooses running pods to evict so that load spreads from busy
// nodes to idle ones (Volcano pkg/scheduler/plugins/rescheduling;
// docs/plugins/rescheduling.md). The `shuffle` action evicts what it chooses.
//
// Strategy lowNodeUtilization (the only one Volcano implements), on cpu and
// memory, with utilisation u_r = 100 x used_r / allocatable_r:
//
//   low node:  schedulable, and u_r < thresholds[r] for cpu and memory;
//   high node: not low, and u_r > targetThresholds[r] for cpu or memory.
//   Nothing to do when there is no low node, no high node, or every node is low.
//
//   room_r = Σ over low nodes of (targetThresholds[r] x allocatable_r / 100 - used_r)
//            (what the low nodes can take before they reach the target)
//
//   High nodes in descending u_cpu + u_mem (then name); on each, its pods in
//   eviction order (lower priority first, then best-effort before the others,
//   then the newest), and while the node is
//   still at or above a target (u_r >= targetThresholds[r] for cpu or memory)
//   and room remains (room_r > 0 for cpu and memory): a running pod of ours
//   becomes a victim; its request leaves the node's usage and the room.
//
// Why requests: basalt has no metrics server. Volcano reads utilisation from
// Prometheus averages over `metricsPeriod`; basalt uses requested/allocatable
// (pods being evicted no longer count), which makes the decision exact and
// repeatable (docs/differences.md).
//
// Interval: the strategies run in a session only when more than `interval`
// has passed since they last ran, measured on the session clock
// (SessionOptions::now). As in Volcano, the clock starts when the scheduler
// does: the first session only starts it. The memory lives in the plugin
// factory, so it lasts as long as the registry (one `basalt schedule` run, one
// `basalt serve` process) and two runs never share it.
//
// Arguments:
//   interval        Go duration, default 5m;
//   metricsPeriod   Go duration, default 5m (accepted; no effect: no metrics);
//   strategies      list of {name, params}; default [lowNodeUtilization with
//                   the default thresholds]. lowNodeUtilization params:
//                   thresholds, targetThresholds: integer percentages per
//                   resource, each default 100 (cpu and memory are used; Volcano
//                   reads `pods` but never compares it).
// A duration that does not parse, a threshold that is not an integer and an
// unknown strategy name are errors naming the argument; an unknown argument
// is ignored with a warning on stderr (once per key and registry).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/go_duration.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr int64_t kDefaultIntervalNanos = 5 * 60 * kNanosPerSecond;
constexpr const char* kLowNodeUtilization = "lowNodeUtilization";

// Percentages for the two resources the strategy compares.
struct Thresholds {
  int64_t cpu = 100;
  int64_t memory = 100;
};

struct LowNodeUtilizationConf {
  Thresholds low;     // `thresholds`
  Thresholds target;  // `targetThresholds`
};

struct ReschedulingConf {
  int64_t interval_nanos = kDefaultIntervalNanos;
  std::vector<LowNodeUtilizationConf> strategies{LowNodeUtilizationConf{}};
};

// What outlives a session, shared by every plugin the factory builds.
struct ReschedulingMemory {
  // When the strategies last ran, in nanoseconds on the session clock; unset
  // until the first session (which starts the clock, as Volcano's process start does).
  std::optional<int64_t> last_nanos;
};

// Keys Volcano reads: interval, metricsPeriod, strategies[i].name and
// strategies[i].params.* (thresholds, targetThresholds, and the
// lowNodeUtilization params it keeps but never uses).
std::string UnknownReschedulingPart(const std::string& key) {
  static const std::set<std::string> kTop = {"interval", "metricsPeriod", "strategies"};
  static const std::set<std::string> kParams = {
      "thresholds", "targetThresholds", "thresholdPriorityClassName", "nodeFit", "numberOfNodes"};
  const std::string top = KeyPrefix(key, ".[");
  if (kTop.count(top) == 0) return top;
  if (top != "strategies" || key.size() == top.size() || key[top.size()] != '[') return "";
  // strategies[i].<field>[.<param>...]
  const size_t close = key.find(']');
  const std::string rest = close == std::string::npos ? "" : key.substr(close + 1);
  const std::string item = key.substr(0, close + 1);
  if (rest.rfind(".name", 0) == 0 && rest.size() == 5) return "";
  if (rest.rfind(".params.", 0) == 0) {
    const std::string param = rest.substr(8, rest.find_first_of(".[", 8) - 8);
    return kParams.count(param) == 0 ? item + ".params." + param : "";
  }
  return rest.empty() ? "" : item + rest.substr(0, rest.find_first_of(".[", 1));
}

// One node's usage of cpu and memory while victims are being chosen.
struct NodeUsage {
  const NodeInfo* node;
  int64_t cpu, memory;              // used (requests), without pods being evicted
  int64_t alloc_cpu, alloc_memory;  // allocatable

  // 100 x used >= pct x allocatable, in 128 bits (exact for any int64 input).
  static bool AtLeast(int64_t used, int64_t alloc, int64_t pct) {
    return static_cast<__int128>(used) * 100 >= static_cast<__int128>(pct) * alloc;
  }
  static bool Above(int64_t used, int64_t alloc, int64_t pct) {
    return static_cast<__int128>(used) * 100 > static_cast<__int128>(pct) * alloc;
  }
  static double Percent(int64_t used, int64_t alloc) {
    return alloc > 0 ? 100.0 * static_cast<double>(used) / static_cast<double>(alloc) : 0;
  }
  double Score() const { return Percent(cpu, alloc_cpu) + Percent(memory, alloc_memory); }
  bool Low(const Thresholds& t) const {
    return !node->node->unschedulable && !AtLeast(cpu, alloc_cpu, t.cpu) &&
           !AtLeast(memory, alloc_memory, t.memory);
  }
  bool High(const Thresholds& t) const {
    return Above(cpu, alloc_cpu, t.cpu) || Above(memory, alloc_memory, t.memory);
  }
  bool AtOrAboveTarget(const Thresholds& t) const {
    return AtLeast(cpu, alloc_cpu, t.cpu) || AtLeast(memory, alloc_memory, t.memory);
  }
};

// The pod's spec.priority as the Priority admission plugin sets it (Volcano
// reads the pod's field, so the volcano.sh/task-priority annotation does not
// count here). Volcano puts pods without the field first; behind admission
// every pod has it, as basalt assumes everywhere.
int32_t AdmittedPriority(const Session& ssn, const Pod& pod) {
  if (pod.spec.has_priority) return pod.spec.priority;
  if (!pod.spec.priority_class_name.empty()) {
    if (auto v = ssn.PriorityClassValue(pod.spec.priority_class_name)) return *v;
  }
  return 0;
}

// Eviction order on one node: lower priority first, then best-effort before
// the others (basalt keeps no limits, so Burstable and Guaranteed are not told
// apart), then the newest, then key.
bool EvictFirst(const Session& ssn, const TaskInfo& a, const TaskInfo& b) {
  const int32_t pa = AdmittedPriority(ssn, *a.pod), pb = AdmittedPriority(ssn, *b.pod);
  if (pa != pb) return pa < pb;
  if (a.best_effort != b.best_effort) return a.best_effort;
  if (a.creation != b.creation) return a.creation > b.creation;
  return a.key < b.key;
}

std::vector<const TaskInfo*> LowNodeUtilizationVictims(
    const Session& ssn, const LowNodeUtilizationConf& conf,
    const std::vector<const TaskInfo*>& candidates) {
  std::vector<NodeUsage> usage;
  for (const NodeInfo& n : ssn.nodes()) {
    const Resource load = n.used() - n.releasing();
    usage.push_back(
        {&n, load.milli_cpu(), load.memory(), n.allocatable.milli_cpu(), n.allocatable.memory()});
  }
  std::vector<NodeUsage*> low, high;
  for (NodeUsage& u : usage) {
    if (u.Low(conf.low)) {
      low.push_back(&u);
    } else if (u.High(conf.target)) {
      high.push_back(&u);
    }
  }
  if (low.empty() || low.size() == usage.size() || high.empty()) return {};

  // What the low nodes can take before they reach the target (whole units,
  // rounded down as Volcano converts a percentage to a quantity).
  int64_t room_cpu = 0, room_memory = 0;
  for (const NodeUsage* u : low) {
    room_cpu +=
        static_cast<int64_t>(static_cast<__int128>(conf.target.cpu) * u->alloc_cpu / 100) - u->cpu;
    room_memory +=
        static_cast<int64_t>(static_cast<__int128>(conf.target.memory) * u->alloc_memory / 100) -
        u->memory;
  }

  std::stable_sort(high.begin(), high.end(), [](const NodeUsage* a, const NodeUsage* b) {
    const double sa = a->Score(), sb = b->Score();
    if (sa != sb) return sa > sb;
    return a->node->name < b->node->name;
  });
  const std::set<const TaskInfo*> eligible(candidates.begin(), candidates.end());
  std::vector<const TaskInfo*> victims;
  for (NodeUsage* u : high) {
    std::vector<const TaskInfo*> pods;
    for (TaskId id : u->node->tasks) pods.push_back(&ssn.task(id));
    std::sort(pods.begin(), pods.end(),
              [&ssn](const TaskInfo* a, const TaskInfo* b) { return EvictFirst(ssn, *a, *b); });
    for (const TaskInfo* t : pods) {
      if (!u->AtOrAboveTarget(conf.target) || room_cpu <= 0 || room_memory <= 0) break;
      if (eligible.count(t) == 0) continue;  // not ours, or not Running: stays, and takes no room
      room_cpu -= t->request.milli_cpu();
      room_memory -= t->request.memory();
      u->cpu -= t->request.milli_cpu();
      u->memory -= t->request.memory();
      victims.push_back(t);
    }
  }
  return victims;
}

class ReschedulingPlugin : public Plugin {
 public:
  ReschedulingPlugin(ReschedulingConf conf, std::shared_ptr<ReschedulingMemory> memory)
      : conf_(std::move(conf)), memory_(std::move(memory)) {}

  std::string_view Name() const override { return "rescheduling"; }

  // Its interval and how long a pod has run are measured against the session clock.
  bool ReadsClock() const override { return true; }

  void OnSessionOpen(Session& ssn) override {
    const int64_t now = ssn.options().now * kNanosPerSecond;
    if (!memory_->last_nanos) {
      memory_->last_nanos = now;
      return;
    }
    // Volcano: run when last + interval is strictly before now.
    if (*memory_->last_nanos + conf_.interval_nanos >= now) return;
    memory_->last_nanos = now;
    ssn.AddVictimTasksFn([this, &ssn](const std::vector<const TaskInfo*>& running) {
      std::vector<const TaskInfo*> out;
      for (const LowNodeUtilizationConf& s : conf_.strategies) {
        for (const TaskInfo* t : LowNodeUtilizationVictims(ssn, s, running)) {
          if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        }
      }
      return out;
    });
  }

 private:
  const ReschedulingConf conf_;
  std::shared_ptr<ReschedulingMemory> memory_;
};

Status ReadDuration(const Arguments& args, const std::string& key, int64_t* nanos) {
  std::string text;
  BASALT_RETURN_IF_ERROR(args.GetString(key, &text));
  if (!args.Has(key)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*nanos, ParseGoDuration(text, args.owner() + ": arguments." + key));
  return Status::Ok();
}

Status ReadThresholds(const Arguments& args, const std::string& prefix, Thresholds* t) {
  BASALT_RETURN_IF_ERROR(args.GetInt(prefix + ".cpu", &t->cpu));
  BASALT_RETURN_IF_ERROR(args.GetInt(prefix + ".memory", &t->memory));
  // Read for their type only: Volcano never compares pods.
  int64_t unused = 0;
  BASALT_RETURN_IF_ERROR(args.GetInt(prefix + ".pods", &unused));
  BASALT_RETURN_IF_ERROR(args.GetInt(prefix + ".pod", &unused));
  for (const auto& [key, pct] : {std::pair{"cpu", t->cpu}, std::pair{"memory", t->memory}}) {
    if (pct < 0) {
      return Status::InvalidArgument(args.owner() + ": arguments." + prefix + "." + key +
                                     ": a percentage cannot be negative, got " +
                                     std::to_string(pct));
    }
  }
  return Status::Ok();
}

Result<ReschedulingConf> ParseConf(const Arguments& args) {
  ReschedulingConf conf;
  BASALT_RETURN_IF_ERROR(ReadDuration(args, "interval", &conf.interval_nanos));
  if (conf.interval_nanos < 0) {
    return Status::InvalidArgument(args.owner() + ": arguments.interval: cannot be negative");
  }
  int64_t metrics_period = 0;
  BASALT_RETURN_IF_ERROR(ReadDuration(args, "metricsPeriod", &metrics_period));

  if (args.Has("strategies") && !args.values().at("strategies").empty()) {
    return Status::InvalidArgument(args.owner() +
                                   ": arguments.strategies: expected a list, got \"" +
                                   args.values().at("strategies") + "\"");
  }
  if (!args.WithPrefix("strategies.").empty()) {
    return Status::InvalidArgument(args.owner() +
                                   ": arguments.strategies: expected a list, got an object");
  }
  std::vector<LowNodeUtilizationConf> strategies;
  for (int i = 0; !args.WithPrefix("strategies[" + std::to_string(i) + "]").empty(); ++i) {
    const std::string at = "strategies[" + std::to_string(i) + "]";
    std::string name;
    BASALT_RETURN_IF_ERROR(args.GetString(at + ".name", &name));
    if (name.empty())
      return Status::InvalidArgument(args.owner() + ": arguments." + at + ".name: missing");
    if (name != kLowNodeUtilization) {
      return Status::InvalidArgument(args.owner() + ": arguments." + at +
                                     ".name: unknown strategy \"" + name +
                                     "\" (known: " + kLowNodeUtilization + ")");
    }
    LowNodeUtilizationConf s;
    BASALT_RETURN_IF_ERROR(ReadThresholds(args, at + ".params.thresholds", &s.low));
    BASALT_RETURN_IF_ERROR(ReadThresholds(args, at + ".params.targetThresholds", &s.target));
    strategies.push_back(s);
  }
  // An empty list keeps the default strategy, as in Volcano.
  if (!strategies.empty()) conf.strategies = std::move(strategies);
  return conf;
}

}  // namespace

PluginFactory NewReschedulingPluginFactory() {
  auto memory = std::make_shared<ReschedulingMemory>();
  return [memory](const Arguments& args) -> Result<std::unique_ptr<Plugin>> {
    BASALT_ASSIGN_OR_RETURN(ReschedulingConf conf, ParseConf(args));
    WarnUnknownArguments(args, UnknownReschedulingPart,
                         "interval, metricsPeriod, strategies[].name, "
                         "strategies[].params.thresholds, strategies[].params.targetThresholds");
    return std::unique_ptr<Plugin>(new ReschedulingPlugin(std::move(conf), memory));
  };
}

}  // namespace basalt
