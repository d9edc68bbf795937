// overcommit: cluster-wide admission gate for the enqueue action (docs/plugins/overcommit.md).
//
// Lets jobs into the Inqueue phase while the cluster, inflated by
// `overcommit-factor`, still has room for their minResources:
//
//   idle    = total allocatable x factor - Σ node used           (session open)
//   inqueue = Σ minResources of Inqueue jobs
//           + Σ what Running jobs with at least minMember allocated tasks still
//             reserve of their minResources (share::RunningReservation)
//
//   JobEnqueueable: no minResources -> Permit;
//                   inqueue + minResources <= idle on the dimensions
//                   minResources requests (`pods` skipped) -> Permit;
//                   else Reject with a "resource in cluster is overused" event.
//   JobEnqueued:    inqueue += minResources of the admitted job.
//
// The gate is queue-agnostic: once the cluster is full, no new job is admitted
// anywhere, which also keeps new vcjobs from creating the pods that reclaim
// would need (docs/semantics/preempt-reclaim.md).
//
// Arguments: `overcommit-factor` (number, default 1.2; a value below 1 falls
// back to 1.2). A value that is not a number is an error (Volcano ignores it).
#include <cmath>
#include <cstdio>

#include "framework/session.h"
#include "framework/vote_notes.h"
#include "plugins/builtin.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

constexpr const char* kFactorKey = "overcommit-factor";
constexpr double kDefaultFactor = 1.2;

// `v x factor`, rounded down to whole stored units. The product is taken in
// float64 exactly as Volcano takes it (so 4000m x 1.2 is 4800m, not 4799.99..m),
// then 0.1 unit is added before rounding down: Volcano compares the admitted
// total against the unrounded product with its 0.1-unit epsilon, and an integer
// n passes `n <= x` under that epsilon exactly when n <= floor(x + 0.1).
int64_t Inflate(int64_t v, double factor) {
  return static_cast<int64_t>(std::floor(static_cast<double>(v) * factor + 0.1));
}

Resource Inflate(const Resource& r, double factor) {
  Resource out;
  out.set_milli_cpu(Inflate(r.milli_cpu(), factor));
  out.set_memory(Inflate(r.memory(), factor));
  for (const auto& [id, v] : r.scalars()) out.Set(id, Inflate(v, factor));
  return out;
}

class OvercommitPlugin : public Plugin {
 public:
  explicit OvercommitPlugin(double factor) : factor_(factor) {}

  std::string_view Name() const override { return "overcommit"; }

  void OnSessionOpen(Session& ssn) override {
    Resource used;
    for (const NodeInfo& n : ssn.nodes()) used += n.used();
    idle_ = Inflate(ssn.total_resource(), factor_) - used;
    total_ = ssn.total_resource();
    used_ = used;

    for (const JobInfo& job : ssn.jobs()) {
      if (!job.min_resources) continue;
      if (job.phase == PodGroupPhase::kInqueue) {
        inqueue_ += *job.min_resources;
      } else if (job.phase == PodGroupPhase::kRunning &&
                 share::AllocatedTaskCount(job) >= job.min_member) {
        // The minMember test keeps a Running PodGroup whose driver finished
        // (Spark) from reserving its room a second time.
        inqueue_ += share::RunningReservation(job);
      }
    }
    inqueue_at_open_ = inqueue_;

    ssn.AddJobEnqueueableFn([this, &ssn](const JobInfo& job) {
      if (!job.min_resources) return Vote::kPermit;  // best effort: nothing to reserve
      const Resource& min = *job.min_resources;
      if (LessEqualOnRequested(inqueue_ + min, idle_, min)) return Vote::kPermit;
      ssn.RecordEvent("PodGroup/" + job.key, "Normal", "Unschedulable",
                      "resource in cluster is overused");
      if (NotingVotes()) NoteVote("PodGroup/" + job.key, "overcommit", OverusedNote(min));
      return Vote::kReject;
    });

    // Only an admitted job reserves room: a Permit from this plugin may still
    // be overruled by another voter, so the reservation waits for the decision.
    ssn.AddJobEnqueuedFn([this](const JobInfo& job) {
      if (job.min_resources) inqueue_ += *job.min_resources;
    });
  }

  double factor() const { return factor_; }

 private:
  // Each dimension `min` asks for that does not fit: "nvidia.com/gpu: 0
  // reserved at session open + 6 admitted before it in this pass + 4 asked =
  // 10 > 8 allocatable × 1.2 - 0 used = 9.6".
  std::string OverusedNote(const Resource& min) const {
    std::string note;
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", factor_);
    for (ResourceId id : RequestedDimensions(min)) {
      const int64_t wanted = inqueue_.Get(id) + min.Get(id);
      if (wanted <= idle_.Get(id)) continue;
      const auto d = [id](int64_t v) { return ReadableDimension(id, v); };
      note += std::string(note.empty() ? "" : "; ") + ResourceNames::Name(id) + ": " +
              d(inqueue_at_open_.Get(id)) + " reserved at session open + " +
              d(inqueue_.Get(id) - inqueue_at_open_.Get(id)) +
              " admitted before it in this pass + " + d(min.Get(id)) + " asked = " + d(wanted) +
              " > " + d(total_.Get(id)) + " allocatable × " + factor + " - " + d(used_.Get(id)) +
              " used = " + d(idle_.Get(id));
    }
    return note;
  }

  const double factor_;
  Resource idle_;
  Resource inqueue_;
  Resource inqueue_at_open_;
  Resource total_;
  Resource used_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewOvercommitPlugin(const Arguments& args) {
  double factor = kDefaultFactor;
  BASALT_RETURN_IF_ERROR(args.GetDouble(kFactorKey, &factor));
  // A list under the key flattens to "overcommit-factor[i]": still the wrong type.
  if (args.Has(std::string(kFactorKey) + "[0]")) {
    return Status::InvalidArgument(args.owner() + ": arguments." + kFactorKey +
                                   ": expected a number, got a list");
  }
  if (factor < 1.0) factor = kDefaultFactor;  // Volcano: a factor below 1 falls back to the default
  return std::unique_ptr<Plugin>(new OvercommitPlugin(factor));
}

}  // namespace basalt
