#include "engine/cycle_runner.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace basalt {

CycleRunner::CycleRunner(ClusterState& state, const SchedulerConfig& conf,
                         const PluginRegistry& plugins, const ActionRegistry& actions,
                         SessionOptions options)
    : state_(state),
      conf_(conf),
      plugins_(plugins),
      action_registry_(actions),
      options_(std::move(options)),
      podgroups_(options_.scheduler_names) {
  // The clock starts at the input's latest creation time, so a manifest's
  // timestamps and the simulated time are on one axis.
  for (const auto& [k, o] : state_.pods()) now_ = std::max(now_, o.meta.creation_timestamp);
  for (const auto& [k, o] : state_.jobs()) now_ = std::max(now_, o.meta.creation_timestamp);
  for (const auto& [k, o] : state_.podgroups()) now_ = std::max(now_, o.meta.creation_timestamp);
}

Status CycleRunner::Init() {
  BASALT_ASSIGN_OR_RETURN(actions_, BuildActions(conf_.actions, conf_, action_registry_));
  return Status::Ok();
}

void CycleRunner::SyncControllers() {
  ConsumeCommands();
  jobflows_.Sync(state_, now_);  // before the jobs: a job it creates is expanded in the same sync
  cronjobs_.Sync(state_, now_);  // likewise
  jobs_.Sync(state_, now_);
  job_plugins_.Sync(state_);
  podgroups_.Sync(state_);
  queues_.Sync(state_);
}

// Commands run in creation order (then name) and are deleted once run, like
// Volcano's controllers do; a Command whose target does not exist is dropped.
void CycleRunner::ConsumeCommands() {
  std::vector<const Command*> order;
  for (const auto& [key, c] : state_.commands()) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](const Command* a, const Command* b) {
    return a->meta.creation_timestamp < b->meta.creation_timestamp;
  });
  std::vector<Command> commands;
  for (const Command* c : order) commands.push_back(*c);
  for (const Command& c : commands) {
    state_.DeleteCommand(c.meta.Key());
    if (c.target.kind == "Queue") {
      queues_.OnCommand(state_, c);
    } else if (c.target.kind == "Job") {
      jobs_.OnCommand(state_, c, now_);
    }
  }
}

namespace {

// Every pod that may still be placed, scored on every node (no predicate
// filter), on the snapshot before any action.
std::vector<ScoreEntry> ScoreSnapshot(const Session& ssn) {
  std::vector<ScoreEntry> out;
  std::vector<const NodeInfo*> nodes;
  for (const NodeInfo& n : ssn.nodes()) nodes.push_back(&n);
  for (const TaskInfo& t : ssn.tasks()) {
    if (t.job == kNone || t.status == TaskStatus::kRunning || t.status == TaskStatus::kSucceeded ||
        t.status == TaskStatus::kFailed || t.status == TaskStatus::kReleasing) {
      continue;
    }
    std::vector<double> scores = ssn.NodeScores(t, nodes);
    for (size_t i = 0; i < nodes.size(); ++i) out.push_back({t.key, nodes[i]->name, scores[i]});
  }
  return out;
}

}  // namespace

Result<CycleResult> CycleRunner::RunCycle(bool want_scores) {
  SessionOptions opts = options_;
  opts.cycle = ++cycle_;
  opts.now = now_;
  opts.snapshot_cache = &snapshot_cache_;
  CycleResult result;
  result.cycle = cycle_;
  SessionHooks hooks;
  if (want_scores) {
    hooks.opened = [&result](Session& ssn) {
      result.scores = ScoreSnapshot(ssn);
      return true;
    };
  }
  BASALT_ASSIGN_OR_RETURN(result.decisions,
                          RunSession(state_, conf_, plugins_, actions_, opts, hooks));
  result.state_changed = ApplyDecisions(result.decisions);
  for (const auto& [key, pg] : state_.podgroups()) result.podgroup_phases[key] = pg.phase;
  return result;
}

bool CycleRunner::ApplyDecisions(const Decisions& d) {
  bool changed = false;
  for (const auto& b : d.binds) {
    if (Pod* pod = state_.EditPod(b.pod)) {
      pod->spec.node_name = b.node;
      pod->nominated_node_name.clear();
      pod->scheduled_at = now_;  // the PodScheduled condition the bind would set
      // What the device plugins read (e.g. the cards deviceshare assigned), so
      // the next session's accounting sees where the pod runs.
      for (const auto& [key, value] : b.annotations) pod->meta.annotations[key] = value;
      changed = true;
      if (incremental_) maybe_started_.insert(b.pod);
    }
  }
  for (const auto& e : d.evictions) {
    if (const Pod* pod = state_.FindPod(e.pod)) {
      if (!pod->meta.deleting) {
        changed = true;
        state_.EditPod(e.pod)->meta.deleting = true;
      }
      if (incremental_) maybe_deleting_.insert(e.pod);
    }
  }
  for (const auto& p : d.pipelined) {
    if (!p.nominate) continue;
    if (const Pod* pod = state_.FindPod(p.pod); pod && pod->nominated_node_name != p.node) {
      changed = true;
      state_.EditPod(p.pod)->nominated_node_name = p.node;
    }
  }
  for (const auto& [key, phase] : d.podgroup_phases) {
    if (const PodGroup* pg = state_.FindPodGroup(key); pg && pg->phase != phase) {
      changed = true;
      state_.EditPodGroup(key)->phase = phase;
    }
  }
  for (const auto& [name, allocated] : d.queue_allocated) {
    if (Queue* q = state_.EditQueue(name)) {
      changed |= !(q->allocated == allocated);
      q->allocated = allocated;
    }
  }
  return changed;
}

namespace {

// basalt.io/* pod annotations: a simulation aid (docs/controllers.md) that lets
// a Running pod finish by itself. Malformed values are ignored, never fatal.
constexpr const char* kFinishAfterSteps = "basalt.io/finish-after-steps";
constexpr const char* kFinishPhase = "basalt.io/finish-phase";
constexpr const char* kExitCode = "basalt.io/exit-code";

std::optional<int64_t> IntAnnotation(const Pod& pod, const char* key) {
  auto it = pod.meta.annotations.find(key);
  if (it == pod.meta.annotations.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CycleRunner::ProgressPods(
    const std::set<std::string>* candidates) {
  static const std::string kFinishKey = kFinishAfterSteps;
  std::vector<std::pair<std::string, std::string>> changed;
  std::map<std::string, int64_t> still_running;
  auto progress = [&](const std::string& key, const Pod& current) {
    const Pod& pod = current;
    if (pod.phase == "Running") {
      if (!pod.meta.annotations.count(kFinishKey)) return;
      // A pod that was Running before this step has now run one step longer.
      auto seen = running_steps_.find(key);
      const int64_t steps = seen != running_steps_.end() ? seen->second + 1 : 1;
      std::optional<int64_t> after = IntAnnotation(pod, kFinishAfterSteps);
      if (after && *after >= 0 && steps >= *after) {
        auto ph = pod.meta.annotations.find(kFinishPhase);
        const bool failed = ph != pod.meta.annotations.end() && ph->second == "Failed";
        const int32_t exit_code =
            failed ? static_cast<int32_t>(IntAnnotation(pod, kExitCode).value_or(1)) : 0;
        Pod* edit = state_.EditPod(key);
        edit->phase = failed ? "Failed" : "Succeeded";
        edit->exit_code = exit_code;
        changed.emplace_back(key, "Running");
        return;
      }
      still_running.emplace_hint(still_running.end(), key, steps);
    } else if (pod.phase == "Pending" && !pod.spec.node_name.empty() && !pod.meta.deleting) {
      state_.EditPod(key)->phase = "Running";  // the kubelet started it: zero steps run so far
      if (pod.meta.annotations.count(kFinishKey))
        still_running.emplace_hint(still_running.end(), key, 0);
      changed.emplace_back(key, "Pending");
    }
  };
  if (candidates) {
    for (const std::string& key : *candidates) {
      if (const Pod* pod = state_.FindPod(key)) progress(key, *pod);
    }
  } else {
    for (const auto& [key, pod] : state_.pods()) progress(key, pod);
  }
  running_steps_ = std::move(still_running);
  return changed;
}

void CycleRunner::MarkDeleting(const std::string& key) {
  Pod* pod = state_.EditPod(key);
  if (!pod) return;
  pod->meta.deleting = true;
  if (incremental_) maybe_deleting_.insert(key);
}

// The order of one world step, and why:
//   1. the clock advances (everything below happens "at" the new time);
//   2. pods marked deleting (evicted this cycle) disappear, and only then does
//      the job controller react to each (PodEvicted): a gang policy
//      (AbortJob/RestartJob) kills the rest of the job in this same step, so no
//      half-running gang survives the step;
//   3. pods progress — Running pods whose finish-after-steps ran out finish,
//      bound pods start — and the job controller reacts to each change
//      (PodFailed with the exit code, TaskCompleted, PodRunning);
//   4. Commands are consumed (queue open/close, job abort/resume/restart);
//   5. controllers sync: JobFlows (jobs whose targets completed), jobs
//      (SyncJob of the current phase, Unknown, delayed actions, TTL), the job
//      plugins' objects, then bare-pod PodGroups, then queue states (after the
//      jobs, so a PodGroup deleted by a kill lets a Closing queue close).
WorldStepResult CycleRunner::WorldStep() {
  now_ += step_seconds_;
  WorldStepResult result;
  // Incremental after the first step: only the pods known to have changed.
  const bool scan_all = !incremental_ || !stepped_;
  stepped_ = true;
  std::vector<Pod> deleted;
  if (scan_all) {
    for (const auto& [key, pod] : state_.pods()) {
      if (pod.meta.deleting) deleted.push_back(pod);
    }
  } else {
    for (const std::string& key : maybe_deleting_) {
      const Pod* pod = state_.FindPod(key);
      if (pod && pod->meta.deleting) deleted.push_back(*pod);
    }
  }
  maybe_deleting_.clear();
  for (const Pod& pod : deleted) {
    result.deleted.push_back(pod.meta.Key());
    state_.DeletePod(result.deleted.back());
  }
  for (const Pod& pod : deleted) jobs_.OnPodDeleted(state_, pod, now_);
  std::set<std::string> candidates;
  if (!scan_all) {
    candidates = std::move(maybe_started_);
    for (const auto& [key, steps] : running_steps_) candidates.insert(key);
  }
  maybe_started_.clear();
  const auto progressed = ProgressPods(scan_all ? nullptr : &candidates);
  result.progressed = progressed.size();
  for (const auto& [key, old_phase] : progressed) {
    // An earlier reaction in this loop may have killed the pod.
    if (const Pod* pod = state_.FindPod(key))
      jobs_.OnPodPhaseChanged(state_, *pod, old_phase, now_);
  }
  SyncControllers();
  return result;
}

}  // namespace basalt
