#include "engine/session_runner.h"

namespace basalt {

Result<Decisions> RunSession(const ClusterState& state, const SchedulerConfig& conf,
                             const PluginRegistry& plugins,
                             const std::vector<std::unique_ptr<Action>>& actions,
                             const SessionOptions& options, const SessionHooks& hooks) {
  auto opened = Session::Open(state, conf, plugins, options);
  if (!opened.ok()) return opened.status();
  Session& ssn = **opened;
  if (!hooks.opened || hooks.opened(ssn)) {
    for (const auto& action : actions) {
      if (hooks.before_action) hooks.before_action(ssn, *action);
      ssn.Run(*action);
      if (hooks.after_action) hooks.after_action(ssn, *action);
    }
    if (hooks.before_close) hooks.before_close(ssn);
  }
  Decisions decisions = ssn.Close();
  if (hooks.closed) hooks.closed(ssn, decisions);
  return decisions;
}

Result<std::vector<std::unique_ptr<Action>>> BuildActions(const std::vector<std::string>& names,
                                                          const SchedulerConfig& conf,
                                                          const ActionRegistry& registry) {
  std::vector<std::unique_ptr<Action>> out;
  for (const std::string& name : names) {
    auto action = registry.Create(name);
    if (!action.ok()) return action.status();
    if (const Arguments* args = conf.ActionArguments(name))
      BASALT_RETURN_IF_ERROR((*action)->Configure(*args));
    out.push_back(std::move(action).value());
  }
  return out;
}

}  // namespace basalt
