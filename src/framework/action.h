// Action: one step of a scheduling cycle (enqueue, allocate, backfill, preempt,
// reclaim, shuffle). Actions run in the configured order against one session.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "framework/arguments.h"

namespace basalt {

class Session;

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view Name() const = 0;
  // Reads this action's `configurations:` arguments; a wrong type is an error.
  virtual Status Configure(const Arguments& args) {
    (void)args;
    return Status::Ok();
  }
  virtual void Execute(Session& ssn) = 0;
};

using ActionFactory = std::function<std::unique_ptr<Action>()>;

class ActionRegistry {
 public:
  Status Register(std::string name, ActionFactory factory);
  Result<std::unique_ptr<Action>> Create(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, ActionFactory, std::less<>> factories_;
};

// The one list of built-in actions (actions/builtin.cc).
void RegisterBuiltinActions(ActionRegistry& registry);

}  // namespace basalt
