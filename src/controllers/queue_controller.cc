#include "controllers/queue_controller.h"

namespace basalt {

int QueueController::CountPodGroups(const ClusterState& state, const std::string& queue) {
  int n = 0;
  for (const auto& [key, pg] : state.podgroups()) {
    if ((pg.queue.empty() ? "default" : pg.queue) == queue) ++n;
  }
  return n;
}

void QueueController::OnCommand(ClusterState& state, const Command& command) {
  Queue* q = state.EditQueue(command.target.name);
  if (!q) return;
  if (command.action == "OpenQueue") {
    q->state = "Open";
  } else if (command.action == "CloseQueue") {
    q->state = CountPodGroups(state, q->meta.name) == 0 ? "Closed" : "Closing";
  }
}

void QueueController::Sync(ClusterState& state) {
  // One pass over PodGroups, not one per queue.
  std::map<std::string, int> groups;
  for (const auto& [key, pg] : state.podgroups()) ++groups[pg.queue.empty() ? "default" : pg.queue];
  for (auto& [name, q] : state.mutable_queues()) {
    if (q.state.empty()) q.state = "Open";
    if (q.state == "Closing" && groups[name] == 0) q.state = "Closed";
  }
}

}  // namespace basalt
