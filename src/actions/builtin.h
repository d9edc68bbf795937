// Factories of the built-in actions; RegisterBuiltinActions (actions/builtin.cc) lists them.
#pragma once

#include <memory>

#include "framework/action.h"

namespace basalt {

std::unique_ptr<Action> NewEnqueueAction();
std::unique_ptr<Action> NewAllocateAction();
std::unique_ptr<Action> NewBackfillAction();
std::unique_ptr<Action> NewPreemptAction();
std::unique_ptr<Action> NewReclaimAction();
// Volcano's gang-aware actions: preempt and reclaim with every job served by
// gang-aware eviction (actions/victim_sets.h).
std::unique_ptr<Action> NewGangPreemptAction();
std::unique_ptr<Action> NewGangReclaimAction();
std::unique_ptr<Action> NewShuffleAction();

}  // namespace basalt
