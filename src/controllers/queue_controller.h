// The queue controller (docs/controllers.md): Queue `status.state` and the
// queue Commands.
//
//   OpenQueue  => Open
//   CloseQueue => Closed when no PodGroup uses the queue, else Closing
//   sync       => Closing becomes Closed once its PodGroups are gone; an empty
//                 state becomes Open; any other state is kept.
//
// The scheduler writes status.allocated; this controller never touches it.
#pragma once

#include "state/cluster_state.h"

namespace basalt {

class QueueController {
 public:
  // Runs a Command whose target is a Queue; other actions and unknown queues
  // are ignored (the Command is consumed either way by the caller).
  void OnCommand(ClusterState& state, const Command& command);
  void Sync(ClusterState& state);

  // Number of PodGroups in the store whose queue is `queue` ("" = default).
  static int CountPodGroups(const ClusterState& state, const std::string& queue);
};

}  // namespace basalt
