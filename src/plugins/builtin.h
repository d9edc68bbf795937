// Factories of the built-in plugins. The one list that registers them is
// RegisterBuiltinPlugins (plugins/builtin.cc).
#pragma once

#include <memory>

#include "framework/plugin.h"

namespace basalt {

Result<std::unique_ptr<Plugin>> NewPriorityPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewGangPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewConformancePlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewDrfPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewProportionPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewOvercommitPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewPredicatesPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewNodeOrderPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewBinpackPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewFgdPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewCapacityPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewCapacityCardPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewNodeGroupPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewTaskTopologyPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewDeviceSharePlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewNumaAwarePlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewSlaPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewNetworkTopologyAwarePlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewPdbPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewCdpPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewResourceQuotaPlugin(const Arguments& args);
Result<std::unique_ptr<Plugin>> NewResourceStrategyFitPlugin(const Arguments& args);
// The factory remembers when the strategies last ran, across the sessions of
// the registry it is registered in (plugins/rescheduling.cc).
PluginFactory NewReschedulingPluginFactory();
// The factory remembers when tdm last took pods back from closed zones
// (plugins/tdm.cc), across the sessions of its registry.
PluginFactory NewTdmPluginFactory();

}  // namespace basalt
