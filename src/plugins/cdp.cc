// cdp (cooldown protection): a pod that asks for a cooldown is not a victim of
// preempt or reclaim until that long after it was bound
// (docs/plugins/cdp.md; Volcano v1.15.1 pkg/scheduler/plugins/cdp).
//
// The cooldown is the label, else the annotation, volcano.sh/cooldown-time,
// a Go duration ("600s", "10m"); a value that does not parse means no
// cooldown. A Running pod whose PodScheduled condition turned True less than
// the cooldown ago (on the session clock) is left out of the victims; every
// other candidate stays. The plugin votes Permit with what it keeps.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/go_duration.h"
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

constexpr const char* kCooldownKey = "volcano.sh/cooldown-time";

// The pod's cooldown in nanoseconds; nullopt when it asks for none (or for
// one that is not a duration, which Volcano ignores the same way).
std::optional<int64_t> Cooldown(const Pod& pod) {
  auto it = pod.meta.labels.find(kCooldownKey);
  if (it == pod.meta.labels.end()) {
    it = pod.meta.annotations.find(kCooldownKey);
    if (it == pod.meta.annotations.end()) return std::nullopt;
  }
  auto d = ParseGoDuration(it->second, kCooldownKey);
  if (!d.ok()) return std::nullopt;
  return *d;
}

bool Cooling(const Pod& pod, int64_t now) {
  const std::optional<int64_t> cooldown = Cooldown(pod);
  if (!cooldown || pod.phase != "Running" || pod.scheduled_at == 0) return false;
  // In nanoseconds, as Go adds the duration to the condition's time; both
  // sides stay far from int64's limits for any real date and a cooldown below
  // 292 years (ParseGoDuration's bound).
  const long double until =
      static_cast<long double>(pod.scheduled_at) * kNanosPerSecond + *cooldown;
  return until > static_cast<long double>(now) * kNanosPerSecond;
}

class CdpPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "cdp"; }
  bool ReadsClock() const override { return true; }

  void OnSessionOpen(Session& ssn) override {
    const int64_t now = ssn.options().now;
    auto evictable = [now](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      std::vector<const TaskInfo*> victims;
      for (const TaskInfo* c : cands) {
        if (!Cooling(*c->pod, now)) victims.push_back(c);
      }
      return std::make_pair(victims, Vote::kPermit);
    };
    ssn.AddPreemptableFn(evictable);
    ssn.AddReclaimableFn(evictable);
  }
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewCdpPlugin(const Arguments& args) {
  (void)args;  // no arguments; the registry warns about any given
  return std::unique_ptr<Plugin>(new CdpPlugin());
}

}  // namespace basalt
