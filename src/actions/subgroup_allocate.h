// Allocate for a job whose PodGroup has a spec.subGroupPolicy
// (docs/topology.md, "SubGroups").
//
// The job's pods are taken in units: each SubGroup is one unit, gang-scheduled
// inside the job's gang, and each pod in no SubGroup is a unit of its own.
// A SubGroup unit is placed on the nodes of one HyperNode of its own
// networkTopology's tier (the lowest that holds it, as for a job), inside the
// HyperNode the job itself was given; it is kept only when at least
// subGroupSize of its pods are then ready (Allocated on free resources), and
// undone otherwise, so no SubGroup is ever bound in part. SubGroups a policy's
// minSubGroups still needs go first. The job's statement is committed only
// when the job's gang (minMember, minTaskMember and minSubGroups) is ready.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actions/hypernode_search.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {

class SubGroupAllocator {
 public:
  // Allocate's node choice for a task: within the given nodes, or every node.
  using ChooseNodeFn =
      std::function<NodeInfo*(TaskInfo& task, const std::vector<NodeId>* within, FitErrors*)>;

  SubGroupAllocator(Session& ssn, HyperNodeFree& free, ChooseNodeFn choose)
      : ssn_(ssn), free_(free), choose_(std::move(choose)) {}

  // Places units of `job` from `pending` (tasks in reverse TaskOrder, as
  // allocate keeps them) under the job's constraint `job_c`. Returns the
  // statement to commit (the job is ready) or nullptr; `pending` keeps the
  // tasks left for a later turn (none when the job is not ready).
  std::unique_ptr<Statement> Allocate(JobInfo& job, std::vector<TaskId>& pending,
                                      const TopologyConstraint& job_c);

 private:
  struct Unit {
    int32_t group = kNone;      // SubGroup id, or kNone for a pod in no SubGroup
    std::vector<TaskId> tasks;  // pending tasks, in TaskOrder
  };

  std::vector<Unit> UnitsOf(const JobInfo& job, const std::vector<TaskId>& pending) const;
  // Places units in `root` (a HyperNode, or kNone with `within` nullptr for
  // every node); `left` gets the tasks of the units not tried.
  std::unique_ptr<Statement> PlaceIn(JobInfo& job, const std::vector<TaskId>& pending,
                                     HyperNodeId root, const std::vector<NodeId>* within,
                                     std::vector<TaskId>* left);
  bool PlaceGroup(JobInfo& job, Statement& stmt, const Unit& unit, HyperNodeId root,
                  const std::vector<NodeId>* within);
  // Places `tasks` on `within` (or every node); with a SubGroup, keeps them
  // only when the SubGroup is then ready.
  bool PlaceTasks(JobInfo& job, Statement& stmt, const std::vector<TaskId>& tasks, int32_t group,
                  const std::vector<NodeId>* within);
  bool GroupReady(int32_t group) const;

  Session& ssn_;
  HyperNodeFree& free_;
  ChooseNodeFn choose_;
  std::string first_reason_;  // why the first SubGroup that failed in a try failed
};

}  // namespace basalt
