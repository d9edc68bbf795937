// Where a set of a session's pods sits in the HyperNode tree: shared by the
// hypernode search of allocate and the topology invariants, which must agree
// on what "the pods span" means.
#pragma once

#include <vector>

#include "framework/session.h"

namespace basalt {

// The HyperNode the placed pods among `tasks` span (on a node, not BestEffort:
// those are backfilled anywhere, as in Volcano): the lowest common ancestor of
// their leaves. `*on_hypernode` says whether one is on a HyperNode's node,
// `*outside` whether one is on a node of no HyperNode. kNone with
// `*on_hypernode`: they are in separate trees, no HyperNode holds them all.
HyperNodeId PlacedSpan(const Session& ssn, const std::vector<TaskId>& tasks, bool* on_hypernode,
                       bool* outside);

}  // namespace basalt
