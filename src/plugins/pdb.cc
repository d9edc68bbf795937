// pdb: PodDisruptionBudgets keep preempt, reclaim and shuffle from taking
// more pods than a budget allows (docs/plugins/pdb.md).
//
// Each time victims are chosen, every budget starts from its
// disruptionsAllowed and each candidate it selects spends one; a candidate
// that would take any budget below zero is not a victim. A pod already listed
// in the budget's disruptedPods is being evicted and spends nothing. As in
// Volcano v1.15.1 (pkg/scheduler/plugins/pdb, the filter of OnSessionOpen):
//   * the budget is spent per call, not per session: victims chosen in one
//     call do not lower what the next call sees;
//   * a candidate pod with no labels is never a victim (the filter skips it
//     before it would be kept);
//   * the same filter is the plugin's victim-tasks function (shuffle), where
//     it proposes every candidate the budgets allow.
#include <memory>
#include <vector>

#include "api/pod_disruption_budget.h"
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

struct Budget {
  const PodDisruptionBudget* pdb;
  int32_t allowed;
};

// status.disruptionsAllowed, or, for a budget without status (a hand-written
// manifest), what the disruption controller would have written.
int32_t AllowedOf(const PodDisruptionBudget& pdb, const ClusterState& state) {
  if (pdb.has_status) return pdb.disruptions_allowed;
  std::vector<const Pod*> selected;
  for (const auto& [key, pod] : state.pods()) {
    if (pdb.Selects(pod)) selected.push_back(&pod);
  }
  return DisruptionsAllowedFromSpec(pdb, selected);
}

class PdbPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "pdb"; }

  void OnSessionOpen(Session& ssn) override {
    budgets_.clear();
    for (const auto& [key, pdb] : ssn.state().disruption_budgets()) {
      budgets_.push_back({&pdb, AllowedOf(pdb, ssn.state())});
    }
    ssn.AddVictimTasksFn(
        [this](const std::vector<const TaskInfo*>& running) { return WithinBudgets(running); });
    auto evictable = [this](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      return std::make_pair(WithinBudgets(cands), Vote::kPermit);
    };
    ssn.AddPreemptableFn(evictable);
    ssn.AddReclaimableFn(evictable);
  }

 private:
  // The candidates, in their order, that every budget selecting them can still pay for.
  std::vector<const TaskInfo*> WithinBudgets(const std::vector<const TaskInfo*>& cands) const {
    std::vector<int32_t> left(budgets_.size());
    for (size_t i = 0; i < budgets_.size(); ++i) left[i] = budgets_[i].allowed;
    std::vector<const TaskInfo*> victims;
    for (const TaskInfo* task : cands) {
      const Pod& pod = *task->pod;
      if (pod.meta.labels.empty()) continue;  // Volcano drops it here, unchecked
      bool violates = false;
      for (size_t i = 0; i < budgets_.size(); ++i) {
        const PodDisruptionBudget& pdb = *budgets_[i].pdb;
        if (!pdb.Selects(pod) || pdb.disrupted_pods.count(pod.meta.name)) continue;
        if (--left[i] < 0) violates = true;
      }
      if (!violates) victims.push_back(task);
    }
    return victims;
  }

  std::vector<Budget> budgets_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewPdbPlugin(const Arguments& args) {
  (void)args;  // no arguments; the registry warns about any given
  return std::unique_ptr<Plugin>(new PdbPlugin());
}

}  // namespace basalt
