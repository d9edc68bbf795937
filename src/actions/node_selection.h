// Node selection shared by the actions: which nodes a task fits (with the fit
// errors of the others) and which of them is best.
//
// Cost: `FeasibleNodes` is O(nodes) predicate calls per task; identical tasks of
// one job (same request, same role, same pod spec shape) share the result of
// the last failure through the failed-role cache in allocate.
#pragma once

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

// The best node among `candidates` by summed node-order scores; ties go to the
// earliest node in snapshot (name) order. `candidates` must not be empty.
NodeInfo* BestNode(Session& ssn, const TaskInfo& task, const std::vector<NodeInfo*>& candidates);

}  // namespace basalt
