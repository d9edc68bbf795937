// Node selection shared by the actions: which nodes a task fits (with the fit
// errors of the others) and which of them is best.
//
// Cost: `FeasibleNodes` is O(nodes) predicate calls per task; identical tasks of
// one job (same request, same role, same pod spec shape) share the result of
// the last failure through the failed-role cache in allocate.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/session.h"

namespace basalt {

// Names of the dimensions of `request` that exceed `available` ("Insufficient cpu", ...).
std::vector<std::string> InsufficientResourceReasons(const Resource& request, const Resource& available);

enum class FitMode {
  kAllocate,  // resource fit against FutureIdle, then every predicate must pass
  kBackfill,  // no resource check (BestEffort), predicates must pass
};

// Nodes (in snapshot order) where `task` fits; reasons for the others go to `errors`.
std::vector<NodeInfo*> FeasibleNodes(Session& ssn, const TaskInfo& task, FitMode mode, FitErrors* errors);

// Feasible nodes per equivalence class of tasks, kept across the tasks of one
// action: the first task of a class checks every node; a later task of the same
// class re-checks only the nodes whose bookkeeping changed since (placements
// and evictions are logged by the session), so a gang of N identical pods costs
// one full pass plus one re-check per placement.
class FeasibilityCache {
 public:
  // Feasible nodes for `task` in allocate mode (resource fit against FutureIdle,
  // then predicates), in snapshot order; when there is none, the reasons of
  // every node go to `errors`.
  std::vector<NodeInfo*> Feasible(Session& ssn, const TaskInfo& task, FitErrors* errors);

 private:
  struct Entry {
    size_t seen = 0;                    // position in the session's node change log
    std::vector<uint8_t> ok;            // per node
    std::map<NodeId, std::vector<std::string>> reasons;  // failing nodes only
  };
  void Check(Session& ssn, const TaskInfo& task, NodeInfo& node, Entry& e);
  std::map<int32_t, Entry> entries_;
};

// The best node among `candidates` by summed node-order scores; ties go to the
// earliest node in snapshot (name) order. `candidates` must not be empty.
NodeInfo* BestNode(Session& ssn, const TaskInfo& task, const std::vector<NodeInfo*>& candidates);

// Nodes (in snapshot order) that pass the predicates as preempt and reclaim read
// them: a plain Unschedulable answer is ignored (evictions may fix it); only
// Unresolvable or Error rejects the node. No resource check.
std::vector<NodeInfo*> NodesForEviction(Session& ssn, const TaskInfo& task);

// Sorts victims in the order they are evicted (VOLCANO_SEMANTICS §3):
// tasks of one job in reverse task order; jobs of different queues by the
// victim-queue order relative to `preemptor_queue`; jobs of one queue in
// reverse job order.
void SortVictims(const Session& ssn, const QueueInfo& preemptor_queue, std::vector<const TaskInfo*>& victims);

// Sum of the victims' requests.
Resource SumRequests(const std::vector<const TaskInfo*>& tasks);

}  // namespace basalt
