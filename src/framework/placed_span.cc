#include "framework/placed_span.h"

namespace basalt {

HyperNodeId PlacedSpan(const Session& ssn, const std::vector<TaskId>& tasks, bool* on_hypernode,
                       bool* outside) {
  const HyperNodeTree& tree = ssn.hypernodes();
  HyperNodeId span = kNone;
  *on_hypernode = *outside = false;
  for (TaskId id : tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.node == kNone || !IsOnNodeStatus(t.status) || t.best_effort) continue;
    HyperNodeId leaf = tree.LeafOf(t.node);
    if (leaf == kNone) {
      *outside = true;
      continue;
    }
    span = *on_hypernode ? tree.Lca(span, leaf) : leaf;
    *on_hypernode = true;
    if (span == kNone) break;  // separate trees
  }
  return span;
}

}  // namespace basalt
