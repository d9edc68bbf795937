// shuffle: evicts the running pods that plugins name as victims (Volcano
// pkg/scheduler/actions/shuffle; docs/semantics/actions.md).
//
// Every Running task of a job in the session is a candidate; the VictimTasks
// extension point chooses (the first tier whose plugins answer; the union of
// their answers), e.g. the rescheduling plugin's lowNodeUtilization strategy.
// The victims are evicted through a statement, the path preempt uses, so they
// show up in the cycle's `evictions` with action "shuffle" and the world step
// terminates them; whoever owns them (vcjob, ReplicaSet) recreates them and a
// later allocate places them again.
//
// With no plugin answering (no rescheduling plugin, or its interval not yet
// over) the action does nothing.
#include <vector>

#include "actions/builtin.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {
namespace {

class ShuffleAction : public Action {
 public:
  std::string_view Name() const override { return "shuffle"; }

  void Execute(Session& ssn) override {
    std::vector<const TaskInfo*> running;
    for (const JobInfo& job : ssn.jobs()) {
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (t.status == TaskStatus::kRunning) running.push_back(&t);
      }
    }
    const std::vector<const TaskInfo*> victims = ssn.VictimTasks(running);
    if (victims.empty()) return;
    Statement stmt(ssn);
    for (const TaskInfo* v : victims) {
      TaskInfo& t = ssn.task(v->id);
      // A plugin may name a task twice or one that is no longer running.
      if (t.status != TaskStatus::kRunning) continue;
      stmt.Evict(t, "shuffle", "chosen by the victim selection of the shuffle action's plugins");
    }
    stmt.Commit();
  }
};

}  // namespace

std::unique_ptr<Action> NewShuffleAction() { return std::make_unique<ShuffleAction>(); }

}  // namespace basalt
