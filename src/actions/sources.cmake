basalt_library(actions SOURCES
  src/actions/builtin.cc
  src/actions/allocate.cc
  src/actions/backfill.cc
  src/actions/enqueue.cc
  src/actions/hypernode_search.cc
  src/actions/node_selection.cc
  src/actions/subgroup_allocate.cc
  src/actions/preempt.cc
  src/actions/reclaim.cc
  src/actions/shuffle.cc
  src/actions/victim_sets.cc
  DEPS basalt_framework)
