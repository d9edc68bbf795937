// Fuzz target: Volcano scheduler-configuration parsing, then building every
// configured plugin and action from its arguments, as `basalt schedule` does
// before the first cycle.
#include <cstddef>
#include <cstdint>
#include <string>

#include "actions/builtin.h"
#include "framework/config.h"
#include "plugins/builtin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Built once: registries are immutable after registration.
  static const auto* plugins = [] {
    auto* r = new basalt::PluginRegistry();
    basalt::RegisterBuiltinPlugins(*r);
    return r;
  }();
  static const auto* actions = [] {
    auto* r = new basalt::ActionRegistry();
    basalt::RegisterBuiltinActions(*r);
    return r;
  }();
  std::string text(reinterpret_cast<const char*>(data), size);
  auto conf = basalt::ParseSchedulerConfig(text, "fuzz.conf", plugins->Names(), actions->Names());
  if (!conf.ok()) return 0;
  for (const basalt::Tier& tier : conf->tiers) {
    for (const basalt::PluginOption& opt : tier.plugins)
      (void)plugins->Create(opt.name, opt.arguments);
  }
  for (const std::string& name : conf->actions) {
    auto action = actions->Create(name);
    if (!action.ok()) continue;
    if (const basalt::Arguments* args = conf->ActionArguments(name))
      (void)(*action)->Configure(*args);
  }
  return 0;
}
