// gang: all-or-nothing scheduling of a PodGroup's minMember (docs/plugins/gang.md).
//
//  * JobValid: a job that cannot reach minMember (or a role its minTaskMember)
//    with the tasks it has is skipped by every action;
//  * JobReady / JobPipelined decide when allocate commits a job's statement;
//  * Preemptable / Reclaimable offer at most Ready - minMember pods of a job;
//  * JobStarving: fewer than minMember placed (ready + pipelined);
//  * at close, a job that is not ready is marked Unschedulable with the reasons,
//    which turns a PodGroup with running pods into phase Unknown.
#include <map>
#include <optional>
#include <set>

#include "api/subgroup.h"
#include "framework/invariants.h"
#include "framework/session.h"
#include "framework/session_stats.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

int32_t PendingBestEffort(const Session& ssn, const JobInfo& job) {
  int32_t n = 0;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.status == TaskStatus::kPending && t.best_effort) ++n;
  }
  return n;
}

int32_t TaskMinTotal(const JobInfo& job) {
  int32_t total = 0;
  for (const auto& [role, n] : job.min_task_member) total += n;
  return total;
}

// Per-role minimums: every role with a minimum has at least that many tasks in a
// status accepted by `counts`. Skipped (true) when minMember < Σ minTaskMember.
template <typename Counts>
bool RolesMeet(const Session& ssn, const JobInfo& job, Counts counts) {
  if (job.min_task_member.empty() || job.min_member < TaskMinTotal(job)) return true;
  std::map<std::string, int32_t> have;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (counts(t)) ++have[t.role];
  }
  for (const auto& [role, min] : job.min_task_member) {
    if (have[role] < min) return false;
  }
  return true;
}

int32_t AllocatedTaskNum(const JobInfo& job) {
  return job.Count(TaskStatus::kBound) + job.Count(TaskStatus::kBinding) +
         job.Count(TaskStatus::kRunning) + job.Count(TaskStatus::kAllocated);
}

bool IsReadyStatus(TaskStatus s) { return IsAllocatedStatus(s) || s == TaskStatus::kSucceeded; }

// SubGroups (docs/topology.md): for every subGroupPolicy with minSubGroups, at
// least that many of its SubGroups have subGroupSize tasks accepted by
// `counts`. Always true for a job whose PodGroup has no subGroupPolicy.
// `short_of`, when given, names the first policy that falls short.
template <typename Counts>
bool SubGroupsMeet(const Session& ssn, const JobInfo& job, Counts counts,
                   std::string* short_of = nullptr) {
  if (!job.podgroup || job.podgroup->sub_group_policy.empty()) return true;
  const std::vector<SubGroupPolicy>& policies = job.podgroup->sub_group_policy;
  std::vector<int32_t> have(policies.size(), 0);
  const SubGroupIndex& index = ssn.subgroups();
  auto task_of = [&ssn](TaskId id) -> const TaskInfo& { return ssn.task(id); };
  for (int32_t id : index.OfJob(job.id)) {
    const SubGroupInfo& g = index.at(id);
    if (SubGroupHas(g, task_of, counts)) ++have[g.policy];
  }
  for (size_t p = 0; p < policies.size(); ++p) {
    const int32_t min = policies[p].min_sub_groups.value_or(0);
    if (have[p] >= min) continue;
    if (short_of) {
      *short_of = "subGroupPolicy " + PolicyLabel(policies, static_cast<int32_t>(p)) + ": " +
                  std::to_string(have[p]) + " of minSubGroups " + std::to_string(min);
    }
    return false;
  }
  return true;
}

bool ReadyOrBestEffort(const TaskInfo& t) {
  return IsReadyStatus(t.status) || (t.status == TaskStatus::kPending && t.best_effort);
}

class GangPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "gang"; }

  // Check 8 of framework/invariants.h: when gang alone chooses the victims,
  // preempt and reclaim break no gang below minMember; the gang-aware actions
  // (gangpreempt, gangreclaim), which keep gangs whole themselves, always.
  // A gang that lost every running pod was taken whole: not broken.
  void CheckInvariants(const Session& ssn, std::vector<std::string>* violations) const override {
    const std::string_view action = ssn.invariants().action();
    const bool gang_aware = action == "gangreclaim" || action == "gangpreempt";
    if (action != "reclaim" && action != "preempt" && !gang_aware) return;
    const bool reclaim = action == "reclaim" || action == "gangreclaim";
    const Switch vote = reclaim ? Switch::kReclaimable : Switch::kPreemptable;
    if (!gang_aware && !ssn.DecidesVictimsAlone(*this, vote)) return;
    for (const auto& [jid, n] : EvictionsOfAction(ssn).evicted_of_job) {
      const JobInfo& j = ssn.job(jid);
      if (j.ReadyTaskNum() >= j.min_member || AllocatedTaskNum(j) == 0) continue;
      violations->push_back("job " + j.key + " left with " + std::to_string(j.ReadyTaskNum()) +
                            " ready task(s) below minMember " + std::to_string(j.min_member) +
                            " after " + std::to_string(n) + " eviction(s)");
      return;
    }
  }

  void OnSessionOpen(Session& ssn) override {
    ssn.AddJobValidFn([&ssn](const JobInfo& job) -> std::optional<ValidateResult> {
      auto valid_status = [](const TaskInfo& t) {
        return IsAllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded ||
               t.status == TaskStatus::kPipelined || t.status == TaskStatus::kPending;
      };
      if (!RolesMeet(ssn, job, valid_status)) {
        return ValidateResult{"NotEnoughPodsOfTask",
                              "Not enough valid pods of each task for gang-scheduling"};
      }
      std::string short_of;
      if (!SubGroupsMeet(ssn, job, valid_status, &short_of)) {
        return ValidateResult{"NotEnoughPodsOfTask",
                              "Not enough valid subGroups of each task for gang-scheduling (" +
                                  short_of + " can be complete)"};
      }
      int32_t valid = job.ValidTaskNum();
      if (valid < job.min_member) {
        return ValidateResult{
            "NotEnoughPods",
            "Not enough valid tasks for gang-scheduling, valid: " + std::to_string(valid) +
                ", min: " + std::to_string(job.min_member)};
      }
      return std::nullopt;
    });

    auto evictable = [&ssn](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      std::map<JobId, int32_t> occupied;
      std::vector<const TaskInfo*> victims;
      for (const TaskInfo* c : cands) {
        if (c->job == kNone) {
          victims.push_back(c);  // no gang to protect
          continue;
        }
        const JobInfo& job = ssn.job(c->job);
        auto it = occupied.find(c->job);
        if (it == occupied.end()) it = occupied.emplace(c->job, job.ReadyTaskNum()).first;
        if (it->second > job.min_member) {
          victims.push_back(c);
          --it->second;
        }
      }
      return std::make_pair(victims, Vote::kPermit);
    };
    ssn.AddPreemptableFn(evictable);
    ssn.AddReclaimableFn(evictable);

    ssn.AddJobOrderFn([this, &ssn](const JobInfo& a, const JobInfo& b) {
      bool ra = Ready(ssn, a), rb = Ready(ssn, b);
      if (ra == rb) return 0;
      return ra ? 1 : -1;  // not-ready jobs first
    });
    ssn.AddJobReadyFn([this, &ssn](const JobInfo& job) { return Ready(ssn, job); });
    ssn.AddJobPipelinedFn([&ssn](const JobInfo& job) {
      auto placed = [](const TaskInfo& t) {
        return IsReadyStatus(t.status) || t.status == TaskStatus::kPipelined;
      };
      auto placed_or_best_effort = [&placed](const TaskInfo& t) {
        return placed(t) || (t.status == TaskStatus::kPending && t.best_effort);
      };
      bool ok = RolesMeet(ssn, job, placed) &&
                job.WaitingTaskNum() + job.ReadyTaskNum() + PendingBestEffort(ssn, job) >=
                    job.min_member &&
                SubGroupsMeet(ssn, job, placed_or_best_effort);
      return ok ? Vote::kPermit : Vote::kReject;
    });
    ssn.AddJobStarvingFn([](const JobInfo& job) {
      return job.WaitingTaskNum() + job.ReadyTaskNum() < job.min_member;
    });
  }

  void OnSessionClose(Session& ssn) override {
    const int total_nodes = static_cast<int>(ssn.nodes().size());
    SessionStats* stats = ActiveSessionStats();  // null: nobody observes
    if (stats) stats->gang_reported = true;
    for (JobInfo& job : ssn.jobs()) {
      // Volcano v1.15.1's close asks only JobInfo.IsReady (minMember), not
      // the roles or SubGroups the job-ready check adds.
      const bool ready = job.ReadyTaskNum() + PendingBestEffort(ssn, job) >= job.min_member;
      if (stats && !job.tasks.empty()) {
        stats->gangs.push_back(GangReport{job.podgroup ? job.podgroup->meta.name : job.key,
                                          ready ? 0 : job.min_member - job.ReadyTaskNum(), ready});
      }
      if (ready) continue;
      job.unschedulable = true;
      if (!ssn.options().record_events) continue;
      // A gang whose pods do not exist yet is reported by the valid check's
      // words alone, as Volcano's job-valid check says it ("Not enough valid
      // tasks for gang-scheduling, valid: 0, min: 6"): "6/0 tasks in gang
      // unschedulable" would count pods that are not there.
      std::optional<ValidateResult> invalid;
      if (job.tasks.empty()) invalid = ssn.JobValid(job);
      if (invalid) {
        ssn.RecordEvent("PodGroup/" + job.key, "Warning", "Unschedulable", invalid->message);
        continue;
      }
      int32_t schedulable = job.ReadyTaskNum();
      int32_t unready = job.min_member - schedulable;
      std::string msg = std::to_string(unready < 0 ? 0 : unready) + "/" +
                        std::to_string(job.tasks.size()) +
                        " tasks in gang unschedulable: " + FitError(ssn, job, total_nodes);
      ssn.RecordEvent("PodGroup/" + job.key, "Warning", "Unschedulable", msg);
    }
  }

 private:
  static bool Ready(const Session& ssn, const JobInfo& job) {
    // Without pending tasks there is no pending BestEffort one: skip the walk.
    if (job.Count(TaskStatus::kPending) == 0 && job.min_task_member.empty())
      return job.ReadyTaskNum() >= job.min_member && SubGroupsMeet(ssn, job, ReadyOrBestEffort);
    return RolesMeet(ssn, job, ReadyOrBestEffort) &&
           job.ReadyTaskNum() + PendingBestEffort(ssn, job) >= job.min_member &&
           SubGroupsMeet(ssn, job, ReadyOrBestEffort);
  }

  // "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 <fit error>".
  static std::string FitError(const Session& ssn, const JobInfo& job, int total_nodes) {
    if (!job.job_fit_error.empty()) return job.job_fit_error;
    std::map<std::string, int> hist;
    for (size_t s = 0; s < job.status_count.size(); ++s) {
      if (job.status_count[s] > 0)
        hist[TaskStatusName(static_cast<TaskStatus>(s))] += job.status_count[s];
    }
    std::string msg = "pod group is not ready";
    for (const auto& [status, n] : hist) msg += ", " + std::to_string(n) + " " + status;
    msg += ", " + std::to_string(job.min_member) + " minAvailable";
    // Pending tasks by reason, then each distinct node-level explanation.
    int pending = 0;
    std::set<std::string> details;
    for (TaskId id : job.tasks) {
      if (ssn.task(id).status != TaskStatus::kPending) continue;
      ++pending;
      auto fe = job.fit_errors.find(id);
      if (fe != job.fit_errors.end()) details.insert(fe->second.Message(total_nodes));
    }
    if (pending > 0) msg += "; Pending: " + std::to_string(pending) + " Unschedulable";
    for (const std::string& d : details) msg += "; " + d;
    return msg;
  }
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewGangPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new GangPlugin());
}

}  // namespace basalt
