basalt_library(plugins SOURCES
  src/plugins/builtin.cc
  src/plugins/binpack.cc
  src/plugins/capacity.cc
  src/plugins/capacity_card.cc
  src/plugins/card_discovery.cc
  src/plugins/conformance.cc
  src/plugins/deviceshare.cc
  src/plugins/drf.cc
  src/plugins/exact_resource.cc
  src/plugins/fgd.cc
  src/plugins/gang.cc
  src/plugins/gpu_devices.cc
  src/plugins/nodegroup.cc
  src/plugins/network_topology_aware.cc
  src/plugins/nodeorder.cc
  src/plugins/numa_aware.cc
  src/plugins/overcommit.cc
  src/plugins/predicates.cc
  src/plugins/priority.cc
  src/plugins/proportion.cc
  src/plugins/rescheduling.cc
  src/plugins/resource_weights.cc
  src/plugins/sla.cc
  src/plugins/task_topology.cc
  src/plugins/unknown_arguments.cc
  DEPS basalt_framework PkgConfig::GMPXX)
