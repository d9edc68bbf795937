// priority: orders jobs and tasks by priority and protects higher-priority work
// from preemption (docs/plugins/priority.md).
//
// Across jobs only job priority (the PodGroup's priorityClassName) counts;
// task priority (pod priority or volcano.sh/task-priority) only orders and
// protects tasks inside one job.
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

int Compare(int32_t a, int32_t b) { return a > b ? -1 : (a < b ? 1 : 0); }  // higher first

class PriorityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "priority"; }

  void OnSessionOpen(Session& ssn) override {
    ssn.AddTaskOrderFn(
        [](const TaskInfo& a, const TaskInfo& b) { return Compare(a.priority, b.priority); });
    ssn.AddJobOrderFn(
        [](const JobInfo& a, const JobInfo& b) { return Compare(a.priority, b.priority); });
    ssn.AddPreemptableFn(
        [&ssn](const TaskInfo& preemptor, const std::vector<const TaskInfo*>& cands) {
          std::vector<const TaskInfo*> victims;
          const JobInfo* pjob = preemptor.job != kNone ? &ssn.job(preemptor.job) : nullptr;
          for (const TaskInfo* c : cands) {
            if (c->job == preemptor.job) {
              if (c->priority < preemptor.priority) victims.push_back(c);
            } else {
              int32_t cprio = c->job != kNone ? ssn.job(c->job).priority : 0;
              int32_t pprio = pjob ? pjob->priority : 0;
              if (cprio < pprio) victims.push_back(c);
            }
          }
          return std::make_pair(victims, Vote::kPermit);
        });
    // Starving while some task is neither placed nor finished.
    ssn.AddJobStarvingFn([](const JobInfo& job) {
      return job.ReadyTaskNum() + job.WaitingTaskNum() < static_cast<int32_t>(job.tasks.size());
    });
  }
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewPriorityPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new PriorityPlugin());
}

}  // namespace basalt
