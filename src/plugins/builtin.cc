#include "plugins/builtin.h"

#include "api/check.h"

namespace basalt {

void RegisterBuiltinPlugins(PluginRegistry& r) {
  const std::pair<const char*, PluginFactory> kBuiltins[] = {
      {"priority", NewPriorityPlugin},
      {"gang", NewGangPlugin},
      {"conformance", NewConformancePlugin},
      {"drf", NewDrfPlugin},
      {"proportion", NewProportionPlugin},
      {"overcommit", NewOvercommitPlugin},
      {"predicates", NewPredicatesPlugin},
      {"nodeorder", NewNodeOrderPlugin},
      {"binpack", NewBinpackPlugin},
      {"capacity", NewCapacityPlugin},
      {"capacity-card", NewCapacityCardPlugin},
      {"nodegroup", NewNodeGroupPlugin},
      {"task-topology", NewTaskTopologyPlugin},
      {"deviceshare", NewDeviceSharePlugin},
      {"numa-aware", NewNumaAwarePlugin},
      {"sla", NewSlaPlugin},
      {"rescheduling", NewReschedulingPluginFactory()},
      {"fgd", NewFgdPlugin},
      {"network-topology-aware", NewNetworkTopologyAwarePlugin},
      {"pdb", NewPdbPlugin},
      {"cdp", NewCdpPlugin},
      {"tdm", NewTdmPluginFactory()},
      {"resourcequota", NewResourceQuotaPlugin},
      {"resource-strategy-fit", NewResourceStrategyFitPlugin},
  };
  for (const auto& [name, factory] : kBuiltins) {
    Status st = r.Register(name, factory);
    BASALT_CHECK(st.ok()) << st.message();
  }
}

}  // namespace basalt
