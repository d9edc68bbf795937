#include "sim/simulator.h"

#include <algorithm>
#include <tuple>

#include "actions/builtin.h"
#include "controllers/job_controller.h"
#include "plugins/builtin.h"
#include "sim/workload.h"

namespace basalt {
namespace {

constexpr const char* kJobNameAnnotation = "volcano.sh/job-name";
constexpr const char* kVcQueueAnnotation = "volcano.sh/queue-name";
constexpr const char* kPodQueueAnnotation = "scheduling.volcano.sh/queue-name";

std::string PoolNodeName(const std::string& pool, int32_t i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04d", i);
  return pool + "-" + buf;
}

const std::string* Annotation(const Pod& pod, const char* key) {
  auto it = pod.meta.annotations.find(key);
  return it == pod.meta.annotations.end() ? nullptr : &it->second;
}

bool IsFinalPhase(const std::string& phase) {
  return phase == "Aborted" || phase == "Completed" || phase == "Terminated" || phase == "Failed";
}

// The pools' nodes added up, against `--max-nodes`, before any is made: each
// pool is within its own cap, a hundred of them need not be. The pool that
// takes the sum over is named, with the sum.
Status CheckPoolNodes(const Scenario& s, const InputLimits& limits) {
  int64_t total = 0;
  for (const NodePool& p : s.pools) total += p.count;
  if (total <= limits.max_nodes) return Status::Ok();
  int64_t running = 0;
  size_t over = 0;
  while (over < s.pools.size() && (running += s.pools[over].count) <= limits.max_nodes) ++over;
  return Status::InvalidArgument(s.source + ":" + std::to_string(s.pools[over].yaml_line) +
                                 ": nodes[" + std::to_string(over) + "].count: " +
                                 AboveLimit(std::to_string(total) + " nodes in all across " +
                                                std::to_string(s.pools.size()) + " pools",
                                            limits.max_nodes, "simulated nodes", "--max-nodes"));
}

// Each training workload's largest job (every task at its largest replica
// count) against `--max-job-pods`, the cap a vcjob in a manifest has.
Status CheckTrainingJobPods(const Scenario& s, const InputLimits& limits) {
  for (size_t i = 0; i < s.training.size(); ++i) {
    const TrainingWorkload& w = s.training[i];
    int64_t most = 0;
    for (const TrainingTask& t : w.tasks) {
      if (!t.replicas.empty()) most += *std::max_element(t.replicas.begin(), t.replicas.end());
    }
    BASALT_RETURN_IF_ERROR(
        CheckPodsPerJob(s.source + ":" + std::to_string(w.yaml_line) + ": workloads.training[" +
                            std::to_string(i) + "].tasks",
                        "up to " + std::to_string(most) + " replicas in all", most, limits));
  }
  return Status::Ok();
}

}  // namespace

Simulator::Simulator(Scenario scenario, SimulatorOptions options)
    : scenario_(std::move(scenario)), options_(std::move(options)) {}

Simulator::~Simulator() = default;

Result<std::unique_ptr<Simulator>> Simulator::Create(Scenario scenario, SimulatorOptions options) {
  std::unique_ptr<Simulator> sim(new Simulator(std::move(scenario), std::move(options)));
  BASALT_RETURN_IF_ERROR(sim->Init());
  return sim;
}

void Simulator::Push(int64_t t, Kind kind, int64_t index, std::string key, int64_t epoch) {
  Event e;
  e.t = t;
  e.kind = kind;
  e.seq = next_event_seq_++;
  e.index = index;
  e.key = std::move(key);
  e.epoch = epoch;
  events_.push(std::move(e));
}

Status Simulator::Init() {
  const Scenario& s = scenario_;
  const std::string& file = s.source;
  seed_ = options_.seed.value_or(s.seed);
  rng_.seed(seed_);
  RegisterBuiltinPlugins(plugins_);
  RegisterBuiltinActions(actions_);
  auto conf = ParseSchedulerConfig(s.scheduler_conf, file + ": scheduler", plugins_.Names(),
                                   actions_.Names());
  if (!conf.ok()) return conf.status();
  conf_ = std::move(conf).value();
  for (const Tier& tier : conf_.tiers) {
    for (const PluginOption& opt : tier.plugins) {
      auto p = plugins_.Create(opt.name, opt.arguments);
      if (!p.ok()) return p.status().WithContext(file + ": scheduler");
      // A plugin that reads the session clock can give the same store a
      // different answer a period later, so no cycle may be skipped.
      if ((*p)->ReadsClock()) clock_sensitive_ = true;
    }
  }

  ClusterObjects objects;
  for (const std::string& path : s.manifests) {
    Status loaded = LoadPath(path, &objects, options_.limits);
    if (!loaded.ok()) return loaded.WithContext(file + ": manifests");
  }
  // The caps `basalt validate` and `schedule` apply to the same manifests.
  if (Status capped = CheckClusterLimits(objects, options_.limits); !capped.ok())
    return capped.WithContext(file + ": manifests");
  BASALT_RETURN_IF_ERROR(CheckPoolNodes(s, options_.limits));
  BASALT_RETURN_IF_ERROR(CheckTrainingJobPods(s, options_.limits));
  for (const PriorityClass& pc : s.priority_classes) {
    priority_values_[pc.meta.name] = pc.value;
    objects.priority_classes.push_back(pc);
  }
  std::set<std::string> queue_names = {"default"};
  for (const Queue& q : s.queues) {
    queue_names.insert(q.meta.name);
    objects.queues.push_back(q);
  }
  for (const NodePool& p : s.pools) {
    for (int32_t i = 0; i < p.count; ++i) {
      Node n;
      n.meta.name = PoolNodeName(p.name, i);
      n.meta.source = file + ": pool " + p.name;
      n.meta.labels = p.labels;
      if (!p.card_model.empty()) n.meta.labels[s.card_label] = p.card_model;
      n.allocatable = p.allocatable;
      if (!n.allocatable.Has(ResourceNames::kPods)) n.allocatable.Set(ResourceNames::kPods, 110);
      n.capacity = n.allocatable;
      n.taints = p.taints;
      objects.nodes.push_back(std::move(n));
    }
  }
  for (HyperNode& h : GenerateHyperNodes(s.topology, s.pools, PoolNodeName))
    objects.hypernodes.push_back(std::move(h));
  if (!s.openb_nodes_path.empty()) {
    BASALT_ASSIGN_OR_RETURN(std::vector<Node> nodes,
                            LoadOpenbNodes(s.openb_nodes_path, s.openb_nodes_limit, s.card_label));
    for (Node& n : nodes) objects.nodes.push_back(std::move(n));
  }
  if (static_cast<int64_t>(objects.nodes.size()) > options_.limits.max_nodes) {
    return Status::InvalidArgument(
        file + ": nodes: " +
        AboveLimit(std::to_string(objects.nodes.size()) +
                       " nodes in all (pools, manifests and the trace's node list)",
                   options_.limits.max_nodes, "simulated nodes", "--max-nodes"));
  }
  // The manifests' objects with the scenario's: the API server's object rules
  // see every node and PriorityClass a manifest may name.
  if (std::vector<std::string> errors = RunErrorsAfterWarnings(objects); !errors.empty())
    return Status::InvalidArgument(errors.front()).WithContext(file + ": manifests");
  std::set<std::string> node_names;
  for (const Node& n : objects.nodes) {
    if (!node_names.insert(n.meta.name).second) {
      return Status::InvalidArgument(file + ": nodes: duplicate node name \"" + n.meta.name + "\"");
    }
    auto it = n.meta.labels.find(s.card_label);
    if (it != n.meta.labels.end()) card_model_of_node_[n.meta.name] = it->second;
  }
  // `queue_field` names the queue's field; the priority class is `<field>.priority_class`.
  auto check_refs = [&](int line, const std::string& field, const std::string& queue_field,
                        const std::string& queue, const std::string& pc) -> Status {
    const std::string at = file + ":" + std::to_string(line) + ": ";
    if (!queue_names.count(queue)) {
      return Status::InvalidArgument(at + queue_field + ": unknown queue \"" + queue +
                                     "\" (declare it under queues:)");
    }
    if (!pc.empty() && !priority_values_.count(pc)) {
      return Status::InvalidArgument(at + field + ".priority_class: unknown priority class \"" +
                                     pc + "\" (declare it under priority_classes:)");
    }
    return Status::Ok();
  };
  for (size_t i = 0; i < s.training.size(); ++i) {
    const TrainingWorkload& w = s.training[i];
    const std::string field = "workloads.training[" + std::to_string(i) + "]";
    BASALT_RETURN_IF_ERROR(
        check_refs(w.yaml_line, field, field + ".queue", w.queue, w.priority_class));
    training_queues_.insert(w.queue);
  }
  for (size_t i = 0; i < s.inference.size(); ++i) {
    const InferenceWorkload& w = s.inference[i];
    const std::string field = "workloads.inference[" + std::to_string(i) + "]";
    BASALT_RETURN_IF_ERROR(
        check_refs(w.yaml_line, field, field + ".queue", w.queue, w.priority_class));
    inference_queues_.insert(w.queue);
  }
  for (size_t i = 0; i < s.traces.size(); ++i) {
    const TraceWorkload& w = s.traces[i];
    const std::string field = "workloads.traces[" + std::to_string(i) + "]";
    if (w.queue_by_class.empty()) {
      return Status::InvalidArgument(file + ":" + std::to_string(w.yaml_line) + ": " + field +
                                     ".queues: required (class -> queue)");
    }
    for (const auto& [cls, q] : w.queue_by_class) {
      BASALT_RETURN_IF_ERROR(
          check_refs(w.yaml_line, field, field + ".queues." + cls, q, w.priority_class));
    }
    auto pods = w.kind == "openb-pods" ? LoadOpenbPods(w, s.card_label)
                                       : LoadDlrmInference(w, s.card_label);
    if (!pods.ok()) return pods.status();
    for (TracePod& tp : *pods) {
      if (!w.priority_class.empty()) {
        tp.pod.spec.has_priority = true;
        tp.pod.spec.priority = priority_values_[w.priority_class];
      }
      const std::string* q = Annotation(tp.pod, kPodQueueAnnotation);
      (w.kind == "openb-pods" ? training_queues_ : inference_queues_).insert(*q);
    }
    trace_pods_.push_back(std::move(pods).value());
  }
  for (const NodeEvent& e : s.node_events) {
    for (const std::string& n : e.nodes) {
      if (!node_names.count(n)) {
        return Status::InvalidArgument(file + ":" + std::to_string(e.yaml_line) +
                                       ": node_events.nodes: unknown node \"" + n +
                                       "\" (pool nodes are named <pool>-0000, <pool>-0001, ...)");
      }
    }
  }
  Status added = state_.AddAll(std::move(objects));
  if (!added.ok()) return added.WithContext(file);
  std::set<std::string> workload_names;
  for (const TrainingWorkload& w : s.training) workload_names.insert(w.name);
  for (const InferenceWorkload& w : s.inference) workload_names.insert(w.name);
  BASALT_RETURN_IF_ERROR(InitColocation(workload_names));
  BASALT_RETURN_IF_ERROR(InitTopology());
  for (const InferenceWorkload& w : s.inference) {
    state_.UpsertOwner(MakeDeployment(w));
    state_.UpsertOwner(MakeReplicaSet(w));
  }
  SessionOptions options;
  options.record_events = false;  // the simulator reports no events
  runner_ = std::make_unique<CycleRunner>(state_, conf_, plugins_, actions_, options);
  // The controllers' clock is the simulated one (set before every step).
  runner_->set_now(0);
  runner_->set_step_seconds(0);
  runner_->set_incremental(true);
  Status init = runner_->Init();
  if (!init.ok()) return init.WithContext(file + ": scheduler");
  runner_->SyncControllers();

  // Static queue facts for the metrics: deserved is the spec's when set, else
  // the queue's weight share of the cluster (what `proportion` converges to
  // when every queue asks for more than its share).
  Resource total;
  std::map<std::string, double> capacity;
  for (const auto& [name, n] : state_.nodes()) total += n.allocatable;
  const ResourceId gpu = ResourceNames::Intern("nvidia.com/gpu");
  for (const auto& [name, n] : state_.nodes()) {
    auto it = card_model_of_node_.find(name);
    if (it != card_model_of_node_.end())
      capacity["gpu:" + it->second] += n.allocatable.Get(gpu) / 1000.0;
  }
  capacity["cpu"] = total.milli_cpu() / 1000.0;
  capacity["memory_gib"] = static_cast<double>(total.memory()) / (1024.0 * 1024 * 1024);
  capacity["nvidia.com/gpu"] = total.Get(gpu) / 1000.0;
  total_gpu_capacity_ = total.Get(gpu);
  metrics_.SetCapacity(capacity);
  int64_t weight_sum = 0;
  for (const auto& [name, q] : state_.queues()) weight_sum += q.weight;
  std::vector<QueueInfoStatic> qs;
  for (const auto& [name, q] : state_.queues()) {
    QueueInfoStatic info;
    info.name = name;
    info.role = inference_queues_.count(name)  ? "inference"
                : training_queues_.count(name) ? "training"
                                               : "";
    info.deserved =
        q.deserved ? *q.deserved
                   : total.Scaled(static_cast<double>(q.weight) / static_cast<double>(weight_sum));
    info.capability = q.capability ? *q.capability : total;
    info.reclaimable = q.IsReclaimable();
    qs.push_back(std::move(info));
  }
  metrics_.SetQueues(std::move(qs));
  for (const InferenceWorkload& w : s.inference) {
    if (w.replicas.kind == "sine") {
      metrics_.SetTide(w.replicas.period, w.replicas.peak_at, s.duration);
      break;
    }
  }

  // Initial events.
  for (size_t i = 0; i < s.node_events.size(); ++i)
    Push(s.node_events[i].at, kNodeEvent, static_cast<int64_t>(i));
  training_seq_.assign(s.training.size(), 0);
  for (size_t i = 0; i < s.training.size(); ++i) {
    const TrainingWorkload& w = s.training[i];
    Push(w.start + NextArrivalGap(w, rng_), kArrival, static_cast<int64_t>(i), "training");
  }
  deployments_.resize(s.inference.size());
  deployment_dirty_.assign(s.inference.size(), 0);
  for (size_t i = 0; i < s.inference.size(); ++i) Push(0, kScale, static_cast<int64_t>(i));
  for (size_t i = 0; i < trace_pods_.size(); ++i) {
    for (size_t k = 0; k < trace_pods_[i].size(); ++k) {
      const TracePod& tp = trace_pods_[i][k];
      if (tp.arrive > s.duration) continue;
      Push(tp.arrive, kArrival, static_cast<int64_t>(i), "trace", static_cast<int64_t>(k));
      if (tp.delete_at >= 0 && tp.delete_at <= s.duration) {
        Push(tp.delete_at, kTraceDelete, 0, tp.pod.meta.Key());
      }
    }
  }
  return Status::Ok();
}

Status Simulator::InitColocation(const std::set<std::string>& workloads) {
  if (!scenario_.colocation) return Status::Ok();
  const ColocationSpec& spec = *scenario_.colocation;
  const std::string& file = scenario_.source;
  std::vector<const Node*> nodes;
  if (spec.pools.empty()) {
    for (const auto& [name, n] : state_.nodes()) nodes.push_back(&n);
  }
  for (size_t i = 0; i < spec.pools.size(); ++i) {
    auto pool = std::find_if(scenario_.pools.begin(), scenario_.pools.end(),
                             [&](const NodePool& p) { return p.name == spec.pools[i]; });
    if (pool == scenario_.pools.end()) {
      return Status::InvalidArgument(
          file + ":" + std::to_string(spec.pool_lines[i]) + ": colocation.pools[" +
          std::to_string(i) + "]: unknown pool \"" + spec.pools[i] + "\" (name one under nodes:)");
    }
    for (int32_t k = 0; k < pool->count; ++k) {
      nodes.push_back(&state_.nodes().at(PoolNodeName(pool->name, k)));
    }
  }
  BASALT_ASSIGN_OR_RETURN(ColocationModel model,
                          ColocationModel::Create(spec, file, seed_, nodes, workloads));
  colocation_ = std::make_unique<ColocationModel>(std::move(model));
  next_agent_t_ = colocation_->period_seconds();
  return Status::Ok();
}

// The agents' periods before an event at `t` (or up to a cycle at `t`,
// inclusive): what they report is on the nodes the next cycle sees; the pods
// they evict go as any evicted pod does.
void Simulator::RunAgentsUntil(int64_t t, bool inclusive) {
  if (!colocation_) return;
  while (next_agent_t_ < t || (inclusive && next_agent_t_ == t)) {
    if (next_agent_t_ > scenario_.duration) return;
    now_ = next_agent_t_;
    AgentPeriodResult r = colocation_->Tick(now_, state_);
    for (Node& n : r.node_updates) state_.UpsertNode(std::move(n));
    for (const std::string& key : r.evict) EvictPod(key, "agent");
    if (!r.node_updates.empty() || !r.evict.empty()) dirty_ = true;
    next_agent_t_ += colocation_->period_seconds();
  }
}

void Simulator::EvictPod(const std::string& key, const std::string& cause) {
  const Pod* pod = state_.FindPod(key);
  if (!pod || pod->meta.deleting) return;
  if (pod->spec.node_name.empty()) return;
  runner_->MarkDeleting(key);
  TouchDeploymentOf(key);
  metrics_.AddEviction(cause, now_);
}

void Simulator::TouchDeploymentOf(const std::string& pod_key) {
  auto it = pod_deployment_.find(pod_key);
  if (it != pod_deployment_.end()) deployment_dirty_[it->second] = 1;
}

void Simulator::ApplyNodeEvent(const NodeEvent& e) {
  for (const std::string& name : e.nodes) {
    auto it = state_.nodes().find(name);
    if (it == state_.nodes().end()) continue;
    Node n = it->second;
    if (e.action == "recover") {
      n.ready = true;
      n.unschedulable = false;
    } else if (e.action == "fail") {
      n.ready = false;
    } else {
      n.unschedulable = true;
    }
    state_.UpsertNode(std::move(n));
    if (e.action == "recover") continue;
    std::vector<std::string> victims;
    for (const auto& [key, pod] : state_.pods()) {
      if (pod.spec.node_name == name) victims.push_back(key);
    }
    for (const std::string& key : victims)
      EvictPod(key, e.action == "fail" ? "node_failure" : "drain");
  }
}

bool Simulator::ReconcileDeployment(size_t index) {
  const InferenceWorkload& w = scenario_.inference[index];
  Deployment& d = deployments_[index];
  std::vector<std::string> live_unbound, live_bound;
  for (auto it = d.pods.begin(); it != d.pods.end();) {
    const Pod* pod = state_.FindPod(*it);
    if (!pod) {
      pending_since_.erase(*it);
      pod_deployment_.erase(*it);
      it = d.pods.erase(it);
      continue;
    }
    if (!pod->meta.deleting)
      (pod->spec.node_name.empty() ? live_unbound : live_bound).push_back(*it);
    ++it;
  }
  int64_t live = static_cast<int64_t>(live_unbound.size() + live_bound.size());
  if (live < d.desired) {
    const int32_t prio = w.priority_class.empty() ? 0 : priority_values_[w.priority_class];
    for (int64_t k = live; k < d.desired; ++k) {
      Pod pod = MakeInferencePod(w, d.next_seq++, now_, prio, scenario_.card_label);
      const std::string key = pod.meta.Key();
      d.pods.insert(key);
      pending_since_[key] = now_;
      pod_queue_[key] = w.queue;
      pod_deployment_[key] = index;
      state_.UpsertPod(std::move(pod));
    }
    metrics_.AddPodsCreated("inference", d.desired - live);
    dirty_ = true;
    return true;
  }
  if (live > d.desired) {
    // As a ReplicaSet scales down: unscheduled pods first, then the newest.
    int64_t excess = live - d.desired;
    for (auto it = live_unbound.rbegin(); it != live_unbound.rend() && excess > 0; ++it, --excess) {
      state_.DeletePod(*it);
      pending_since_.erase(*it);
      pod_queue_.erase(*it);
      pod_deployment_.erase(*it);
      d.pods.erase(*it);
    }
    for (auto it = live_bound.rbegin(); it != live_bound.rend() && excess > 0; ++it, --excess) {
      runner_->MarkDeleting(*it);
    }
    dirty_ = true;
  }
  return false;
}

void Simulator::CompleteJob(const std::string& key) {
  const VcJob* job = state_.FindJob(key);
  if (job) {
    const std::string prefix = job->meta.namespace_ + "/" + job->meta.name + "-";
    std::vector<std::string> keys;
    for (auto it = state_.pods().lower_bound(prefix);
         it != state_.pods().end() && it->first.starts_with(prefix); ++it) {
      keys.push_back(it->first);
    }
    // Completion is not an eviction: the pods go without the job's PodEvicted policy.
    for (const std::string& k : keys) state_.DeletePod(k);
    state_.DeletePodGroup(job->meta.namespace_ + "/" + JobController::PodGroupName(*job));
    state_.DeleteJob(key);
  }
  jobs_.erase(key);
  metrics_.AddJobCompleted();
  dirty_ = true;
}

void Simulator::Apply(const Event& e) {
  now_ = e.t;
  dirty_ = true;
  switch (e.kind) {
    case kNodeEvent:
      ApplyNodeEvent(scenario_.node_events[e.index]);
      break;
    case kScale: {
      const InferenceWorkload& w = scenario_.inference[e.index];
      deployments_[e.index].desired = w.replicas.At(e.t);
      ReconcileDeployment(e.index);
      if (e.t + w.replicas.step <= scenario_.duration) Push(e.t + w.replicas.step, kScale, e.index);
      break;
    }
    case kCompletion: {
      auto jt = jobs_.find(e.key);
      if (jt != jobs_.end()) {
        if (jt->second.running && jt->second.epoch == e.epoch) CompleteJob(e.key);
        break;
      }
      auto tt = trace_tracks_.find(e.key);
      if (tt != trace_tracks_.end() && tt->second.started) {
        state_.DeletePod(e.key);
        trace_tracks_.erase(tt);
      }
      break;
    }
    case kTraceDelete: {
      const Pod* pod = state_.FindPod(e.key);
      if (pod && !pod->spec.node_name.empty()) {
        runner_->MarkDeleting(e.key);
      } else if (pod) {
        state_.DeletePod(e.key);
      }
      trace_tracks_.erase(e.key);
      unstarted_traces_.erase(e.key);
      pending_since_.erase(e.key);
      break;
    }
    case kArrival: {
      if (e.key == "trace") {
        const TracePod& tp = trace_pods_[e.index][e.epoch];
        const std::string key = tp.pod.meta.Key();
        if (state_.FindPod(key)) break;  // a duplicate trace row: the first one wins
        Pod pod = tp.pod;
        state_.UpsertPod(std::move(pod));
        const std::string queue = *Annotation(tp.pod, kPodQueueAnnotation);
        pending_since_[key] = e.t;
        pod_queue_[key] = queue;
        if (tp.run_for > 0) {
          trace_tracks_[key] = TracePodTrack{queue, e.t, tp.run_for, false};
          unstarted_traces_.insert(key);
        }
        metrics_.AddPodsCreated("trace", 1);
        break;
      }
      const TrainingWorkload& w = scenario_.training[e.index];
      const int64_t seq = training_seq_[e.index]++;
      const int32_t prio = w.priority_class.empty() ? 0 : priority_values_[w.priority_class];
      VcJob job = MakeTrainingJob(w, seq, e.t, prio, scenario_.card_label, rng_);
      job.network_topology =
          EffectiveJobTopology(scenario_.topology, w.network_topology, default_topology_tier_);
      if (placement_) placement_->OnJobSubmitted(job, w.name, e.t);
      JobTrack track;
      track.queue = w.queue;
      track.min_available = job.min_available;
      track.arrived = e.t;
      track.duration = DrawDuration(w.duration, rng_);
      jobs_[job.meta.Key()] = track;
      state_.UpsertJob(std::move(job));
      metrics_.AddJobSubmitted();
      const int64_t next = e.t + NextArrivalGap(w, rng_);
      const int64_t stop = w.stop > 0 ? std::min(w.stop, scenario_.duration) : scenario_.duration;
      if (next <= stop && (w.max_jobs == 0 || training_seq_[e.index] < w.max_jobs)) {
        Push(next, kArrival, e.index, "training");
      }
      break;
    }
  }
}

void Simulator::AfterWorldStep(bool full) {
  if (full) {
    bool created = false;
    for (size_t i = 0; i < deployments_.size(); ++i) {
      if (!deployment_dirty_[i]) continue;
      deployment_dirty_[i] = 0;
      created |= ReconcileDeployment(i);
    }
    if (created) runner_->SyncPodGroups();  // groups for the replicas just created
    TrackStarts();
    TrackJobs();
    if (!scenario_.manifests.empty()) TrackManifestJobs();
  }
  const bool sample_due = metrics_.samples().empty() ||
                          now_ >= metrics_.samples().back().t + scenario_.metrics_interval;
  if (sample_due) Sample();
}

namespace {

bool IsRunning(const Pod& pod) {
  return !pod.spec.node_name.empty() && !pod.meta.deleting && pod.phase == "Running";
}

}  // namespace

// Pods that started since the last step: their wait ends; trace pods start
// their run time.
void Simulator::TrackStarts() {
  for (auto it = pending_since_.begin(); it != pending_since_.end();) {
    const Pod* pod = state_.FindPod(it->first);
    if (pod && IsRunning(*pod)) {
      auto q = pod_queue_.find(it->first);
      metrics_.AddWait(q->second, now_ - it->second);
      pod_queue_.erase(q);
      it = pending_since_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = unstarted_traces_.begin(); it != unstarted_traces_.end();) {
    auto tt = trace_tracks_.find(*it);
    const Pod* pod = state_.FindPod(*it);
    if (tt == trace_tracks_.end()) {
      it = unstarted_traces_.erase(it);
    } else if (pod && IsRunning(*pod)) {
      tt->second.started = true;
      Push(now_ + tt->second.run_for, kCompletion, 0, *it);
      it = unstarted_traces_.erase(it);
    } else {
      ++it;
    }
  }
}

void Simulator::TrackManifestJobs() {
  for (const auto& [key, job] : state_.jobs()) {
    if (job.meta.source.starts_with("simulate:")) continue;  // a training workload's
    if (manifest_jobs_seen_.insert(key).second) metrics_.AddJobSubmitted();
    if (job.phase == "Completed" && manifest_jobs_completed_.insert(key).second)
      metrics_.AddJobCompleted();
  }
}

// Training jobs: a complete gang starts the job's clock, a broken one loses
// its progress; a partly running gang is a violation.
void Simulator::TrackJobs() {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const std::string& key = it->first;
    JobTrack& t = it->second;
    const VcJob* job = state_.FindJob(key);
    if (!job || IsFinalPhase(job->phase)) {  // aborted or terminated by its policy
      it = jobs_.erase(it);
      continue;
    }
    // The job's pods are named <job>-<task>-<index>; the annotation tells
    // them from another job whose name extends this one.
    int32_t running = 0;
    const std::string prefix = key + "-";
    for (auto p = state_.pods().lower_bound(prefix);
         p != state_.pods().end() && p->first.starts_with(prefix); ++p) {
      const std::string* jn = Annotation(p->second, kJobNameAnnotation);
      if (jn && *jn == job->meta.name && IsRunning(p->second)) ++running;
    }
    if (running > 0 && running < t.min_available) metrics_.AddGangViolation(key);
    if (running >= t.min_available && !t.running) {
      t.running = true;
      if (!t.ever_started) {
        metrics_.AddWait(t.queue, now_ - t.arrived);
        t.ever_started = true;
        if (placement_) placement_->OnGangStarted(key, state_, now_);
      }
      Push(now_ + t.duration, kCompletion, 0, key, t.epoch);
    } else if (running < t.min_available && t.running) {
      t.running = false;  // the gang broke: progress is lost, the job starts over
      ++t.epoch;
      metrics_.AddJobRestart();
    }
    ++it;
  }
}

// What the idle-GPU explanation needs (sim/idle_reasons.h): the free GPUs of
// each schedulable node, the waiting GPU pods by job, the queues' GPUs.
IdleSnapshot Simulator::IdleNow(const std::map<std::string, int64_t>& queue_gpu_milli) const {
  const ResourceId gpu = ResourceNames::Intern("nvidia.com/gpu");
  IdleSnapshot snap;
  std::map<std::string, int64_t> node_used;
  std::map<std::string, IdleSnapshot::WaitingJob> waiting;
  for (const auto& [key, pod] : state_.pods()) {
    const int64_t g = pod.spec.request.Get(gpu);
    if (g <= 0) continue;
    if (!pod.spec.node_name.empty()) {
      node_used[pod.spec.node_name] += g;
      continue;
    }
    if (pod.meta.deleting || pod.phase != "Pending") continue;
    const std::string* job = Annotation(pod, kJobNameAnnotation);
    const std::string name = job ? pod.meta.namespace_ + "/" + *job : key;
    const std::string* q = Annotation(pod, kVcQueueAnnotation);
    if (!q) q = Annotation(pod, kPodQueueAnnotation);
    IdleSnapshot::WaitingJob& w = waiting[name];
    w.name = name;
    if (q) w.queue = *q;
    w.pod_gpu_milli.push_back(g);
  }
  for (auto& [name, w] : waiting) snap.waiting.push_back(std::move(w));
  for (const auto& [name, n] : state_.nodes()) {
    const int64_t cap = n.allocatable.Get(gpu);
    if (cap <= 0 || n.unschedulable || !n.ready) continue;
    auto used = node_used.find(name);
    snap.node_free_gpu_milli.push_back(
        std::max<int64_t>(0, cap - (used == node_used.end() ? 0 : used->second)));
  }
  for (const auto& [name, q] : state_.queues()) {
    IdleSnapshot::QueueGpus& g = snap.queues[name];
    auto a = queue_gpu_milli.find(name);
    g.allocated = a == queue_gpu_milli.end() ? 0 : a->second;
    // Only a declared deserved share is a limit: proportion lends a weight
    // share that other queues leave unused.
    g.deserved = q.deserved ? q.deserved->Get(gpu) : 0;
    g.capability = q.capability ? q.capability->Get(gpu) : 0;
  }
  return snap;
}

// One metrics sample: the only full pass over the store.
void Simulator::Sample() {
  const ResourceId gpu = ResourceNames::Intern("nvidia.com/gpu");
  MetricSample sample;
  sample.t = now_;
  int64_t used_cpu = 0, used_mem = 0, used_gpu = 0;
  std::map<std::string, int64_t> model_used;
  std::map<std::string, int64_t> queue_gpu_milli, queue_cpu_milli;
  for (const auto& [key, pod] : state_.pods()) {
    const bool bound = !pod.spec.node_name.empty() && !pod.meta.deleting;
    if (bound && pod.phase == "Running") ++sample.running_pods;
    if (pod.spec.node_name.empty() && !pod.meta.deleting && pod.phase == "Pending")
      ++sample.pending_pods;
    if (!bound) continue;
    used_cpu += pod.spec.request.milli_cpu();
    used_mem += pod.spec.request.memory();
    const int64_t g = pod.spec.request.Get(gpu);
    used_gpu += g;
    if (g > 0) {
      auto m = card_model_of_node_.find(pod.spec.node_name);
      if (m != card_model_of_node_.end()) model_used[m->second] += g;
    }
    const std::string* q = Annotation(pod, kVcQueueAnnotation);
    if (!q) q = Annotation(pod, kPodQueueAnnotation);
    if (q) {
      queue_gpu_milli[*q] += g;
      queue_cpu_milli[*q] += pod.spec.request.milli_cpu();
    }
  }
  for (const auto& [key, t] : jobs_) (t.running ? sample.running_jobs : sample.pending_jobs)++;
  if (total_gpu_capacity_ > 0)
    metrics_.AddIdleVerdict(now_, scenario_.metrics_interval,
                            ExplainIdle(IdleNow(queue_gpu_milli)));

  Resource total;
  std::map<std::string, int64_t> model_total;
  for (const auto& [name, n] : state_.nodes()) {
    total += n.allocatable;
    auto m = card_model_of_node_.find(name);
    if (m != card_model_of_node_.end()) model_total[m->second] += n.allocatable.Get(gpu);
  }
  auto ratio = [](int64_t a, int64_t b) {
    return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
  };
  sample.utilization["cpu"] = ratio(used_cpu, total.milli_cpu());
  sample.utilization["memory"] = ratio(used_mem, total.memory());
  if (total.Get(gpu) > 0) sample.utilization["nvidia.com/gpu"] = ratio(used_gpu, total.Get(gpu));
  for (const auto& [model, cap] : model_total) {
    if (cap > 0) sample.utilization["gpu:" + model] = ratio(model_used[model], cap);
  }
  for (const auto& q : metrics_.queues()) {
    sample.queue_gpus[q.name] = static_cast<double>(queue_gpu_milli[q.name]) / 1000.0;
    sample.queue_cpus[q.name] = static_cast<double>(queue_cpu_milli[q.name]) / 1000.0;
  }
  for (const Deployment& d : deployments_) sample.inference_desired += d.desired;
  sample.evictions = metrics_.evictions_total();
  sample.gang_violations = metrics_.gang_violations();
  sample.jobs_completed = metrics_.jobs_completed();
  if (colocation_) sample.colocation = colocation_->SampleValues();
  metrics_.AddSample(std::move(sample));
}

uint64_t Simulator::JobsFingerprint() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (const auto& [key, job] : state_.jobs()) {
    for (char c : job.phase) mix(static_cast<unsigned char>(c));
    mix(static_cast<uint64_t>(job.version));
    mix(static_cast<uint64_t>(job.retry_count));
  }
  return h;
}

Status Simulator::Run() {
  const int64_t duration = scenario_.duration;
  const int64_t period = scenario_.period;
  int64_t next_progress = 0;
  // Time 0: initial replicas and arrivals at 0, controllers, a first sample.
  while (!events_.empty() && events_.top().t <= 0) {
    Event e = events_.top();
    events_.pop();
    Apply(e);
  }
  now_ = 0;
  runner_->SyncControllers();
  AfterWorldStep(true);
  changed_last_ = true;
  for (int64_t tick = period; tick <= duration; tick += period) {
    while (!events_.empty() && events_.top().t <= tick) {
      Event e = events_.top();
      events_.pop();
      RunAgentsUntil(e.t, false);
      Apply(e);
    }
    RunAgentsUntil(tick, true);
    now_ = tick;
    runner_->set_now(tick);
    const bool run_session =
        dirty_ || changed_last_ || !options_.skip_idle_cycles || clock_sensitive_;
    if (run_session || runner_->has_running_timers()) {
      // Without a session (it would see the last one's store and decide the
      // same nothing) the world step still runs while running pods count this
      // step towards their end. Objects the events created are this session's
      // input, but the controllers react to them only in the world step after
      // it (a PodGroup for a new pod, annotations the store's generation does
      // not count), so a cycle after events always counts as a change.
      const bool had_events = dirty_;
      dirty_ = false;
      const uint64_t generation = state_.generation();
      const uint64_t jobs_before = JobsFingerprint();
      bool session_changed = false;
      if (run_session) {
        auto cycle = runner_->RunCycle(false);
        if (!cycle.ok()) return cycle.status();
        for (const EvictDecision& ev : cycle->decisions.evictions) {
          metrics_.AddEviction(ev.action, now_);
          TouchDeploymentOf(ev.pod);
        }
        session_changed = cycle->state_changed;
      }
      const WorldStepResult step = runner_->WorldStep();
      for (const std::string& key : step.deleted) TouchDeploymentOf(key);
      metrics_.AddCycle(!run_session);
      AfterWorldStep(true);
      changed_last_ = had_events || session_changed || step.changed() || dirty_ ||
                      state_.generation() != generation || JobsFingerprint() != jobs_before;
      dirty_ = false;
    } else {
      metrics_.AddCycle(true);
      AfterWorldStep(false);
    }
    if (options_.progress && tick >= next_progress) {
      options_.progress(tick, duration);
      next_progress = tick + std::max<int64_t>(period, duration / 100);
    }
  }
  if (options_.progress) options_.progress(duration, duration);
  if (colocation_) metrics_.SetColocationSummary(colocation_->SummaryJson());
  return Status::Ok();
}

}  // namespace basalt
