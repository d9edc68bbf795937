// resourcequota: a job is admitted (enqueue) only while its PodGroup's
// minResources fit every ResourceQuota of its namespace (docs/plugins/resourcequota.md).
//
// As Volcano v1.15.1 (pkg/scheduler/plugins/resourcequota, its
// JobEnqueueable function): for each quota, the minResources names the quota
// limits are added to the quota's used amount plus what jobs of the same
// namespace admitted earlier in this session asked for; any name above the
// quota's hard amount rejects the job, with a Normal `Unschedulable` event on
// its PodGroup naming the requested, used and limited amounts of those names.
// A job without minResources, or in a namespace without quotas, is permitted.
// An admitted job's whole minResources count as pending from then on, even if
// another plugin later refuses the job (Volcano adds them in the vote).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/resource_quota.h"
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

struct QuotaView {
  std::string name;
  QuotaList hard;
  QuotaList used;
};

// The names of `list` that `names` also has.
QuotaList Mask(const QuotaList& list, const QuotaList& names) {
  QuotaList out;
  for (const auto& [name, v] : list) {
    if (names.count(name)) out[name] = v;
  }
  return out;
}

// What the quota controller would have written for a quota without status
// (a hand-written manifest): hard from the spec, used from the namespace's
// pods that have not finished.
QuotaView ViewOf(const ResourceQuota& quota, const ClusterState& state) {
  if (quota.has_status) return {quota.meta.name, quota.status_hard, quota.status_used};
  QuotaList used;
  for (const auto& [key, pod] : state.pods()) {
    if (pod.meta.namespace_ != quota.meta.namespace_) continue;
    if (pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    AddQuota(&used, QuotaUsageOf(pod.spec.request));
  }
  return {quota.meta.name, quota.spec_hard, Mask(used, quota.spec_hard)};
}

class ResourceQuotaPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "resourcequota"; }

  void OnSessionOpen(Session& ssn) override {
    quotas_.clear();
    pending_.clear();
    for (const auto& [key, quota] : ssn.state().resource_quotas()) {
      quotas_[quota.meta.namespace_].push_back(ViewOf(quota, ssn.state()));
    }
    ssn.AddJobEnqueueableFn([this, &ssn](const JobInfo& job) { return Enqueueable(ssn, job); });
  }

 private:
  Vote Enqueueable(Session& ssn, const JobInfo& job) {
    if (!job.min_resources || job.podgroup == nullptr) return Vote::kPermit;
    const std::string& ns = job.podgroup->meta.namespace_;
    auto quotas = quotas_.find(ns);
    if (quotas == quotas_.end()) return Vote::kPermit;
    const QuotaList request = QuotaUsageOf(*job.min_resources);
    for (const QuotaView& quota : quotas->second) {
      const QuotaList requested = Mask(request, quota.hard);
      QuotaList total = quota.used;
      AddQuota(&total, pending_[ns]);
      AddQuota(&total, requested);
      QuotaList exceeded;
      for (const auto& [name, hard] : quota.hard) {
        auto it = requested.find(name);
        if (it != requested.end() && total[name] > hard) exceeded[name] = hard;
      }
      if (exceeded.empty()) continue;
      ssn.RecordEvent(
          "PodGroup/" + job.key, "Normal", "Unschedulable",
          "resource quota insufficient, requested: " + FormatQuotaList(Mask(requested, exceeded)) +
              ", used: " + FormatQuotaList(Mask(quota.used, exceeded)) +
              ", limited: " + FormatQuotaList(exceeded));
      return Vote::kReject;
    }
    AddQuota(&pending_[ns], request);
    return Vote::kPermit;
  }

  std::map<std::string, std::vector<QuotaView>> quotas_;  // by namespace, quotas in name order
  std::map<std::string, QuotaList> pending_;              // admitted this session, by namespace
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewResourceQuotaPlugin(const Arguments& args) {
  (void)args;  // no arguments; the registry warns about any given
  return std::unique_ptr<Plugin>(new ResourceQuotaPlugin());
}

}  // namespace basalt
