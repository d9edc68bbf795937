#include "framework/session.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "api/check.h"
#include "api/log.h"
#include "framework/bind_check.h"
#include "framework/session_stats.h"
#include "framework/snapshot_cache.h"

namespace basalt {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

const char* TaskStatusName(TaskStatus s) {
  switch (s) {
    case TaskStatus::kPending:
      return "Pending";
    case TaskStatus::kAllocated:
      return "Allocated";
    case TaskStatus::kPipelined:
      return "Pipelined";
    case TaskStatus::kBinding:
      return "Binding";
    case TaskStatus::kBound:
      return "Bound";
    case TaskStatus::kRunning:
      return "Running";
    case TaskStatus::kReleasing:
      return "Releasing";
    case TaskStatus::kSucceeded:
      return "Succeeded";
    case TaskStatus::kFailed:
      return "Failed";
    case TaskStatus::kUnknown:
      return "Unknown";
    case TaskStatus::kCount:
      break;
  }
  return "?";
}

int32_t JobInfo::ReadyTaskNum() const {
  return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
         Count(TaskStatus::kAllocated) + Count(TaskStatus::kSucceeded);
}
int32_t JobInfo::WaitingTaskNum() const { return Count(TaskStatus::kPipelined); }
int32_t JobInfo::ValidTaskNum() const {
  return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
         Count(TaskStatus::kAllocated) + Count(TaskStatus::kSucceeded) +
         Count(TaskStatus::kPipelined) + Count(TaskStatus::kPending);
}

std::string FitErrors::Message(int total_nodes) const {
  if (node_reasons.empty() && !reason_counts) {
    return error.empty() ? "0/" + std::to_string(total_nodes) + " nodes are available" : error;
  }
  std::map<std::string, int64_t> hist;
  if (reason_counts) hist = *reason_counts;
  for (const auto& [node, reasons] : node_reasons) {
    for (const auto& r : reasons) ++hist[r];
  }
  std::vector<std::pair<int64_t, std::string>> items;
  for (const auto& [r, n] : hist) items.push_back({n, r});
  // Most common reason first; ties by text, so the message is deterministic.
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string msg = "0/" + std::to_string(total_nodes) + " nodes are available: ";
  for (size_t i = 0; i < items.size(); ++i) {
    msg += (i ? ", " : "") + std::to_string(items[i].first) + " " + items[i].second;
  }
  return msg + ".";
}

// ---- plugin slots ----

struct Session::Slot {
  int tier = 0;
  const PluginOption* option = nullptr;
  std::unique_ptr<Plugin> plugin;
  JobOrderFn job_order;
  QueueOrderFn queue_order;
  TaskOrderFn task_order;
  VictimQueueOrderFn victim_queue_order;
  PrePredicateFn pre_predicate;
  PredicateFn predicate;
  NodeOrderFn node_order;
  BatchNodeOrderFn batch_node_order;
  bool batch_subset_uniform = false;
  EvictableFn preemptable;
  EvictableFn reclaimable;
  QueueFn overused;
  QueueTaskFn preemptive;
  QueueTaskFn allocatable;
  JobValidFn job_valid;
  JobFn job_ready;
  JobVoteFn job_pipelined;
  JobVoteFn job_enqueueable;
  JobNotifyFn job_enqueued;
  JobFn job_starving;
  VictimTasksFn victim_tasks;
  HyperNodeOrderFn hypernode_order;
  bool On(Switch s) const { return option->Enabled(s); }
};

Session::Session(const ClusterState& state, const SchedulerConfig& conf, SessionOptions options)
    : state_(state), conf_(conf), options_(std::move(options)) {}

Session::~Session() { ReturnSnapshotToCache(); }

void Session::BuildSnapshot() {
  const SnapshotScope scope{options_.scheduler_names, options_.default_queue};
  SnapshotCache* cache = options_.snapshot_cache;
  if (!cache || cache->lent()) {
    own_snapshot_ = Snapshot::Build(state_, scope);
    return;
  }
  bool patched = false;
  snap_ = &cache->Lend(state_, scope, &patched);
  cache_ = cache;
  if (!patched || !(options_.check_invariants || options_.verify_snapshot_cache)) return;
  Status diff = VerifyPatchedSnapshot();
  if (diff.ok()) return;
  BASALT_CHECK(options_.on_invariant_violation) << diff.ToString();
  options_.on_invariant_violation(diff);
}

Status Session::VerifyPatchedSnapshot() const {
  const Snapshot full =
      Snapshot::Build(state_, SnapshotScope{options_.scheduler_names, options_.default_queue});
  if (*snap_ == full) return Status::Ok();
  std::string where = DescribeSnapshotDifference(*snap_, full);
  return Status::Internal("snapshot cache: " + where);
}

void Session::ReturnSnapshotToCache() {
  if (!cache_) return;
  cache_->GiveBack(std::move(touched_tasks_), std::move(node_change_log_));
  snap_ = &own_snapshot_;
  cache_ = nullptr;
}

Session::Slot& Session::Current() {
  BASALT_CHECK(current_slot_ >= 0) << "extension points may only be registered from OnSessionOpen";
  return *slots_[current_slot_];
}

void Session::AddJobOrderFn(JobOrderFn fn) { Current().job_order = std::move(fn); }
void Session::AddQueueOrderFn(QueueOrderFn fn) { Current().queue_order = std::move(fn); }
void Session::AddTaskOrderFn(TaskOrderFn fn) { Current().task_order = std::move(fn); }
void Session::AddVictimQueueOrderFn(VictimQueueOrderFn fn) {
  Current().victim_queue_order = std::move(fn);
}
void Session::AddPrePredicateFn(PrePredicateFn fn) { Current().pre_predicate = std::move(fn); }
void Session::AddPredicateFn(PredicateFn fn) { Current().predicate = std::move(fn); }
void Session::AddNodeOrderFn(NodeOrderFn fn) { Current().node_order = std::move(fn); }
void Session::AddBatchNodeOrderFn(BatchNodeOrderFn fn, bool subset_uniform) {
  Current().batch_node_order = std::move(fn);
  Current().batch_subset_uniform = subset_uniform;
}
void Session::AddPreemptableFn(EvictableFn fn) { Current().preemptable = std::move(fn); }
void Session::AddReclaimableFn(EvictableFn fn) { Current().reclaimable = std::move(fn); }
void Session::AddOverusedFn(QueueFn fn) { Current().overused = std::move(fn); }
void Session::AddPreemptiveFn(QueueTaskFn fn) { Current().preemptive = std::move(fn); }
void Session::AddAllocatableFn(QueueTaskFn fn) { Current().allocatable = std::move(fn); }
void Session::AddJobValidFn(JobValidFn fn) { Current().job_valid = std::move(fn); }
void Session::AddJobReadyFn(JobFn fn) { Current().job_ready = std::move(fn); }
void Session::AddJobPipelinedFn(JobVoteFn fn) { Current().job_pipelined = std::move(fn); }
void Session::AddJobEnqueueableFn(JobVoteFn fn) { Current().job_enqueueable = std::move(fn); }
void Session::AddJobEnqueuedFn(JobNotifyFn fn) { Current().job_enqueued = std::move(fn); }
void Session::AddJobStarvingFn(JobFn fn) { Current().job_starving = std::move(fn); }
void Session::AddVictimTasksFn(VictimTasksFn fn) { Current().victim_tasks = std::move(fn); }
void Session::AddHyperNodeOrderFn(HyperNodeOrderFn fn) {
  Current().hypernode_order = std::move(fn);
}
void Session::AddHyperNodeGradient() {
  if (Current().On(Switch::kHyperNodeGradient)) hypernode_tree_.set_constraining(true);
}
void Session::AddEventHandler(EventHandler handler) { handlers_.push_back(std::move(handler)); }
void Session::AddBindAnnotationsFn(BindAnnotationsFn fn) {
  bind_annotation_fns_.push_back(std::move(fn));
}

std::optional<int32_t> Session::PriorityClassValue(const std::string& name) const {
  auto it = state_.priority_classes().find(name);
  if (it == state_.priority_classes().end()) return std::nullopt;
  return it->second.value;
}

Result<std::unique_ptr<Session>> Session::Open(const ClusterState& state,
                                               const SchedulerConfig& conf,
                                               const PluginRegistry& plugins,
                                               const SessionOptions& options) {
  const auto open_start = std::chrono::steady_clock::now();
  SessionStats* stats = ActiveSessionStats();  // null: nobody observes
  std::unique_ptr<Session> ssn(new Session(state, conf, options));
  ssn->BuildSnapshot();
  if (stats) stats->snapshot_seconds = SecondsSince(open_start);
  ssn->hypernode_tree_ = HyperNodeTree::Build(state, *ssn->snap_);
  ssn->subgroups_ = SubGroupIndex::Build(*ssn->snap_);
  for (size_t t = 0; t < conf.tiers.size(); ++t) {
    for (const PluginOption& opt : conf.tiers[t].plugins) {
      auto plugin = plugins.Create(opt.name, opt.arguments);
      if (!plugin.ok()) return plugin.status();
      auto slot = std::make_unique<Slot>();
      slot->tier = static_cast<int>(t);
      slot->option = &opt;
      slot->plugin = std::move(plugin).value();
      ssn->slots_.push_back(std::move(slot));
    }
  }
  for (size_t i = 0; i < ssn->slots_.size(); ++i) {
    ssn->current_slot_ = static_cast<int>(i);
    const auto start = std::chrono::steady_clock::now();
    ssn->slots_[i]->plugin->OnSessionOpen(*ssn);
    if (stats)
      stats->plugin_open.push_back(
          {std::string(ssn->slots_[i]->plugin->Name()), SecondsSince(start)});
  }
  ssn->current_slot_ = -1;
  if (stats) stats->open_seconds = SecondsSince(open_start);
  return ssn;
}

std::optional<NodeId> Session::FindNode(const std::string& name) const {
  auto it = snap_->node_index.find(name);
  if (it == snap_->node_index.end()) return std::nullopt;
  return it->second;
}

std::optional<QueueId> Session::FindQueue(const std::string& name) const {
  auto it = snap_->queue_index.find(name);
  if (it == snap_->queue_index.end()) return std::nullopt;
  return it->second;
}

// ---- orders ----

int Session::JobOrderCompare(const JobInfo& a, const JobInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->job_order || !s->On(Switch::kJobOrder)) continue;
    int r = s->job_order(a, b);
    if (r != 0) return r;
  }
  return 0;
}

bool Session::JobOrderLess(const JobInfo& a, const JobInfo& b) const {
  if (int r = JobOrderCompare(a, b); r != 0) return r < 0;
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.key < b.key;
}

bool Session::QueueOrderLess(const QueueInfo& a, const QueueInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->queue_order || !s->On(Switch::kQueueOrder)) continue;
    int r = s->queue_order(a, b);
    if (r != 0) return r < 0;
  }
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.name < b.name;
}

bool Session::TaskOrderLess(const TaskInfo& a, const TaskInfo& b) const {
  for (const auto& s : slots_) {
    if (!s->task_order || !s->On(Switch::kTaskOrder)) continue;
    int r = s->task_order(a, b);
    if (r != 0) return r < 0;
  }
  if (a.name_index >= 0 && b.name_index >= 0 && a.name_index != b.name_index)
    return a.name_index < b.name_index;
  if (a.creation != b.creation) return a.creation < b.creation;
  return a.key < b.key;
}

bool Session::VictimQueueOrderLess(const QueueInfo& a, const QueueInfo& b,
                                   const QueueInfo& reclaimer) const {
  for (const auto& s : slots_) {
    if (!s->victim_queue_order) continue;  // always on (no switch)
    int r = s->victim_queue_order(a, b, reclaimer);
    if (r != 0) return r < 0;
  }
  if (a.id == b.id) return false;
  return !QueueOrderLess(a, b);
}

bool Session::VictimOrderLess(const TaskInfo& a, const TaskInfo& b,
                              const QueueInfo& preemptor_queue) const {
  if (a.job == b.job) return TaskOrderLess(b, a);
  if (a.job == kNone || b.job == kNone) return a.job == kNone;
  const JobInfo& ja = job(a.job);
  const JobInfo& jb = job(b.job);
  if (ja.queue != jb.queue) {
    return VictimQueueOrderLess(queue(ja.queue), queue(jb.queue), preemptor_queue);
  }
  return JobOrderLess(jb, ja);
}

// ---- predicates and scores ----

PredicateStatus Session::PrePredicate(const TaskInfo& task) const {
  for (const auto& s : slots_) {
    if (!s->pre_predicate || !s->On(Switch::kPredicate)) continue;
    PredicateStatus st = s->pre_predicate(task);
    if (!st.ok()) return st;
  }
  return PredicateStatus::Success();
}

PredicateStatus Session::Predicate(const TaskInfo& task, const NodeInfo& node) const {
  for (const auto& s : slots_) {
    if (!s->predicate || !s->On(Switch::kPredicate)) continue;
    PredicateStatus st = s->predicate(task, node);
    if (!st.ok()) return st;
  }
  return PredicateStatus::Success();
}

bool Session::HasPredicates() const {
  for (const auto& s : slots_) {
    if (s->predicate && s->On(Switch::kPredicate)) return true;
  }
  return false;
}

double Session::NodeOrderScore(const TaskInfo& task, const NodeInfo& node) const {
  double score = 0;
  for (const auto& s : slots_) {
    if (s->node_order && s->On(Switch::kNodeOrder)) score += s->node_order(task, node);
  }
  return score;
}

std::vector<double> Session::HyperNodeScores(const JobInfo& job,
                                             const std::vector<HyperNodeId>& hypernodes) const {
  std::vector<double> scores(hypernodes.size(), 0.0);
  for (const auto& s : slots_) {
    if (!s->hypernode_order || !s->On(Switch::kHyperNodeOrder)) continue;
    std::vector<double> b = s->hypernode_order(job, hypernodes);
    for (size_t i = 0; i < hypernodes.size() && i < b.size(); ++i) scores[i] += b[i];
  }
  return scores;
}

std::vector<double> Session::NodeScores(const TaskInfo& task,
                                        const std::vector<const NodeInfo*>& nodes) const {
  std::vector<double> scores(nodes.size(), 0.0);
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder)) continue;
    if (s->node_order) {
      for (size_t i = 0; i < nodes.size(); ++i) scores[i] += s->node_order(task, *nodes[i]);
    }
    if (s->batch_node_order) {
      std::vector<double> b = s->batch_node_order(task, nodes);
      for (size_t i = 0; i < nodes.size() && i < b.size(); ++i) scores[i] += b[i];
    }
  }
  return scores;
}

bool Session::UniformBatchScores(const TaskInfo& task, std::vector<double>* constants) const {
  constants->clear();
  std::vector<const NodeInfo*> all;
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder) || !s->batch_node_order) continue;
    if (!s->batch_subset_uniform) return false;
    if (all.empty()) {
      all.reserve(snap_->nodes.size());
      for (const NodeInfo& n : snap_->nodes) all.push_back(&n);
    }
    std::vector<double> b = s->batch_node_order(task, all);
    if (b.size() != all.size()) return false;
    for (double v : b) {
      if (!(v == b.front())) return false;
    }
    constants->push_back(b.empty() ? 0.0 : b.front());
  }
  return true;
}

double Session::NodeScoreWith(const TaskInfo& task, const NodeInfo& node,
                              const std::vector<double>& constants) const {
  // The additions of NodeScores, in the same order.
  double score = 0.0;
  size_t batch = 0;
  for (const auto& s : slots_) {
    if (!s->On(Switch::kNodeOrder)) continue;
    if (s->node_order) score += s->node_order(task, node);
    if (s->batch_node_order) score += constants[batch++];
  }
  return score;
}

// ---- victims ----

std::vector<const TaskInfo*> Session::VoteVictims(const TaskInfo& t,
                                                  const std::vector<const TaskInfo*>& cands,
                                                  bool reclaim, std::string_view skipped) const {
  Switch sw = reclaim ? Switch::kReclaimable : Switch::kPreemptable;
  int tier = -1;
  bool have = false;  // "victims is not none" within the current tier
  bool tier_done = false;
  std::vector<const TaskInfo*> victims;
  for (size_t i = 0; i <= slots_.size(); ++i) {
    bool tier_end = i == slots_.size() || slots_[i]->tier != tier;
    if (tier_end && tier != -1) {
      if (have) return victims;
      have = false;
      tier_done = false;
      victims.clear();
    }
    if (i == slots_.size()) break;
    const Slot& s = *slots_[i];
    tier = s.tier;
    if (tier_done) continue;
    const EvictableFn& fn = reclaim ? s.reclaimable : s.preemptable;
    if (!fn || !s.On(sw)) continue;
    if (!skipped.empty() && s.plugin->Name() == skipped) continue;
    auto [got, vote] = fn(t, cands);
    if (vote == Vote::kAbstain) continue;
    if (got.empty()) {  // an empty answer ends this tier (not a veto: the next tier is asked)
      have = false;
      victims.clear();
      tier_done = true;
      continue;
    }
    if (!have) {
      victims = std::move(got);
      have = true;
    } else {
      std::vector<const TaskInfo*> inter;
      for (const TaskInfo* v : victims) {
        if (std::find(got.begin(), got.end(), v) != got.end()) inter.push_back(v);
      }
      victims = std::move(inter);
      have = !victims.empty();  // an empty intersection is "none": the next plugin starts afresh
    }
  }
  return {};
}

std::vector<const TaskInfo*> Session::Preemptable(const TaskInfo& t,
                                                  const std::vector<const TaskInfo*>& c) const {
  return VoteVictims(t, c, false);
}
std::vector<const TaskInfo*> Session::Reclaimable(const TaskInfo& t,
                                                  const std::vector<const TaskInfo*>& c) const {
  return VoteVictims(t, c, true);
}
std::vector<const TaskInfo*> Session::VictimVoteWithout(const TaskInfo& t,
                                                        const std::vector<const TaskInfo*>& c,
                                                        bool reclaim,
                                                        std::string_view skipped) const {
  return VoteVictims(t, c, reclaim, skipped);
}

// ---- queue and job votes ----

bool Session::Overused(const QueueInfo& q) const {
  for (const auto& s : slots_) {
    if (s->overused && s->On(Switch::kOverused) && s->overused(q)) return true;
  }
  return false;
}

bool Session::Preemptive(const QueueInfo& q, const TaskInfo& t) const {
  for (const auto& s : slots_) {
    if (s->preemptive && s->On(Switch::kPreemptive) && !s->preemptive(q, t)) return false;
  }
  return true;
}

bool Session::Allocatable(const QueueInfo& q, const TaskInfo& t) const {
  for (const auto& s : slots_) {
    if (s->allocatable && s->On(Switch::kAllocatable) && !s->allocatable(q, t)) return false;
  }
  return true;
}

std::optional<ValidateResult> Session::JobValid(const JobInfo& job) const {
  for (const auto& s : slots_) {
    if (!s->job_valid) continue;  // always on
    if (auto r = s->job_valid(job)) return r;
  }
  return std::nullopt;
}

bool Session::JobReady(const JobInfo& job) const {
  for (const auto& s : slots_) {
    if (s->job_ready && s->On(Switch::kJobReady) && !s->job_ready(job)) return false;
  }
  return true;
}

namespace {
template <typename Slots, typename Get>
bool TierVote(const Slots& slots, Switch sw, Get get, const JobInfo& job) {
  int tier = -1;
  bool permitted = false;
  for (const auto& s : slots) {
    if (s->tier != tier) {
      if (permitted) return true;
      tier = s->tier;
    }
    const JobVoteFn& fn = get(*s);
    if (!fn || !s->On(sw)) continue;
    Vote v = fn(job);
    if (v == Vote::kReject) return false;
    if (v == Vote::kPermit) permitted = true;
  }
  return true;
}
}  // namespace

bool Session::JobPipelined(const JobInfo& job) const {
  return TierVote(
      slots_, Switch::kJobPipelined,
      [](const Slot& s) -> const JobVoteFn& { return s.job_pipelined; }, job);
}

bool Session::JobEnqueueable(const JobInfo& job) const {
  return TierVote(
      slots_, Switch::kJobEnqueued,
      [](const Slot& s) -> const JobVoteFn& { return s.job_enqueueable; }, job);
}

void Session::JobEnqueued(const JobInfo& job) {
  for (const auto& s : slots_) {
    if (s->job_enqueued && s->On(Switch::kJobEnqueued)) s->job_enqueued(job);
  }
}

bool Session::JobStarving(const JobInfo& job) const {
  int tier = -1;
  bool found = false;
  for (const auto& s : slots_) {
    if (s->tier != tier) {
      if (found) return true;  // the tier that had functions said starving
      tier = s->tier;
    }
    if (!s->job_starving || !s->On(Switch::kJobStarving)) continue;
    found = true;
    if (!s->job_starving(job)) return false;
  }
  return found;
}

std::vector<const TaskInfo*> Session::VictimTasks(
    const std::vector<const TaskInfo*>& running) const {
  int tier = -1;
  std::vector<const TaskInfo*> out;
  for (const auto& s : slots_) {
    if (s->tier != tier) {
      if (!out.empty()) return out;
      tier = s->tier;
    }
    if (!s->victim_tasks || !s->On(Switch::kVictim)) continue;
    for (const TaskInfo* t : s->victim_tasks(running)) {
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  }
  return out;
}

// ---- the plugins' own hooks ----

void Session::CheckPluginInvariants(std::vector<std::string>* violations) const {
  for (const auto& s : slots_) s->plugin->CheckInvariants(*this, violations);
}

bool Session::PluginEnabled(const Plugin& plugin, Switch sw) const {
  for (const auto& s : slots_) {
    if (s->plugin.get() == &plugin) return s->On(sw);
  }
  return false;
}

bool Session::DecidesVictimsAlone(const Plugin& plugin, Switch sw) const {
  auto votes = [sw](const Slot& s) {
    return s.On(sw) && (sw == Switch::kReclaimable ? bool(s.reclaimable) : bool(s.preemptable));
  };
  auto in_tier = [&](int tier) {
    return std::any_of(slots_.begin(), slots_.end(), [&](const auto& o) {
      return o->tier == tier && o->plugin.get() == &plugin && o->On(sw);
    });
  };
  int found_tier = -1;
  for (const auto& s : slots_) {
    if (!votes(*s)) continue;
    if (s->plugin.get() == &plugin) {
      found_tier = s->tier;
      continue;
    }
    // Another voter: allowed only in the same tier, before `plugin`.
    if (found_tier >= 0 || !in_tier(s->tier)) return false;
  }
  return found_tier >= 0;
}

// ---- bookkeeping ----

void Session::NodeAdd(NodeInfo& node, const TaskInfo& task) {
  node_change_log_.push_back(node.id);
  Snapshot::AddToNodeTotals(node, task);
  node.tasks.push_back(task.id);
}

void Session::NodeRemove(NodeInfo& node, const TaskInfo& task) {
  node_change_log_.push_back(node.id);
  auto it = std::find(node.tasks.begin(), node.tasks.end(), task.id);
  BASALT_CHECK(it != node.tasks.end()) << "task " << task.key << " is not on node " << node.name;
  node.tasks.erase(it);
  const Resource& r = task.request;
  if (task.status == TaskStatus::kPipelined) {
    node.pipelined_ -= r;
  } else if (task.status == TaskStatus::kReleasing) {
    node.idle_ += r;
    node.used_ -= r;
    node.releasing_ -= r;
  } else {
    node.idle_ += r;
    node.used_ -= r;
  }
}

void Session::UpdateTaskStatus(TaskInfo& task, TaskStatus status) {
  if (task.status == status) return;
  touched_tasks_.push_back(task.id);
  const bool placed = task.node != kNone;
  if (placed) NodeRemove(snap_->nodes[task.node], task);
  if (task.job != kNone) {
    JobInfo& j = snap_->jobs[task.job];
    --j.status_count[static_cast<size_t>(task.status)];
    ++j.status_count[static_cast<size_t>(status)];
    if (IsAllocatedStatus(task.status)) j.allocated -= task.request;
    if (IsAllocatedStatus(status)) j.allocated += task.request;
  }
  task.status = status;
  if (placed) NodeAdd(snap_->nodes[task.node], task);
}

void Session::PlaceTask(TaskInfo& task, NodeInfo& node, TaskStatus status) {
  BASALT_CHECK(task.node == kNone) << "task " << task.key << " placed twice";
  touched_tasks_.push_back(task.id);
  UpdateTaskStatus(task, status);
  task.node = node.id;
  NodeAdd(node, task);
}

void Session::UnplaceTask(TaskInfo& task) {
  BASALT_CHECK(task.node != kNone) << "task " << task.key << " is not placed";
  touched_tasks_.push_back(task.id);
  NodeRemove(snap_->nodes[task.node], task);
  task.node = kNone;
  task.nominate_on_pipeline = false;
  UpdateTaskStatus(task, TaskStatus::kPending);
}

void Session::FireAllocate(const TaskInfo& task) {
  for (const auto& h : handlers_) {
    if (h.allocate) h.allocate(task);
  }
}

void Session::FireDeallocate(const TaskInfo& task) {
  for (const auto& h : handlers_) {
    if (h.deallocate) h.deallocate(task);
  }
}

void Session::DispatchJob(JobInfo& job) {
  for (TaskId id : job.tasks) {
    TaskInfo& t = snap_->tasks[id];
    if (t.status != TaskStatus::kAllocated) continue;
    // A task whose bind is refused stays Allocated; the others still go.
    // (Volcano dispatches a job's Allocated tasks in Go map order and stops at
    // the first refusal, so which of them go first is random there.)
    IssueBind(t);
  }
}

bool BindFits(const std::vector<NodeInfo>& nodes, const std::vector<TaskInfo>& tasks,
              const TaskInfo& task) {
  const NodeInfo& node = nodes[task.node];
  Resource seen = node.idle() + task.request;
  if (LessEqual(task.request, seen)) return true;  // adding more only helps
  for (TaskId id : node.tasks) {
    const TaskInfo& other = tasks[id];
    if (other.id != task.id && other.status == TaskStatus::kAllocated) seen += other.request;
  }
  return LessEqual(task.request, seen);
}

// A refused bind changes nothing: the task stays Allocated (callers check).
void Session::IssueBind(TaskInfo& task) {
  if (!BindFits(snap_->nodes, snap_->tasks, task)) {
    Log("session").debug("bind of {} to node {} refused: the node's idle does not hold it",
                         task.key, snap_->nodes[task.node].name);
    return;
  }
  UpdateTaskStatus(task, TaskStatus::kBinding);
  BindDecision bind{task.key, snap_->nodes[task.node].name, {}};
  for (const BindAnnotationsFn& fn : bind_annotation_fns_) fn(task, &bind.annotations);
  decisions_.binds.push_back(std::move(bind));
}

void Session::RecordEvent(std::string object, std::string type, std::string reason,
                          std::string message) {
  if (!options_.record_events) return;
  decisions_.events.push_back(
      {std::move(object), std::move(type), std::move(reason), std::move(message)});
}

void Session::Run(Action& action) {
  if (!options_.check_invariants) {
    action.Execute(*this);
    return;
  }
  invariants_.BeforeAction(*this, action.Name());
  action.Execute(*this);
  Status violation = invariants_.AfterAction(*this, action.Name());
  if (violation.ok()) return;
  BASALT_CHECK(options_.on_invariant_violation) << violation.ToString();
  options_.on_invariant_violation(violation);
}

// ---- close ----

void Session::ComputeClose(Decisions& d) {
  const int total_nodes = static_cast<int>(snap_->nodes.size());
  for (JobInfo& job : snap_->jobs) {
    // PodGroup phase (docs/semantics/podgroup-status.md).
    if (job.unschedulable && job.Count(TaskStatus::kRunning) > 0) {
      job.phase = PodGroupPhase::kUnknown;
    } else {
      int32_t scheduled = job.Count(TaskStatus::kRunning) + job.Count(TaskStatus::kBound) +
                          job.Count(TaskStatus::kFailed) + job.Count(TaskStatus::kSucceeded);
      int32_t completed = job.Count(TaskStatus::kFailed) + job.Count(TaskStatus::kSucceeded);
      if (scheduled >= job.min_member) {
        job.phase = scheduled == completed ? PodGroupPhase::kCompleted : PodGroupPhase::kRunning;
      } else if (job.phase != PodGroupPhase::kInqueue) {
        job.phase = PodGroupPhase::kPending;
      }
    }
    d.podgroup_phases.emplace_hint(d.podgroup_phases.end(), job.key,
                                   job.phase);  // jobs are in key order
    // "Why is it pending": the fit errors of each pending task, on the pod.
    if (job.fit_errors.empty() || !options_.record_events) continue;
    for (TaskId id : job.tasks) {
      const TaskInfo& t = snap_->tasks[id];
      if (t.status != TaskStatus::kPending) continue;
      auto fe = job.fit_errors.find(id);
      if (fe == job.fit_errors.end()) continue;
      d.events.push_back(
          {"Pod/" + t.key, "Warning", "FailedScheduling", fe->second.Message(total_nodes)});
    }
  }
  // Only this session pipelines (a snapshot has no Pipelined task), and every
  // status change is recorded in touched_tasks_: look at those, in task order.
  std::vector<TaskId> touched = touched_tasks_;
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (TaskId id : touched) {
    const TaskInfo& t = snap_->tasks[id];
    if (t.status == TaskStatus::kPipelined && t.node != kNone) {
      d.pipelined.push_back({t.key, snap_->nodes[t.node].name, t.nominate_on_pipeline});
    }
  }
  for (const QueueInfo& q : snap_->queues) d.queue_allocated[q.name] = Resource();
  for (const JobInfo& job : snap_->jobs)
    d.queue_allocated[snap_->queues[job.queue].name] += job.allocated;
}

// The snapshot leaves out a PodGroup whose queue does not exist, as Volcano
// ignores such a job; its pods still get a reason for waiting.
void Session::ReportGroupsWithoutQueue() {
  if (!options_.record_events || state_.podgroups().size() == snap_->jobs.size()) return;
  for (const auto& [key, pg] : state_.podgroups()) {
    const std::string& queue = pg.queue.empty() ? options_.default_queue : pg.queue;
    if (snap_->queue_index.count(queue)) continue;
    RecordEvent("PodGroup/" + key, "Warning", "Unschedulable",
                "queue " + queue + " does not exist");
  }
}

Decisions Session::Close() {
  ReportGroupsWithoutQueue();
  SessionStats* stats = ActiveSessionStats();
  for (auto& s : slots_) {
    const auto start = std::chrono::steady_clock::now();
    s->plugin->OnSessionClose(*this);
    if (stats) stats->plugin_close.push_back({std::string(s->plugin->Name()), SecondsSince(start)});
  }
  Decisions d = std::move(decisions_);
  ComputeClose(d);
  return d;
}

}  // namespace basalt
