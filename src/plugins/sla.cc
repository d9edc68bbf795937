// sla: waiting-time guarantees (Volcano pkg/scheduler/plugins/sla;
// docs/plugins/sla.md).
//
// A job's waiting time comes from its PodGroup's annotation
// `volcano.sh/sla-waiting-time`, else `sla-waiting-time` (a vcjob's annotations
// travel to its PodGroup), else the plugin argument `sla-waiting-time`; with
// none of them the job has no SLA. Its deadline is
//
//   deadline = PodGroup creation time + waiting time
//
//   JobOrder:        a job with a deadline before one without; of two jobs
//                    with deadlines, the earlier deadline first; else abstain.
//   JobEnqueueable,
//   JobPipelined:    Permit once now - creation >= waiting time, else Abstain.
//
// A Permit cannot overturn a Reject (docs/semantics/session.md), but it ends
// the voting of its tier: with sla in the first tier, a job past its waiting
// time is admitted without asking overcommit or proportion in a later tier,
// which is how Volcano reserves room for a starving big job.
//
// `now` is the session clock (SessionOptions::now), never the wall clock, so
// `basalt schedule` gives the same answer on every run.
//
// An unknown argument is ignored with a warning on stderr. Argument errors (not a Go duration, or
// not positive) stop the configuration from loading; Volcano only logs them and runs without the
// global value. An invalid annotation is ignored as in Volcano (the next key is tried), and an
// `InvalidSlaWaitingTime` Warning event on the PodGroup says why.
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/go_duration.h"
#include "api/saturating.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr const char* kArgument = "sla-waiting-time";
// Read in this order; the first valid one wins (Volcano's JobInfo.SetPodGroup).
constexpr const char* kAnnotations[] = {"volcano.sh/sla-waiting-time", "sla-waiting-time"};

// Go's parse plus Volcano's extra rule: a waiting time must be positive.
Result<int64_t> ParseWaitingTime(const std::string& text, const std::string& what) {
  BASALT_ASSIGN_OR_RETURN(int64_t nanos, ParseGoDuration(text, what));
  if (nanos <= 0)
    return Status::InvalidArgument(what + ": waiting time \"" + text + "\" must be positive");
  return nanos;
}

class SlaPlugin : public Plugin {
 public:
  explicit SlaPlugin(std::optional<int64_t> global_nanos) : global_nanos_(global_nanos) {}

  std::string_view Name() const override { return "sla"; }

  // Waiting times are measured against the session clock.
  bool ReadsClock() const override { return true; }

  void OnSessionOpen(Session& ssn) override {
    // Deadlines once per session, in nanoseconds since the epoch (creation
    // times have whole seconds; waiting times may not).
    deadline_.assign(ssn.jobs().size(), std::nullopt);
    for (const JobInfo& job : ssn.jobs()) {
      std::optional<int64_t> wait = JobWaitingTime(ssn, job);
      if (!wait) wait = global_nanos_;
      if (!wait) continue;
      deadline_[job.id] = SatAdd(SatMul(job.creation, kNanosPerSecond), *wait);
    }
    now_nanos_ = SatMul(ssn.options().now, kNanosPerSecond);

    ssn.AddJobOrderFn([this](const JobInfo& a, const JobInfo& b) {
      const auto& da = deadline_[a.id];
      const auto& db = deadline_[b.id];
      if (!da && !db) return 0;
      if (!da) return 1;
      if (!db) return -1;
      if (*da != *db) return *da < *db ? -1 : 1;
      return 0;
    });
    auto permit_when_late = [this](const JobInfo& job) {
      const auto& d = deadline_[job.id];
      if (!d || now_nanos_ < *d) return Vote::kAbstain;
      return Vote::kPermit;
    };
    ssn.AddJobEnqueueableFn(permit_when_late);
    ssn.AddJobPipelinedFn(permit_when_late);
  }

 private:
  static int64_t SatMul(int64_t a, int64_t b) {
    int64_t r;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
  }

  // The job's own waiting time, or nullopt. An annotation that does not parse
  // is skipped with an event, so the user sees why the SLA does not apply.
  static std::optional<int64_t> JobWaitingTime(Session& ssn, const JobInfo& job) {
    if (job.podgroup == nullptr) return std::nullopt;
    const auto& ann = job.podgroup->meta.annotations;
    for (const char* key : kAnnotations) {
      auto it = ann.find(key);
      if (it == ann.end()) continue;
      auto wait = ParseWaitingTime(it->second, std::string("annotation ") + key);
      if (wait.ok()) return *wait;
      ssn.RecordEvent("PodGroup/" + job.key, "Warning", "InvalidSlaWaitingTime",
                      wait.status().message() + "; ignored");
    }
    return std::nullopt;
  }

  const std::optional<int64_t> global_nanos_;
  std::vector<std::optional<int64_t>> deadline_;  // by JobId
  int64_t now_nanos_ = 0;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewSlaPlugin(const Arguments& args) {
  std::optional<int64_t> global;
  std::string text;
  BASALT_RETURN_IF_ERROR(args.GetString(kArgument, &text));  // a list or a map is the wrong type
  if (args.Has(kArgument)) {
    Result<int64_t> nanos = ParseWaitingTime(text, args.owner() + ": arguments." + kArgument);
    if (nanos.ok()) {
      global = *nanos;
    } else {
      BASALT_RETURN_IF_ERROR(args.Invalid(kArgument, nanos.status(), "(no global waiting time)"));
    }
  }
  WarnUnknownArguments(args, kArgument);
  return std::unique_ptr<Plugin>(new SlaPlugin(global));
}

}  // namespace basalt
