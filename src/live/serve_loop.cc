#include "live/serve_loop.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "actions/builtin.h"
#include "api/decode.h"
#include "api/log.h"
#include "api/quantity.h"
#include "api/well_known.h"
#include "engine/session_runner.h"
#include "live/podgroup_status.h"
#include "live/render.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

using Clock = std::chrono::steady_clock;

// How long a pod without a PodGroup is not reported as unschedulable.
constexpr int64_t kPodGroupCreationGraceSeconds = 10;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

void DeclareServeMetrics(kube::Metrics& m) {
  m.Histogram("basalt_cycle_duration_seconds",
              "Wall time of one scheduling cycle (session and API writes).",
              {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
  m.Histogram("basalt_action_duration_seconds", "Wall time of one action within a session.",
              {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}, {"action"});
  m.Counter("basalt_cycles_total", "Scheduling cycles run (as leader).");
  m.Counter("basalt_pods_bound_total", "Pods bound through pods/binding (201).");
  m.Counter("basalt_bind_conflicts_total", "Binds answered 409 or 404 (re-read, never retried).",
            {"outcome"});
  m.Counter("basalt_bind_failures_total",
            "Binds without a verdict (no reply, 5xx): the pod is decided again after a backoff.");
  m.Gauge("basalt_binds_in_flight", "Binds sent and not answered yet.");
  m.Counter("basalt_pods_evicted_total", "Pods evicted through pods/eviction (201).", {"action"});
  m.Counter("basalt_evictions_blocked_total", "Evictions refused by a disruption budget (429).");
  m.Counter("basalt_podgroup_status_writes_total", "PodGroup status writes (merge patch).");
  m.Counter("basalt_queue_status_writes_total",
            "Queue status merge patches on queues/NAME/status.");
  m.Counter("basalt_pod_condition_writes_total",
            "PodScheduled=False conditions written on pods that cannot be placed.");
  m.Gauge("basalt_pending_pods", "Pods with our scheduler name and no node after the last cycle.");
  m.Gauge("basalt_queue_allocated", "Resources allocated to a queue after the last cycle.",
          {"queue", "resource"});
  m.Gauge("basalt_queue_deserved", "A queue's spec.deserved.", {"queue", "resource"});
  m.Gauge("basalt_queue_capability", "A queue's spec.capability.", {"queue", "resource"});
}

ServeLoop::ServeLoop(kube::Client* client, ClusterState* state, std::mutex* state_mu,
                     kube::Metrics* metrics, kube::Clock* clock, ServeLoopOptions options)
    : client_(client),
      state_(state),
      state_mu_(state_mu),
      metrics_(metrics),
      volcano_metrics_(metrics),
      clock_(clock),
      options_(std::move(options)) {
  RegisterBuiltinPlugins(plugins_);
  RegisterBuiltinActions(actions_registry_);
  DeclareServeMetrics(*metrics_);
  binder_ = std::make_unique<BindPipeline>(client_, options_.bind_parallelism);
  auto binds_waiting = [this] { return binder_->Waiting() > 0; };
  events_ = std::make_unique<EventWriter>(client_, metrics_, 4096, binds_waiting);
  status_ =
      std::make_unique<StatusWriter>(client_, metrics_, options_.status_parallelism, binds_waiting);
}

ServeLoop::~ServeLoop() { Shutdown(std::chrono::milliseconds(0)); }

Status ServeLoop::Configure(const std::string& conf_text, const std::string& source) {
  const std::string text = conf_text.empty() ? DefaultSchedulerConfigText() : conf_text;
  auto conf = ParseSchedulerConfig(text, source, plugins_.Names(), actions_registry_.Names());
  if (!conf.ok()) return conf.status();
  for (const Tier& tier : conf->tiers) {
    for (const PluginOption& opt : tier.plugins) {
      auto p = plugins_.Create(opt.name, opt.arguments);
      if (!p.ok()) return p.status().WithContext(source);
    }
  }
  std::vector<std::unique_ptr<Action>> actions;
  for (const std::string& name : conf->actions) {
    auto action = actions_registry_.Create(name);
    if (!action.ok()) return action.status().WithContext(source);
    if (const Arguments* args = conf->ActionArguments(name)) {
      Status s = (*action)->Configure(*args);
      if (!s.ok()) return s.WithContext(source);
    }
    actions.push_back(std::move(action).value());
  }
  conf_ = std::make_unique<SchedulerConfig>(std::move(conf).value());
  actions_ = std::move(actions);
  return Status::Ok();
}

void ServeLoop::ApplyAssumedLocked(Clock::time_point now) {
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    const Pod* pod = state_->FindPod(it->first);
    const Assumed& a = it->second;
    bool drop = pod == nullptr || (!a.uid.empty() && pod->meta.uid != a.uid) ||
                (!a.on_the_wire && now - a.since > options_.assume_ttl);
    if (!drop && a.evicted) {
      if (pod->meta.deleting)
        drop = true;  // the informer shows it: nothing to assume
      else
        state_->EditPod(it->first)->meta.deleting = true;
    } else if (!drop) {
      if (!pod->spec.node_name.empty()) {
        drop = true;
      } else {
        Pod* edit = state_->EditPod(it->first);
        edit->spec.node_name = a.node;
        edit->nominated_node_name.clear();
      }
    }
    it = drop ? assumed_.erase(it) : std::next(it);
  }
}

void ServeLoop::Fail(const kube::ApiError& e, CycleSummary* sum) {
  ++sum->api_failures;
  sum->errors.push_back(e.ToString());
  Log("serve").warn("msg=\"API call failed\" error={}", LogValue(e.ToString()));
}

void ServeLoop::Event(const std::string& object, const std::string& uid, const std::string& type,
                      const std::string& reason, const std::string& action,
                      const std::string& message, CycleSummary* sum) {
  if (!options_.write_events) return;
  auto now = clock_->Now();
  std::string dedupe = object + "|" + reason;
  auto sent = sent_events_.find(dedupe);
  if (sent != sent_events_.end() && sent->second.message == message &&
      now - sent->second.at < options_.event_repeat) {
    return;
  }
  // "Pod/ns/name", "PodGroup/ns/name", "Queue/name".
  auto slash = object.find('/');
  if (slash == std::string::npos) return;
  kube::EventSpec ev;
  ev.regarding_kind = object.substr(0, slash);
  auto [ns, name] = SplitKey(object.substr(slash + 1));
  ev.namespace_ = ns.empty() ? "default" : ns;
  ev.regarding_name = name;
  ev.regarding_uid = uid;
  ev.regarding_api_version = ev.regarding_kind == "Pod" ? "v1" : "scheduling.volcano.sh/v1beta1";
  ev.type = type;
  ev.reason = reason;
  ev.action = action;
  ev.note = message.size() > 1000 ? message.substr(0, 1000) : message;
  ev.reporting_controller = "basalt";
  ev.reporting_instance = options_.reporting_instance;
  if (!events_->Post(std::move(ev))) return;  // dropped (counted): the queue is full
  sent_events_[dedupe] = SentEvent{message, now};
  ++sum->events;
}

void ServeLoop::ApplyEvictions(const std::vector<EvictDecision>& evictions,
                               const std::map<std::string, PodInfo>& pods, CycleSummary* sum) {
  auto now = clock_->Now();
  std::set<std::string> done;
  for (const EvictDecision& e : evictions) {
    if (Stopping()) break;  // SIGTERM: no new writes
    if (!done.insert(e.pod).second) continue;
    auto info = pods.find(e.pod);
    std::string uid = info == pods.end() ? "" : info->second.uid;
    auto blocked = blocked_until_.find(e.pod);
    if (blocked != blocked_until_.end() && now < blocked->second) {
      ++sum->evictions_deferred;  // the budget said when to ask again; not yet
      continue;
    }
    auto [ns, name] = SplitKey(e.pod);
    auto r = client_->Evict(ns, name);
    if (!r.ok()) {
      Fail(r.error(), sum);
      continue;
    }
    switch (r->outcome) {
      case kube::EvictOutcome::kEvicted:
        blocked_until_.erase(e.pod);
        assumed_[e.pod] = Assumed{uid, "", true, now};
        ++sum->evictions;
        metrics_->Inc("basalt_pods_evicted_total", {e.action});
        Event("Pod/" + e.pod, uid, "Normal", "Evict", "Evicting",
              "Evicted by " + e.action + (e.reason.empty() ? "" : ": " + e.reason), sum);
        break;
      case kube::EvictOutcome::kBlockedByBudget: {
        ++sum->evictions_blocked;
        metrics_->Inc("basalt_evictions_blocked_total");
        if (r->retry_after_seconds > 0)
          blocked_until_[e.pod] = now + std::chrono::seconds(r->retry_after_seconds);
        Event("Pod/" + e.pod, uid, "Warning", "EvictionBlocked", "Evicting",
              "Eviction by " + e.action + " refused: " + r->message, sum);
        break;
      }
      case kube::EvictOutcome::kPodGone:
        blocked_until_.erase(e.pod);
        break;
    }
  }
}

void ServeLoop::SendBinds(const std::vector<BindDecision>& binds,
                          const std::map<std::string, PodInfo>& pods, CycleSummary* sum) {
  auto now = clock_->Now();
  std::set<std::string> seen;
  for (const BindDecision& b : binds) {
    auto info = pods.find(b.pod);
    // Defensive: the session never binds a pod that has a node (a bind on the
    // wire counts: it is assumed), and the same pod twice in one cycle would
    // be a session bug; neither reaches the API.
    if (info == pods.end() || info->second.has_node || !seen.insert(b.pod).second) continue;
    if (Stopping()) break;
    auto backoff = bind_backoff_.find(b.pod);
    if (backoff != bind_backoff_.end() && now < backoff->second.until) {
      ++sum->binds_deferred;
      continue;
    }
    assumed_[b.pod] = Assumed{info->second.uid, b.node, false, now, true};
    if (!binder_->Submit(
            BindRequest{b.pod, info->second.uid, b.node, b.annotations, info->second.created})) {
      assumed_.erase(b.pod);  // shutting down: never sent
      continue;
    }
    ++sum->binds_sent;
    // A PodScheduled=False still queued for it would be stale once it lands.
    status_->Forget("Pod/" + b.pod + "#unschedulable");
    status_->Forget("Pod/" + b.pod + "#nominated");
  }
  metrics_->Set("basalt_binds_in_flight", static_cast<double>(binder_->InFlight()));
}

void ServeLoop::CollectBindAnswers(CycleSummary* sum) {
  auto now = clock_->Now();
  for (BindCompletion& done : binder_->TakeCompleted()) {
    const std::string& key = done.request.pod;
    const std::string& uid = done.request.uid;
    auto assumed = assumed_.find(key);
    bool ours = assumed != assumed_.end() && assumed->second.uid == uid;
    if (done.error) {
      // No verdict: the next sessions may decide again, after a backoff.
      Fail(*done.error, sum);
      ++sum->bind_failures;
      metrics_->Inc("basalt_bind_failures_total");
      volcano_metrics_.CountAttempts("error", 1);
      if (ours && assumed->second.on_the_wire) assumed_.erase(assumed);
      BindBackoff& b = bind_backoff_[key];
      auto wait = options_.bind_backoff_initial * (int64_t{1} << std::min(b.failures, 16));
      b.until = now + std::min<std::chrono::milliseconds>(wait, options_.bind_backoff_max);
      ++b.failures;
      continue;
    }
    bind_backoff_.erase(key);
    if (done.prebind_seconds >= 0) {
      volcano_metrics_.ObserveStageDuration(volcano_stage::kPreBind, done.prebind_seconds);
      volcano_metrics_.ObserveTaskStage(volcano_stage::kPreBound, done.request.created,
                                        done.prebound_at);
    }
    if (done.outcome == kube::BindOutcome::kBound) {
      volcano_metrics_.ObserveStageDuration(volcano_stage::kBind, done.bind_seconds);
      volcano_metrics_.ObserveTaskStage(volcano_stage::kBound, done.request.created, done.bound_at);
      if (ours) {
        assumed->second.on_the_wire = false;
        assumed->second.since = now;  // the TTL runs from the server's answer
      }
      ++sum->binds;
      metrics_->Inc("basalt_pods_bound_total");
      Event("Pod/" + key, uid, "Normal", "Scheduled", "Binding",
            "Successfully assigned " + key + " to " + done.request.node, sum);
      continue;
    }
    static const char* names[] = {"bound", "already_bound", "terminating", "conflict", "gone"};
    ++sum->bind_conflicts;
    metrics_->Inc("basalt_bind_conflicts_total", {names[static_cast<int>(done.outcome)]});
    Log("serve").info("msg=\"bind refused, re-read the pod (not retried)\" pod={} node={} reply={}",
                      key, done.request.node, LogValue(done.message));
    // Take the pod as the server has it until the informer shows the same.
    if (done.refreshed && (!done.server_node.empty() || done.server_deleting)) {
      assumed_[key] = Assumed{uid, done.server_node,
                              done.server_node.empty() && done.server_deleting, now, false};
    } else if (ours) {
      assumed_.erase(assumed);
    }
  }
  metrics_->Set("basalt_binds_in_flight", static_cast<double>(binder_->InFlight()));
}

CycleSummary ServeLoop::AwaitBinds(std::chrono::milliseconds limit) {
  CycleSummary sum;
  sum.cycle = cycle_;
  binder_->WaitIdle(limit);
  CollectBindAnswers(&sum);
  status_->WaitIdle(limit);
  events_->WaitIdle(limit);
  return sum;
}

void ServeLoop::Shutdown(std::chrono::milliseconds limit, const std::function<void()>& cut_off) {
  auto start = Clock::now();
  for (const BindRequest& never_sent : binder_->StopTaking(limit)) assumed_.erase(never_sent.pod);
  if (cut_off) cut_off();
  binder_->Stop(std::chrono::milliseconds(0));
  status_->Stop(std::chrono::milliseconds(0));  // descriptions of a cycle that no longer counts
  CycleSummary sum;
  CollectBindAnswers(&sum);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(limit - (Clock::now() - start));
  events_->Stop(std::max(std::chrono::milliseconds(0), left));
}

ServeLoop::SessionReasons ServeLoop::SessionReasons::Of(const Decisions& d) {
  SessionReasons out;
  for (const EventRecord& e : d.events) {
    auto slash = e.object.find('/');
    if (slash == std::string::npos) continue;
    std::string kind = e.object.substr(0, slash), key = e.object.substr(slash + 1);
    if (kind == "Pod" && e.reason == "FailedScheduling") out.pod[key] = e.message;
    if (kind == "PodGroup" && e.reason == "Unschedulable") out.group[key] = e.message;
  }
  return out;
}

// Every pod of ours still without a node gets the condition cluster
// autoscalers act on (PodScheduled=False, reason Unschedulable) and, when the
// session said nothing about the pod itself (a gang member that was tried and
// dropped, a group the queue refused, a group not admitted yet), a
// FailedScheduling event with its group's reason, so `kubectl describe pod`
// always says why. Written only when the reason changes.
void ServeLoop::ReportUnschedulable(const std::vector<PendingPod>& pending, const Decisions& d,
                                    const SessionReasons& reasons, int64_t now, CycleSummary* sum) {
  std::set<std::string> bound;
  for (const BindDecision& b : d.binds) bound.insert(b.pod);
  const std::map<std::string, std::string>& pod_reason = reasons.pod;
  const std::map<std::string, std::string>& group_reason = reasons.group;
  std::set<std::string> still_pending;
  for (const PendingPod& p : pending) {
    if (Stopping()) break;  // SIGTERM: no new writes
    if (bound.count(p.key)) continue;
    // A bare pod gets its PodGroup from the controllers' next pass, a period
    // from now: until then there is nothing to report, and a condition and an
    // event for each of a burst of new pods would only slow the binds down.
    if (p.group.empty() && now - p.created < kPodGroupCreationGraceSeconds) continue;
    still_pending.insert(p.key);
    std::string message;
    bool own_event = false;
    if (auto it = pod_reason.find(p.key); it != pod_reason.end()) {
      message = it->second;
      own_event = true;
    } else if (auto g = group_reason.find(p.group); g != group_reason.end()) {
      message = "pod group " + p.group + ": " + g->second;
    } else if (p.group.empty()) {
      message = "waiting for its PodGroup to be created";
    } else {
      auto phase = d.podgroup_phases.find(p.group);
      message = phase == d.podgroup_phases.end()
                    ? "pod group " + p.group + " does not exist"
                    : "pod group " + p.group + " is " + PodGroupPhaseName(phase->second) +
                          ": waiting for the scheduler to admit and place the whole gang";
    }
    if (!own_event) {
      Event("Pod/" + p.key, p.uid, "Warning", "FailedScheduling", "Scheduling", message, sum);
    }
    auto [ns, name] = SplitKey(p.key);
    Json condition = {{"type", "PodScheduled"},
                      {"status", "False"},
                      {"reason", "Unschedulable"},
                      {"message", message.size() > 1000 ? message.substr(0, 1000) : message},
                      {"lastProbeTime", nullptr},
                      {"lastTransitionTime", kube::WallMicroTimeNow()}};
    status_->Put("Pod/" + p.key + "#unschedulable",
                 StatusWrite{"/api/v1/namespaces/" + ns + "/pods/" + name + "/status",
                             Json{{"status", {{"conditions", Json::array({condition})}}}},
                             "application/strategic-merge-patch+json", message,
                             "basalt_pod_condition_writes_total"});
  }
  // Bound (or gone) since: what was said of them no longer holds.
  for (auto it = pods_described_unschedulable_.begin();
       it != pods_described_unschedulable_.end();) {
    if (still_pending.count(*it)) {
      ++it;
      continue;
    }
    status_->Forget("Pod/" + *it + "#unschedulable");
    it = pods_described_unschedulable_.erase(it);
  }
  pods_described_unschedulable_.insert(still_pending.begin(), still_pending.end());
}

void ServeLoop::ObserveNewPod(const Json& pod) {
  auto spec = pod.find("spec");
  auto meta = pod.find("metadata");
  if (spec == pod.end() || !spec->is_object() || meta == pod.end() || !meta->is_object()) return;
  if (spec->value("schedulerName", "") != options_.scheduler_name) return;
  if (!spec->value("nodeName", "").empty()) return;
  auto created = ParseTimestamp(meta->value("creationTimestamp", ""));
  if (!created.ok()) return;
  volcano_metrics_.ObserveTaskStage(volcano_stage::kWatched, *created, WallSeconds());
}

// Assumed: the session placed the pod (Volcano observes it when the bind is
// dispatched); a job's end-to-end time: one of its tasks was placed or
// pipelined.
void ServeLoop::RecordPlacementsLocked(const Decisions& d) {
  const double now = WallSeconds();
  auto placed = [&](const std::string& pod_key, bool bound) {
    const Pod* pod = state_->FindPod(pod_key);
    if (pod == nullptr) return;
    if (bound)
      volcano_metrics_.ObserveTaskStage(volcano_stage::kAssumed, pod->meta.creation_timestamp, now);
    auto group = pod->meta.annotations.find(kGroupNameAnnotation);
    if (group == pod->meta.annotations.end()) return;
    const PodGroup* pg = state_->FindPodGroup(pod->meta.namespace_ + "/" + group->second);
    if (pg == nullptr) return;
    volcano_metrics_.JobTaskPlaced(*pg, pg->queue.empty() ? "default" : pg->queue, now);
  };
  for (const BindDecision& b : d.binds) placed(b.pod, true);
  for (const PipelineDecision& p : d.pipelined) placed(p.pod, false);
}

void ServeLoop::ObserveObject(const std::string& kind, bool deleted, const std::string& key,
                              const Json& object, const ClusterState& before) {
  if (kind == "Pod" && !deleted && before.FindPod(key) == nullptr) ObserveNewPod(object);
  if (kind != "PodGroup") return;
  if (deleted) {
    podgroup_on_server_.erase(key);
    return;
  }
  auto st = object.find("status");
  if (st == object.end() || !st->is_object()) {
    podgroup_on_server_.erase(key);
    return;
  }
  podgroup_on_server_[key] = PodGroupStatusText(*st);
}

// One merge patch of `status` per PodGroup whose status changed since we
// last wrote it (or since the server was seen to hold it): no read first, and
// nothing but the status fields we own is touched (a label someone else set
// stays). Sent by the status writer, after the binds.
void ServeLoop::WritePodGroupStatus(const std::map<std::string, Json>& desired, CycleSummary* sum) {
  // Seconds, as metav1.Time has them.
  std::string now = kube::WallMicroTimeNow();
  if (auto dot = now.find('.'); dot != std::string::npos) now = now.substr(0, dot) + "Z";
  for (const auto& [key, status] : desired) {
    if (Stopping()) break;  // SIGTERM: no new writes
    auto [ns, name] = SplitKey(key);
    StatusWrite write{"/apis/scheduling.volcano.sh/v1beta1/namespaces/" + ns + "/podgroups/" + name,
                      PodGroupStatusPatch(status, now), "application/merge-patch+json",
                      PodGroupStatusText(status), "basalt_podgroup_status_writes_total"};
    if (status_->Put("PodGroup/" + key, std::move(write))) ++sum->podgroup_writes;
  }
}

CycleSummary ServeLoop::RunCycle() {
  CycleSummary sum;
  auto start = clock_->Now();
  auto wall_start = Clock::now();
  sum.cycle = ++cycle_;
  if (!conf_) {
    sum.errors.push_back("no scheduler configuration");
    return sum;
  }
  for (auto it = sent_events_.begin(); it != sent_events_.end();) {
    it = start - it->second.at >= options_.event_repeat ? sent_events_.erase(it) : std::next(it);
  }
  CollectBindAnswers(&sum);
  Decisions d;
  std::map<std::string, PodInfo> pods;  // every pod a decision may name
  std::map<std::string, std::string> pg_uids;
  std::map<std::string, std::tuple<int, int, int>> pg_counts;  // running, succeeded, failed
  std::map<std::string, Json> pg_status;                       // the status each group should have
  SessionReasons reasons;
  std::map<std::string, Queue> queues;
  int pending = 0;
  std::vector<PendingPod> pending_pods;  // ours, without a node, after the session
  int64_t session_now = 0;
  {
    std::lock_guard<std::mutex> lock(*state_mu_);
    ApplyAssumedLocked(start);
    SessionOptions opts;
    opts.scheduler_names = {options_.scheduler_name};
    opts.cycle = cycle_;
    // The live scheduler's session clock is the wall clock (sla waiting times
    // are measured against real creation timestamps).
    opts.now = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    session_now = opts.now;
    opts.snapshot_cache = &snapshot_cache_;
    SessionHooks timed;
    Clock::time_point t0;
    timed.before_action = [&t0](Session&, const Action&) { t0 = Clock::now(); };
    timed.after_action = [&](Session&, const Action& action) {
      const double seconds = Seconds(Clock::now() - t0);
      metrics_->Observe("basalt_action_duration_seconds", {std::string(action.Name())}, seconds);
      volcano_metrics_.ObserveAction(std::string(action.Name()), seconds);
    };
    // The session's timings and its plugins' reports, for Volcano's families.
    SessionStats stats;
    const auto session_start = Clock::now();
    auto decided = [&] {
      SessionStatsScope observed(&stats);
      return RunSession(*state_, *conf_, plugins_, actions_, opts, timed);
    }();
    if (decided.ok()) volcano_metrics_.ObserveSession(stats, Seconds(Clock::now() - session_start));
    if (!decided.ok()) {
      sum.errors.push_back(decided.status().message());
      Log("serve").error("msg=\"session not opened\" error={}",
                         LogValue(decided.status().message()));
      return sum;
    }
    d = std::move(decided).value();
    for (const auto& [key, pod] : state_->pods()) {
      pods[key] = PodInfo{pod.meta.uid, pod.nominated_node_name, !pod.spec.node_name.empty(),
                          pod.meta.creation_timestamp};
      if (pod.spec.scheduler_name == options_.scheduler_name && pod.spec.node_name.empty() &&
          !pod.meta.deleting && pod.phase == "Pending") {
        ++pending;
        auto group = pod.meta.annotations.find(kGroupNameAnnotation);
        pending_pods.push_back(
            {key, pod.meta.uid,
             group == pod.meta.annotations.end() ? "" : pod.meta.namespace_ + "/" + group->second,
             pod.meta.creation_timestamp});
      }
      auto g = pod.meta.annotations.find(kGroupNameAnnotation);
      if (g == pod.meta.annotations.end()) continue;
      auto& c = pg_counts[pod.meta.namespace_ + "/" + g->second];
      if (pod.phase == "Running") ++std::get<0>(c);
      if (pod.phase == "Succeeded") ++std::get<1>(c);
      if (pod.phase == "Failed") ++std::get<2>(c);
    }
    for (const auto& [key, pg] : state_->podgroups()) pg_uids[key] = pg.meta.uid;
    RecordPlacementsLocked(d);
    volcano_metrics_.SyncJobs(*state_, opts.default_queue);
    SetQueuePodGroupCounts(*metrics_, *state_, opts.default_queue);
    for (auto it = podgroups_described_.begin(); it != podgroups_described_.end();) {
      if (pg_uids.count(*it)) {
        ++it;
        continue;
      }
      status_->Forget("PodGroup/" + *it);  // deleted
      it = podgroups_described_.erase(it);
    }
    // What the server already says needs no write (after a restart, or when
    // another replica wrote it).
    reasons = SessionReasons::Of(d);
    const std::map<std::string, std::string>& unschedulable = reasons.group;
    for (const auto& [key, phase] : d.podgroup_phases) {
      auto [running, succeeded, failed] = pg_counts[key];
      auto reason = unschedulable.find(key);
      Json status = DesiredPodGroupStatus(phase, PodGroupCounts{running, succeeded, failed},
                                          reason == unschedulable.end() ? "" : reason->second);
      auto on_server = podgroup_on_server_.find(key);
      if (on_server != podgroup_on_server_.end() &&
          on_server->second == PodGroupStatusText(status)) {
        status_->Known("PodGroup/" + key, on_server->second);
      }
      podgroups_described_.insert(key);
      pg_status[key] = std::move(status);
    }
    queues = state_->queues();
  }

  // Evictions first (they free what the binds of the next cycles need), then
  // binds, then the status writes and events that describe the cycle.
  ApplyEvictions(d.evictions, pods, &sum);
  SendBinds(d.binds, pods, &sum);
  sum.pending = std::max(0, pending - sum.binds_sent);
  volcano_metrics_.CountAttempts("scheduled", sum.binds_sent);
  volcano_metrics_.CountAttempts(
      "unschedulable", std::max<int64_t>(0, pending - static_cast<int64_t>(d.binds.size())));

  for (const PipelineDecision& p : d.pipelined) {
    if (Stopping()) break;  // SIGTERM: no new writes
    if (!p.nominate) continue;
    auto info = pods.find(p.pod);
    if (info == pods.end() || info->second.nominated == p.node) continue;
    auto [ns, name] = SplitKey(p.pod);
    status_->Put("Pod/" + p.pod + "#nominated",
                 StatusWrite{"/api/v1/namespaces/" + ns + "/pods/" + name + "/status",
                             Json{{"status", {{"nominatedNodeName", p.node}}}},
                             "application/strategic-merge-patch+json", p.node, ""});
  }

  WritePodGroupStatus(pg_status, &sum);

  metrics_->ClearGauge("basalt_queue_allocated");
  metrics_->ClearGauge("basalt_queue_deserved");
  metrics_->ClearGauge("basalt_queue_capability");
  auto put_gauge = [&](const char* family, const std::string& queue, const Resource& r) {
    metrics_->Set(family, {queue, "cpu"}, r.milli_cpu() / 1000.0);
    metrics_->Set(family, {queue, "memory"}, static_cast<double>(r.memory()));
    for (const auto& [id, v] : r.scalars()) {
      if (id != ResourceNames::kPods)
        metrics_->Set(family, {queue, ResourceNames::Name(id)}, v / 1000.0);
    }
  };
  for (const auto& [name, allocated] : d.queue_allocated) {
    if (Stopping()) break;  // SIGTERM: no new writes
    auto list = ResourceListOf(allocated);
    put_gauge("basalt_queue_allocated", name, allocated);
    auto q = queues.find(name);
    if (q != queues.end() && q->second.deserved)
      put_gauge("basalt_queue_deserved", name, *q->second.deserved);
    if (q != queues.end() && q->second.capability)
      put_gauge("basalt_queue_capability", name, *q->second.capability);
    if (q == queues.end()) continue;  // the session's implicit default queue: no object to write
    Json alloc = Json::object();
    std::string text;
    for (const auto& [res, v] : list) {
      alloc[res] = v;
      text += res + "=" + v + ";";
    }
    // A merge patch merges maps: every resource ever stated and no longer
    // allocated is removed with null (a write replaced before it was sent may
    // have been the one that would have removed it).
    std::set<std::string>& stated = queue_resources_stated_[name];
    for (const std::string& res : stated) {
      if (!list.count(res)) alloc[res] = nullptr;
    }
    for (const auto& [res, v] : list) stated.insert(res);
    StatusWrite write{"/apis/scheduling.volcano.sh/v1beta1/queues/" + name + "/status",
                      Json{{"status", {{"allocated", alloc}}}}, "application/merge-patch+json",
                      text, "basalt_queue_status_writes_total"};
    if (status_->Put("Queue/" + name, std::move(write))) ++sum.queue_writes;
  }

  for (const EventRecord& e : d.events) {
    std::string uid;
    auto slash = e.object.find('/');
    std::string kind = e.object.substr(0, slash),
                key = slash == std::string::npos ? "" : e.object.substr(slash + 1);
    if (kind == "Pod") {
      auto it = pods.find(key);
      if (it == pods.end()) continue;
      uid = it->second.uid;
    } else if (kind == "PodGroup") {
      auto it = pg_uids.find(key);
      if (it == pg_uids.end()) continue;
      uid = it->second;
    } else if (kind == "Queue") {
      auto it = queues.find(key);
      if (it == queues.end()) continue;
      uid = it->second.meta.uid;
    }
    Event(e.object, uid, e.type, e.reason, "Scheduling", e.message, &sum);
  }

  ReportUnschedulable(pending_pods, d, reasons, session_now, &sum);

  sum.seconds = Seconds(Clock::now() - wall_start);
  metrics_->Observe("basalt_cycle_duration_seconds", sum.seconds);
  metrics_->Inc("basalt_cycles_total");
  metrics_->Set("basalt_pending_pods", sum.pending);
  return sum;
}

}  // namespace basalt
