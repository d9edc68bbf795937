// The PodGroup controller for bare pods (VOLCANO_SEMANTICS §9.2): every pod of
// ours without a `scheduling.k8s.io/group-name` annotation gets a PodGroup of
// one (`podgroup-<controlling owner UID, else pod UID>`), and the annotation.
#pragma once

#include <set>
#include <string>

#include "state/cluster_state.h"

namespace basalt {

class PodGroupController {
 public:
  explicit PodGroupController(std::set<std::string> scheduler_names) : scheduler_names_(std::move(scheduler_names)) {}
  void Sync(ClusterState& state);

 private:
  std::set<std::string> scheduler_names_;
};

}  // namespace basalt
