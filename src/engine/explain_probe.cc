#include "engine/explain_probe.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "actions/node_selection.h"
#include "api/subgroup.h"
#include "api/well_known.h"
#include "engine/session_runner.h"
#include "framework/statement.h"
#include "framework/vote_notes.h"

namespace basalt {
namespace {

JobInfo* FindJobInfo(Session& ssn, const std::string& key) {
  for (JobInfo& job : ssn.jobs()) {
    if (job.key == key) return &job;
  }
  return nullptr;
}

// The plugin an event comes from, known by its reason or fixed message, when
// that plugin is configured ("" otherwise: the event still shows, unattributed).
std::string PluginOfEvent(const EventRecord& e, const std::set<std::string>& enabled) {
  static const std::set<std::string> kCardReasons = {
      "InsufficientScalarQuota", "InsufficientCPUQuota",         "InsufficientMemoryQuota",
      "EmptyQueueCapability",    "GetTaskRequestResourceFailed", "InvalidCardQuota"};
  std::string plugin;
  if (kCardReasons.count(e.reason)) {
    plugin = "capacity-card";
  } else if (e.message == "resource in cluster is overused") {
    plugin = "overcommit";
  } else if (e.message == "queue resource quota insufficient") {
    // proportion's words; capacity says the same only with dimensions after it.
    plugin = enabled.count("proportion") ? "proportion" : "capacity";
  } else if (e.message.rfind("queue resource quota insufficient: ", 0) == 0) {
    plugin = "capacity";
  } else if (e.message.find("tasks in gang unschedulable") != std::string::npos ||
             e.message.rfind("Not enough valid ", 0) == 0) {
    plugin = "gang";
  } else if (e.reason == "InvalidSlaWaitingTime") {
    plugin = "sla";
  }
  return enabled.count(plugin) ? plugin : "";
}

// Whether an eviction reason ("reclaimed by ns/p (queue q)", "preempted by
// ns/p (queue q)") names one of `pods` as the preemptor.
bool EvictedFor(const std::string& reason, const std::set<std::string>& pods) {
  const size_t by = reason.find(" by ");
  if (by == std::string::npos) return false;
  const size_t start = by + 4;
  const size_t end = reason.find(" (", start);
  return pods.count(
             reason.substr(start, end == std::string::npos ? std::string::npos : end - start)) > 0;
}

ExplainVictim VictimOf(const Session& ssn, const std::unordered_map<std::string, TaskId>& by_key,
                       const EvictDecision& e) {
  ExplainVictim v{e.pod, "", "", "", e.action};
  auto it = by_key.find(e.pod);
  if (it == by_key.end()) return v;
  const TaskInfo& t = ssn.task(it->second);
  if (t.node != kNone) v.node = ssn.node(t.node).name;
  if (t.job != kNone) {
    const JobInfo& job = ssn.job(t.job);
    v.podgroup = job.key;
    v.queue = ssn.queue(job.queue).name;
  }
  return v;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Nodes grouped by why they refuse `task` on the current node state: the
// resource shortfall allocate checks first, then every failing predicate (so
// a node short of GPUs that is also tainted says both), and the closest node
// among those that only lack capacity.
void ExplainFit(const Session& ssn, const TaskInfo& task, TaskExplanation* out) {
  std::map<std::vector<std::string>, std::vector<std::string>> groups;
  // Closest: fewest missing dimensions, then the smallest missing share of the
  // request (per mille, summed), then node order.
  std::tuple<size_t, int64_t, NodeId> best{SIZE_MAX, 0, kNone};
  Resource best_missing;
  for (const NodeInfo& node : ssn.nodes()) {
    const Resource future = node.FutureIdle();
    std::vector<std::string> reasons = InsufficientResourceReasons(task.request, future);
    const size_t resource_reasons = reasons.size();
    PredicateStatus st = ssn.Predicate(task, node);
    if (!st.ok()) {
      for (const std::string& r : st.reasons) {
        if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
      }
      if (st.reasons.empty()) reasons.push_back("refused by a predicate");
    }
    if (reasons.empty()) {
      ++out->fitting_nodes;
      continue;
    }
    if (st.ok() && resource_reasons > 0) {
      Resource missing;
      int64_t share = 0;
      size_t dims = 0;
      auto add = [&](ResourceId id, int64_t want, int64_t have) {
        if (want <= have) return;
        missing.Set(id, want - have);
        share += (want - have) * 1000 / std::max<int64_t>(want, 1);
        ++dims;
      };
      add(ResourceNames::kCpu, task.request.milli_cpu(), future.milli_cpu());
      add(ResourceNames::kMemory, task.request.memory(), future.memory());
      for (const auto& [id, v] : task.request.scalars()) add(id, v, future.Get(id));
      std::tuple<size_t, int64_t, NodeId> key{dims, share, node.id};
      if (key < best) {
        best = key;
        best_missing = missing;
      }
    }
    std::sort(reasons.begin(), reasons.end());
    groups[reasons].push_back(node.name);
  }
  for (auto& [reasons, nodes] : groups) out->node_groups.push_back({reasons, nodes});
  std::stable_sort(
      out->node_groups.begin(), out->node_groups.end(),
      [](const NodeGroupFit& a, const NodeGroupFit& b) { return a.nodes.size() > b.nodes.size(); });
  if (std::get<2>(best) != kNone)
    out->closest_node = MissingCapacity{ssn.node(std::get<2>(best)).name, best_missing};
}

// How many of the job's pending pods fit the nodes as they are, each placed
// (in task order, on its best-scored feasible node) before the next is tried
// so they compete for room as a gang would. The statement is discarded.
int32_t CountPlaceable(Session& ssn, JobInfo& job) {
  std::vector<TaskId> pending;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.status == TaskStatus::kPending && !t.gated) pending.push_back(id);
  }
  std::sort(pending.begin(), pending.end(),
            [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(a), ssn.task(b)); });
  const QueueInfo& queue = ssn.queue(job.queue);
  Statement stmt(ssn);
  int32_t placed = 0;
  for (TaskId id : pending) {
    TaskInfo& task = ssn.task(id);
    if (!ssn.Allocatable(queue, task) || !ssn.PrePredicate(task).ok()) continue;
    std::vector<NodeInfo*> nodes = FeasibleNodes(ssn, task, FitMode::kAllocate, nullptr);
    if (nodes.empty()) continue;
    std::vector<const NodeInfo*> view(nodes.begin(), nodes.end());
    std::vector<double> scores = ssn.NodeScores(task, view);
    size_t best = 0;
    for (size_t i = 1; i < nodes.size(); ++i) {
      if (scores[i] > scores[best]) best = i;
    }
    if (LessEqual(task.request, nodes[best]->idle())) {
      stmt.Allocate(task, *nodes[best]);
    } else {
      stmt.Pipeline(task, *nodes[best]);
    }
    ++placed;
  }
  stmt.Discard();
  return placed;
}

int32_t PlacedCount(const JobInfo& job) { return job.ReadyTaskNum() + job.WaitingTaskNum(); }

void FillQueue(const Session& ssn, const JobInfo& job, QueueFacts* out) {
  const QueueInfo& q = ssn.queue(job.queue);
  out->name = q.name;
  out->state = q.state;
  out->weight = q.weight;
  out->priority = q.priority;
  out->reclaimable = q.reclaimable;
  if (q.queue) {
    out->capability = q.queue->capability;
    out->deserved = q.queue->deserved;
    out->guarantee = q.queue->guarantee;
  }
  for (const JobInfo& other : ssn.jobs()) {
    if (other.queue != job.queue) continue;
    out->allocated += other.allocated;
    if (other.phase == PodGroupPhase::kInqueue && other.min_resources)
      out->inqueue += *other.min_resources;
  }
}

// `job_pending`: the PodGroup is still Pending at close (enqueue did not
// admit it), so a vcjob without pods is pending, not waiting for its pods.
void FillCluster(const Session& ssn, ClusterFacts* out) {
  out->allocatable = ssn.total_resource();
  for (const NodeInfo& n : ssn.nodes()) out->used += n.used();
  for (const JobInfo& job : ssn.jobs()) {
    if (job.phase == PodGroupPhase::kInqueue && job.min_resources)
      out->inqueue += *job.min_resources;
  }
}

// A pod bound to a node the cluster does not have: no kubelet runs it, so it
// runs nowhere, whatever its phase says.
bool OnMissingNode(const TaskInfo& t) {
  return IsOnNodeStatus(t.status) && t.node == kNone && t.pod != nullptr &&
         !t.pod->spec.node_name.empty();
}

std::string Verdict(const Session& ssn, const std::vector<TaskId>& tasks, bool job_pending) {
  if (tasks.empty()) return job_pending ? "Pending" : "NotCreated";
  bool pending = false, pipelined = false, binding = false, finished = true, missing = false;
  for (TaskId id : tasks) {
    const TaskStatus s = ssn.task(id).status;
    missing |= OnMissingNode(ssn.task(id));
    pending |= s == TaskStatus::kPending;
    pipelined |= s == TaskStatus::kPipelined;
    binding |= s == TaskStatus::kBinding;
    finished &= s == TaskStatus::kSucceeded || s == TaskStatus::kFailed;
  }
  if (pending) return "Pending";
  if (pipelined) return "Pipelined";
  if (binding) return "Bound";
  if (missing) return "NodeMissing";
  return finished ? "Completed" : "Running";
}

class Prober {
 public:
  Prober(const ClusterState& state, const SchedulerConfig& conf, const PluginRegistry& plugins,
         const ActionRegistry& actions, const SessionOptions& options)
      : state_(state), conf_(conf), plugins_(plugins), actions_(actions), options_(options) {
    for (const Tier& tier : conf.tiers) {
      for (const PluginOption& p : tier.plugins) enabled_.insert(p.name);
    }
  }

  Result<ExplainReport> Run(const ExplainSubject& subject) {
    report_.kind = subject.kind;
    report_.name = subject.key;
    report_.cycle = options_.cycle;
    if (!ResolveGroup(subject)) return report_;
    BASALT_RETURN_IF_ERROR(ExplainedSession(subject));
    if (report_.verdict == "Pending" || report_.verdict == "Pipelined")
      BASALT_RETURN_IF_ERROR(WhatIfSession());
    Hints();
    return report_;
  }

 private:
  // The PodGroup the subject belongs to; false when there is nothing to
  // schedule (the verdict says why).
  bool ResolveGroup(const ExplainSubject& subject) {
    const size_t slash = subject.key.find('/');
    const std::string ns = slash == std::string::npos ? "" : subject.key.substr(0, slash);
    if (subject.kind == "Pod") {
      const Pod& pod = state_.pods().at(subject.key);
      subject_pods_.insert(subject.key);
      if (!options_.scheduler_names.count(pod.spec.scheduler_name)) {
        report_.verdict = "Ignored";
        report_.ignored_because = "spec.schedulerName is \"" + pod.spec.scheduler_name +
                                  "\", not one this scheduler serves";
        return false;
      }
      auto g = pod.meta.annotations.find(kGroupNameAnnotation);
      if (g == pod.meta.annotations.end()) {
        report_.verdict = "Ignored";
        report_.ignored_because =
            "the pod has no PodGroup (annotation " + kGroupNameAnnotation + ")";
        return false;
      }
      group_ = ns + "/" + g->second;
    } else {
      group_ = subject.key;  // a vcjob's PodGroup is named after it
    }
    report_.podgroup = group_;
    auto pg = state_.podgroups().find(group_);
    if (pg == state_.podgroups().end() && subject.kind == "Pod") {
      // The pod names its gang itself; no controller creates a PodGroup for
      // it, so the pod waits until one of that name exists.
      report_.verdict = "PodGroupMissing";
      report_.podgroup.clear();
      report_.hints.push_back("the pod's annotation " + kGroupNameAnnotation + " names PodGroup " +
                              group_ + ", which does not exist: create it, or fix the annotation");
      return false;
    }
    if (pg == state_.podgroups().end()) {
      report_.verdict = "NotCreated";
      report_.podgroup.clear();
      return false;
    }
    report_.min_member = pg->second.min_member;
    report_.min_resources = pg->second.min_resources;
    report_.phase_before = PodGroupPhaseName(pg->second.phase);
    const std::string qname = pg->second.queue.empty() ? options_.default_queue : pg->second.queue;
    report_.queue.name = qname;
    auto q = state_.queues().find(qname);
    if (q == state_.queues().end()) {
      // The session leaves such a PodGroup out, as Volcano does; the hint
      // says why its pods wait.
      report_.queue.exists = false;
      report_.verdict = "Pending";
      report_.phase_after = report_.phase_before;
      Hints();
      return false;
    }
    return true;
  }

  std::vector<TaskId> TargetTasks(const Session& ssn, const JobInfo& job) const {
    std::vector<TaskId> out;
    for (TaskId id : job.tasks) {
      if (subject_pods_.empty() || subject_pods_.count(ssn.task(id).key)) out.push_back(id);
    }
    std::sort(out.begin(), out.end(),
              [&](TaskId a, TaskId b) { return ssn.task(a).key < ssn.task(b).key; });
    return out;
  }

  bool Relevant(const EventRecord& e) const {
    if (e.object == "PodGroup/" + group_ || e.object == "Queue/" + report_.queue.name) return true;
    return e.object.rfind("Pod/", 0) == 0 && target_keys_.count(e.object.substr(4));
  }

  void AddEvents(const std::vector<EventRecord>& events, size_t from, const std::string& action) {
    for (size_t i = from; i < events.size(); ++i) {
      const EventRecord& e = events[i];
      if (!Relevant(e)) continue;
      ExplainEvent ev{action, e.object, e.type, e.reason, e.message, PluginOfEvent(e, enabled_)};
      auto same = [&](const ExplainEvent& o) {
        return o.object == ev.object && o.type == ev.type && o.reason == ev.reason &&
               o.message == ev.message;
      };
      if (std::none_of(report_.events.begin(), report_.events.end(), same))
        report_.events.push_back(ev);
      if (action == "enqueue" && e.object.rfind("Pod/", 0) != 0 &&
          std::none_of(report_.enqueue_rejections.begin(), report_.enqueue_rejections.end(),
                       same)) {
        report_.enqueue_rejections.push_back(ev);
      }
    }
  }

  // The configured session, watched action by action: the target's events,
  // what enqueue decided, where its pods end up.
  Status ExplainedSession(const ExplainSubject& subject) {
    BASALT_ASSIGN_OR_RETURN(auto built, BuildActions(conf_.actions, conf_, actions_));
    Status error;
    JobInfo* job = nullptr;
    std::vector<TaskId> tasks;
    size_t action_index = 0;
    size_t events_before = 0;
    bool was_pending = false;
    SessionHooks hooks;
    hooks.opened = [&](Session& ssn) {
      job = FindJobInfo(ssn, group_);
      if (!job) {
        error = Status::Internal("PodGroup " + group_ + " is not in the session");
        return false;
      }
      return OpenExplained(ssn, subject, *job, &tasks);
    };
    hooks.before_action = [&](Session& ssn, const Action&) {
      events_before = ssn.decisions().events.size();
      was_pending = job->IsPending();
    };
    hooks.after_action = [&](Session& ssn, const Action&) {
      const std::string& name = conf_.actions[action_index++];
      if (name == "enqueue" && was_pending) {
        report_.enqueue_considered = true;
        report_.enqueue_admitted = !job->IsPending();
      }
      AddEvents(ssn.decisions().events, events_before, name);
    };
    hooks.before_close = [&](Session& ssn) {
      events_before = ssn.decisions().events.size();
      report_.placed_after = PlacedCount(*job);
      closed_normally_ = true;
    };
    hooks.closed = [&](Session& ssn, const Decisions& d) {
      if (closed_normally_) CloseExplained(ssn, d, tasks, events_before);
    };
    VoteNoteCollector notes;  // the numbers behind each refusing vote
    auto decided = RunSession(state_, conf_, plugins_, built, options_, hooks);
    if (!decided.ok()) return decided.status();
    AttachNumbers(notes.notes());
    return error;
  }

  // Each enqueue refusal gets the comparison its plugin noted for the target.
  void AttachNumbers(const std::vector<VoteNote>& notes) {
    for (ExplainEvent& e : report_.enqueue_rejections) {
      for (const VoteNote& n : notes) {
        if (n.object == "PodGroup/" + group_ && n.plugin == e.plugin && e.numbers.empty())
          e.numbers = n.text;
      }
    }
  }

  // Facts at open; false when the subject takes no part (the verdict says why).
  bool OpenExplained(Session& ssn, const ExplainSubject& subject, const JobInfo& job,
                     std::vector<TaskId>* tasks) {
    FillQueue(ssn, job, &report_.queue);
    FillCluster(ssn, &report_.cluster);
    *tasks = TargetTasks(ssn, job);
    if (subject.kind == "Pod" && tasks->empty()) {
      report_.verdict = "Ignored";
      report_.ignored_because =
          "the pod takes no part in scheduling (phase " + state_.pods().at(subject.key).phase + ")";
      return false;
    }
    for (TaskId id : *tasks) target_keys_.insert(ssn.task(id).key);
    report_.tasks_total = static_cast<int32_t>(job.tasks.size());
    report_.placed_before = PlacedCount(job);
    return true;
  }

  // The verdict, the session's victims and each target pod's state at close.
  void CloseExplained(const Session& ssn, const Decisions& d, const std::vector<TaskId>& tasks,
                      size_t events_before_close) {
    AddEvents(d.events, events_before_close, "close");
    auto phase = d.podgroup_phases.find(group_);
    report_.phase_after =
        phase != d.podgroup_phases.end() ? PodGroupPhaseName(phase->second) : report_.phase_before;
    report_.verdict =
        Verdict(ssn, tasks, report_.phase_after == PodGroupPhaseName(PodGroupPhase::kPending));
    std::unordered_map<std::string, TaskId> by_key;
    for (const TaskInfo& t : ssn.tasks()) by_key.emplace(t.key, t.id);
    for (const EvictDecision& e : d.evictions) {
      if (EvictedFor(e.reason, target_keys_))
        report_.session_victims.push_back(VictimOf(ssn, by_key, e));
    }
    for (TaskId id : tasks) {
      const TaskInfo& t = ssn.task(id);
      TaskExplanation te;
      te.pod = t.key;
      te.status = TaskStatusName(t.status);
      if (t.node != kNone) te.node = ssn.node(t.node).name;
      if (OnMissingNode(t)) {
        te.status = "NodeMissing";
        report_.hints.push_back("pod " + t.key + ": spec.nodeName names node " +
                                t.pod->spec.node_name +
                                ", which does not exist: no kubelet runs the pod, so it runs on "
                                "no node; delete it, or add the node");
      }
      te.request = t.request;
      for (const EventRecord& e : d.events) {
        if (e.object == "Pod/" + t.key && e.reason == "FailedScheduling")
          te.failed_scheduling = e.message;
      }
      report_.tasks.push_back(std::move(te));
    }
  }

  // The configured session again, looked at before it closes: why each
  // pending pod stays, and what preempt and reclaim would do for it.
  Status WhatIfSession() {
    BASALT_ASSIGN_OR_RETURN(auto built, BuildActions(conf_.actions, conf_, actions_));
    Status result;
    SessionHooks hooks;
    hooks.before_close = [&](Session& ssn) { result = ExplainWhatIf(ssn); };
    auto decided = RunSession(state_, conf_, plugins_, built, options_, hooks);
    if (!decided.ok()) return decided.status();
    return result;
  }

  Status ExplainWhatIf(Session& ssn) {
    JobInfo* job = FindJobInfo(ssn, group_);
    if (!job) return Status::Internal("PodGroup " + group_ + " is not in the what-if session");
    WhyPending(ssn, *job);
    if (!job->IsPending()) report_.placeable = CountPlaceable(ssn, *job);
    DescribeTopology(ssn, *job);
    // Preempt and reclaim, when not configured, run now on top: what they
    // would evict for the target.
    std::vector<std::string> extra;
    for (const char* name : {"preempt", "reclaim"}) {
      if (!conf_.HasAction(name)) extra.push_back(name);
    }
    if (extra.empty() || job->IsPending()) return Status::Ok();
    BASALT_ASSIGN_OR_RETURN(auto more, BuildActions(extra, conf_, actions_));
    const size_t evictions_before = ssn.decisions().evictions.size();
    for (auto& a : more) ssn.Run(*a);
    report_.what_if = WhatTheyWouldDo(ssn, *job, extra, evictions_before);
    return Status::Ok();
  }

  // Why each pending pod stays where it is (one node pass per class of
  // identical pods).
  void WhyPending(const Session& ssn, const JobInfo& job) {
    const QueueInfo& queue = ssn.queue(job.queue);
    std::map<int32_t, TaskExplanation> by_class;
    for (TaskExplanation& te : report_.tasks) {
      const TaskInfo* t = nullptr;
      for (TaskId id : job.tasks) {
        if (ssn.task(id).key == te.pod) t = &ssn.task(id);
      }
      if (!t || t->status != TaskStatus::kPending) continue;
      // Allocate only asks the queue about admitted PodGroups.
      if (!job.IsPending()) te.queue_allocatable = ssn.Allocatable(queue, *t);
      PredicateStatus pre = ssn.PrePredicate(*t);
      if (!pre.ok()) {
        te.pre_predicate =
            pre.reasons.empty() ? "refused by a pre-predicate" : Join(pre.reasons, "; ");
        continue;
      }
      auto cached =
          t->equivalence_class != kNone ? by_class.find(t->equivalence_class) : by_class.end();
      if (cached != by_class.end()) {
        te.node_groups = cached->second.node_groups;
        te.fitting_nodes = cached->second.fitting_nodes;
        te.closest_node = cached->second.closest_node;
        continue;
      }
      ExplainFit(ssn, *t, &te);
      if (t->equivalence_class != kNone) by_class[t->equivalence_class] = te;
    }
  }

  // The victims `actions` chose for the target (evictions past
  // `evictions_before`), where they pipelined it, and whether that admits it.
  WhatIf WhatTheyWouldDo(const Session& ssn, const JobInfo& job,
                         const std::vector<std::string>& actions, size_t evictions_before) const {
    WhatIf w;
    w.actions = actions;
    std::unordered_map<std::string, TaskId> by_key;
    for (const TaskInfo& t : ssn.tasks()) by_key.emplace(t.key, t.id);
    const auto& evictions = ssn.decisions().evictions;
    for (size_t i = evictions_before; i < evictions.size(); ++i) {
      if (EvictedFor(evictions[i].reason, target_keys_))
        w.victims.push_back(VictimOf(ssn, by_key, evictions[i]));
    }
    // Admitted: none of the target's pods is left pending and the gang is whole.
    bool none_pending = true;
    for (TaskId id : TargetTasks(ssn, job)) {
      const TaskInfo& t = ssn.task(id);
      if (t.status == TaskStatus::kPipelined && t.node != kNone)
        w.placements.emplace_back(t.key, ssn.node(t.node).name);
      none_pending &= t.status != TaskStatus::kPending;
    }
    w.admits = none_pending && PlacedCount(job) >= job.min_member;
    return w;
  }

  void DescribeTopology(const Session& ssn, const JobInfo& job) {
    const TopologyConstraint c = ConstraintOf(job, ssn.hypernodes());
    const bool subgroups = job.podgroup && !job.podgroup->sub_group_policy.empty();
    if (c.kind == TopologyConstraint::Kind::kNone && !subgroups) return;
    report_.network_topology = c.kind == TopologyConstraint::Kind::kHard   ? "hard"
                               : c.kind == TopologyConstraint::Kind::kSoft ? "soft"
                                                                           : "none";
    if (c.highest_tier)
      report_.network_topology += ", highest tier " + std::to_string(*c.highest_tier);
    if (subgroups) {
      const auto& policies = job.podgroup->sub_group_policy;
      report_.network_topology += "; SubGroups of";
      for (size_t i = 0; i < policies.size(); ++i)
        report_.network_topology +=
            (i ? ", " : " ") + PolicyLabel(policies, static_cast<int32_t>(i));
    }
    // Allocate's reason without its "network topology (hard, ...): " prefix;
    // a SubGroup's reason whole ("subGroup part-b (hard, highest tier 1): ...").
    const std::string& why = job.job_fit_error;
    const size_t colon = why.find("): ");
    if (why.rfind("network topology", 0) == 0 && colon != std::string::npos)
      report_.network_topology_reason = why.substr(colon + 3);
    else if (why.rfind("subGroup ", 0) == 0)
      report_.network_topology_reason = why;
  }

  void Hints() {
    std::vector<std::string>& h = report_.hints;
    const QueueFacts& q = report_.queue;
    if (report_.verdict == "NotCreated") {
      h.push_back(report_.podgroup.empty()
                      ? "the job controller has not created the PodGroup yet"
                      : "the job controller creates the pods once enqueue admits the PodGroup");
      return;
    }
    if (report_.verdict != "Pending" && report_.verdict != "Pipelined") return;
    if (!q.exists) {
      h.push_back("queue " + q.name +
                  " does not exist: create it, or move the PodGroup to an existing queue");
      return;
    }
    if (q.state != "Open") {
      h.push_back("queue " + q.name + " is " + q.state +
                  ": it admits and places nothing; open it (basalt queue open " + q.name + ")");
    }
    if (report_.enqueue_considered && !report_.enqueue_admitted) {
      bool queue_numbers = report_.enqueue_rejections.empty() && q.state == "Open";
      for (const ExplainEvent& e : report_.enqueue_rejections) {
        h.push_back((e.plugin.empty() ? "enqueue" : e.plugin) + " refused admission: " + e.message +
                    (e.numbers.empty() ? "" : " (" + e.numbers + ")"));
        // The noted comparison says it with the pass's own numbers.
        queue_numbers |= (e.plugin == "proportion" || e.plugin == "capacity") && e.numbers.empty();
        if (e.plugin == "overcommit" && report_.min_resources && e.numbers.empty()) {
          const ClusterFacts& c = report_.cluster;
          h.push_back("cluster: allocatable " + ResourceText(c.allocatable) +
                      " (times the overcommit factor); used " + ResourceText(c.used) +
                      "; reserved by admitted PodGroups " + ResourceText(c.inqueue) +
                      "; this PodGroup needs minResources " + ResourceText(*report_.min_resources));
        }
      }
      if (report_.enqueue_rejections.empty() && q.state == "Open") {
        h.push_back(
            "enqueue refused admission without an event (a JobEnqueueable vote of the configured "
            "plugins)");
      }
      if (queue_numbers && report_.min_resources) {
        std::string s = "queue " + q.name + ": capability " +
                        (q.capability ? ResourceText(*q.capability) : std::string("unlimited")) +
                        "; allocated " + ResourceText(q.allocated) +
                        "; reserved by admitted PodGroups " + ResourceText(q.inqueue) +
                        "; this PodGroup needs minResources " +
                        ResourceText(*report_.min_resources);
        h.push_back(s);
      }
      return;
    }
    if (!report_.network_topology_reason.empty()) {
      h.push_back(
          "no HyperNode within the allowed tier has room for the whole gang: free one, "
          "or allow a higher tier (spec.networkTopology.highestTierAllowed) or mode soft");
    }
    for (const TaskExplanation& t : report_.tasks) {
      if (t.status == "Pending" && !t.queue_allocatable) {
        h.push_back(t.pod + ": queue " + q.name +
                    " refuses to place it (its Allocatable vote: quota or state); see the events");
      }
    }
    if (!report_.session_victims.empty()) {
      h.push_back("this session evicts " + VictimList(report_.session_victims) + " to make room");
    }
    if (report_.what_if && !report_.what_if->victims.empty()) {
      const WhatIf& w = *report_.what_if;
      std::string s = Join(w.actions, " and ") + " would evict " + VictimList(w.victims);
      std::vector<std::string> places;
      for (const auto& [pod, node] : w.placements) places.push_back(pod + " -> " + node);
      if (!places.empty()) s += " and pipeline " + Join(places, ", ");
      s += w.admits ? " (enough to run it)" : " (not enough to run it)";
      h.push_back(s);
    }
    const int32_t need = std::max(report_.min_member, 1);
    const int32_t could = report_.placed_after + report_.placeable;
    if (report_.min_member > 1 && could < need) {
      h.push_back("gang: minAvailable " + std::to_string(need) + ", but only " +
                  std::to_string(could) + " of " + std::to_string(report_.tasks_total) +
                  " pods can be placed on the cluster as it is (" + std::to_string(need - could) +
                  " short)");
    }
    std::set<std::string> said;
    for (const TaskExplanation& t : report_.tasks) {
      if (t.status != "Pending") continue;
      std::string s;
      if (!t.pre_predicate.empty()) {
        s = "every node refuses it: " + t.pre_predicate;
      } else if (t.closest_node) {
        s = "needs " + ResourceText(t.closest_node->missing) + " more on " + t.closest_node->node +
            " (the closest node whose predicates pass)";
      } else if (t.fitting_nodes == 0 && !t.node_groups.empty()) {
        s = "no node passes its predicates (" + Join(t.node_groups.front().reasons, ", ") + " on " +
            std::to_string(t.node_groups.front().nodes.size()) + " node(s))";
      }
      if (!s.empty() && said.insert(s).second) h.push_back(t.pod + ": " + s);
    }
  }

  static std::string VictimList(const std::vector<ExplainVictim>& victims) {
    std::vector<std::string> names;
    for (const ExplainVictim& v : victims) {
      names.push_back(v.pod + " (queue " + v.queue + (v.node.empty() ? "" : ", node " + v.node) +
                      ")");
    }
    return Join(names, ", ");
  }

  const ClusterState& state_;
  const SchedulerConfig& conf_;
  const PluginRegistry& plugins_;
  const ActionRegistry& actions_;
  const SessionOptions& options_;
  std::set<std::string> enabled_;
  ExplainReport report_;
  std::string group_;
  std::set<std::string> subject_pods_;  // a Pod subject: only that pod; else every pod of the group
  std::set<std::string> target_keys_;
  bool closed_normally_ = false;  // the explained session ran its actions
};

}  // namespace

std::string ResourceText(const Resource& r) {
  std::vector<std::string> parts;
  if (r.milli_cpu() != 0)
    parts.push_back("cpu " + FormatDimension(ResourceNames::kCpu, r.milli_cpu()));
  if (r.memory() != 0)
    parts.push_back("memory " + FormatDimension(ResourceNames::kMemory, r.memory()));
  std::vector<std::string> scalars;
  for (const auto& [id, v] : r.scalars()) {
    if (id == ResourceNames::kPods || v == 0) continue;
    scalars.push_back(ResourceNames::Name(id) + " " + FormatDimension(id, v));
  }
  std::sort(scalars.begin(), scalars.end());
  parts.insert(parts.end(), scalars.begin(), scalars.end());
  return parts.empty() ? "nothing" : Join(parts, ", ");
}

Result<ExplainReport> ProbeExplain(const ClusterState& state, const SchedulerConfig& conf,
                                   const PluginRegistry& plugins, const ActionRegistry& actions,
                                   const SessionOptions& options, const ExplainSubject& subject) {
  Prober prober(state, conf, plugins, actions, options);
  return prober.Run(subject);
}

}  // namespace basalt
