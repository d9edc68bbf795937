// The last check before a bind (docs/semantics/session.md): Volcano v1.15.1's
// NodeInfo.AddTask for a Binding task, made on the scheduler cache's node.
#pragma once

#include <vector>

#include "framework/types.h"

namespace basalt {

// Whether `task` (Allocated on its node) fits that node as the cluster sees
// it: the node's idle plus the requests of the session's Allocated tasks on
// it, which are not bound yet (`task` included). cpu and memory are always
// compared, scalars only those the task asks for (LessEqual), so an empty
// request does not fit a node whose idle cpu or memory is negative.
bool BindFits(const std::vector<NodeInfo>& nodes, const std::vector<TaskInfo>& tasks,
              const TaskInfo& task);

}  // namespace basalt
