#include "sim/cycle_runner.h"

#include <algorithm>

namespace basalt {

CycleRunner::CycleRunner(ClusterState& state, const SchedulerConfig& conf, const PluginRegistry& plugins,
                         const ActionRegistry& actions, SessionOptions options)
    : state_(state),
      conf_(conf),
      plugins_(plugins),
      action_registry_(actions),
      options_(std::move(options)),
      podgroups_(options_.scheduler_names) {}

Status CycleRunner::Init() {
  for (const std::string& name : conf_.actions) {
    auto action = action_registry_.Create(name);
    if (!action.ok()) return action.status();
    if (const Arguments* args = conf_.ActionArguments(name)) {
      BASALT_RETURN_IF_ERROR((*action)->Configure(*args));
    }
    actions_.push_back(std::move(action).value());
  }
  return Status::Ok();
}

void CycleRunner::SyncControllers() {
  jobs_.Sync(state_);
  podgroups_.Sync(state_);
}

Result<CycleResult> CycleRunner::RunCycle(bool want_scores) {
  SessionOptions opts = options_;
  opts.cycle = ++cycle_;
  auto opened = Session::Open(state_, conf_, plugins_, opts);
  if (!opened.ok()) return opened.status();
  Session& ssn = **opened;
  CycleResult result;
  result.cycle = cycle_;
  if (want_scores) {
    // On the snapshot before any action; every node, no predicate filter.
    std::vector<const NodeInfo*> nodes;
    for (const NodeInfo& n : ssn.nodes()) nodes.push_back(&n);
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.job == kNone || t.status == TaskStatus::kRunning || t.status == TaskStatus::kSucceeded ||
          t.status == TaskStatus::kFailed || t.status == TaskStatus::kReleasing) {
        continue;
      }
      std::vector<double> scores = ssn.NodeScores(t, nodes);
      for (size_t i = 0; i < nodes.size(); ++i) result.scores.push_back({t.key, nodes[i]->name, scores[i]});
    }
  }
  for (auto& action : actions_) ssn.Run(*action);
  result.decisions = ssn.Close();
  ApplyDecisions(result.decisions);
  for (const auto& [key, pg] : state_.podgroups()) result.podgroup_phases[key] = pg.phase.empty() ? "Pending" : pg.phase;
  return result;
}

void CycleRunner::ApplyDecisions(const Decisions& d) {
  for (const auto& b : d.binds) {
    if (Pod* pod = state_.FindPod(b.pod)) {
      pod->spec.node_name = b.node;
      pod->nominated_node_name.clear();
    }
  }
  for (const auto& e : d.evictions) {
    if (Pod* pod = state_.FindPod(e.pod)) pod->meta.deleting = true;
  }
  for (const auto& p : d.pipelined) {
    if (!p.nominate) continue;
    if (Pod* pod = state_.FindPod(p.pod)) pod->nominated_node_name = p.node;
  }
  for (const auto& [key, phase] : d.podgroup_phases) {
    if (PodGroup* pg = state_.FindPodGroup(key)) pg->phase = phase;
  }
  for (const auto& [name, allocated] : d.queue_allocated) {
    if (Queue* q = state_.FindQueue(name)) q->allocated = allocated;
  }
}

void CycleRunner::WorldStep() {
  std::vector<Pod> deleted;
  for (const auto& [key, pod] : state_.pods()) {
    if (pod.meta.deleting) deleted.push_back(pod);
  }
  for (const Pod& pod : deleted) state_.DeletePod(pod.meta.Key());
  for (const Pod& pod : deleted) jobs_.OnPodDeleted(state_, pod);
  for (auto& [key, pod] : state_.mutable_pods()) {
    if (pod.phase == "Pending" && !pod.spec.node_name.empty()) pod.phase = "Running";
  }
  SyncControllers();
}

}  // namespace basalt
