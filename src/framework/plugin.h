// Plugin: the narrow interface every scheduling plugin implements.
//
// A plugin is built once per session from its `PluginOption` (name, switches,
// arguments). In `OnSessionOpen` it registers the extension-point functions it
// provides through `Session::Add*Fn`; the session consults each function only
// when the plugin entry's matching switch is on (see framework/config.h).
// `OnSessionClose` runs before the session computes PodGroup phases.
//
// The framework never tests a plugin's name: what it needs to know about a
// plugin, the plugin answers through the hooks below.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "framework/config.h"

namespace basalt {

class Session;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
  virtual void OnSessionOpen(Session& ssn) = 0;
  virtual void OnSessionClose(Session& ssn) { (void)ssn; }

  // The plugin's own invariants of `ssn` (framework/invariants.h), checked
  // after every action when `SessionOptions::check_invariants` is on: appends
  // a message per violation. `ssn.invariants()` tells the action and the
  // state before it.
  virtual void CheckInvariants(const Session& ssn, std::vector<std::string>* violations) const {
    (void)ssn;
    (void)violations;
  }
  // Whether the plugin's answers depend on the session clock
  // (`SessionOptions::now`): the same store can then get a different answer a
  // period later, so the simulator may skip no cycle.
  virtual bool ReadsClock() const { return false; }
};

// Builds a plugin from its arguments; a wrong argument type is an error.
using PluginFactory = std::function<Result<std::unique_ptr<Plugin>>(const Arguments& args)>;

class PluginRegistry {
 public:
  // Duplicate names are an error.
  Status Register(std::string name, PluginFactory factory);
  // Unknown names are an error listing `Names()`.
  Result<std::unique_ptr<Plugin>> Create(const std::string& name, const Arguments& args) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

// The one list of built-in plugins (plugins/builtin.cc).
void RegisterBuiltinPlugins(PluginRegistry& registry);

}  // namespace basalt
