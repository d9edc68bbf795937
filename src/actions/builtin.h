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
std::unique_ptr<Action> NewShuffleAction();

}  // namespace basalt
