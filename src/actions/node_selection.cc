#include "actions/node_selection.h"

#include <limits>

#include "api/check.h"
#include "api/saturating.h"

namespace basalt {

std::vector<std::string> InsufficientResourceReasons(const Resource& request,
                                                     const Resource& available) {
  std::vector<std::string> out;
  if (request.milli_cpu() > available.milli_cpu()) out.push_back("Insufficient cpu");
  if (request.memory() > available.memory()) out.push_back("Insufficient memory");
  for (const auto& [id, v] : request.scalars()) {
    if (v > available.Get(id)) out.push_back("Insufficient " + ResourceNames::Name(id));
  }
  return out;
}

std::vector<NodeInfo*> FeasibleNodes(Session& ssn, const TaskInfo& task, FitMode mode,
                                     FitErrors* errors) {
  std::vector<NodeInfo*> out;
  for (NodeInfo& node : ssn.nodes()) {
    if (mode == FitMode::kAllocate) {
      Resource future = node.FutureIdle();
      if (!LessEqual(task.request, future)) {
        if (errors) errors->Add(node.name, InsufficientResourceReasons(task.request, future));
        continue;
      }
    }
    PredicateStatus st = ssn.Predicate(task, node);
    if (!st.ok()) {
      if (errors) errors->Add(node.name, st.reasons);
      continue;
    }
    out.push_back(&node);
  }
  return out;
}

namespace {}  // namespace

bool FitsFutureIdle(const Resource& request, const NodeInfo& node) {
  // LessEqual(request, idle + releasing - pipelined), dimension by dimension:
  // cpu, memory and the request's own scalars, as in LessEqual.
  const Resource& idle = node.idle();
  const Resource& rel = node.releasing();
  const Resource& pip = node.pipelined();
  auto future = [](int64_t i, int64_t r, int64_t p) { return SatSub(SatAdd(i, r), p); };
  if (request.milli_cpu() > future(idle.milli_cpu(), rel.milli_cpu(), pip.milli_cpu()))
    return false;
  if (request.memory() > future(idle.memory(), rel.memory(), pip.memory())) return false;
  for (const auto& [id, v] : request.scalars()) {
    if (v > future(idle.Get(id), rel.Get(id), pip.Get(id))) return false;
  }
  return true;
}

NodeInfo* ReferenceAllocateNode(Session& ssn, const TaskInfo& task, FitErrors* errors) {
  std::vector<NodeInfo*> feasible = FeasibleNodes(ssn, task, FitMode::kAllocate, errors);
  if (feasible.empty()) return nullptr;
  std::vector<NodeInfo*> idle_fit;
  for (NodeInfo* n : feasible) {
    if (LessEqual(task.request, n->idle())) idle_fit.push_back(n);
  }
  return BestNode(ssn, task, idle_fit.empty() ? feasible : idle_fit);
}

// ---- AllocateNodeIndex ----

namespace {

// A node's place in a class's max-tree: higher tier, then higher score, then
// lower id wins.
struct Key {
  uint8_t tier = 0;
  double score = 0;
  NodeId id = std::numeric_limits<NodeId>::max();
};

bool Better(const Key& a, const Key& b) {
  if (a.tier != b.tier) return a.tier > b.tier;
  if (a.score != b.score) return a.score > b.score;
  return a.id < b.id;
}

}  // namespace

struct AllocateNodeIndex::Entry {
  size_t seen = 0;                                // position in the session's node change log
  bool cached = false;                            // scores cached per node (batch scores uniform)
  std::vector<double> batch;                      // the uniform batch scores
  std::vector<std::vector<std::string>> reasons;  // per node, when tier 0
  std::map<std::string, int64_t> counts;          // histogram of `reasons`
  std::shared_ptr<const std::map<std::string, int64_t>>
      shared;  // copy of `counts`, reset on change
  size_t leaves = 1;
  std::vector<Key> tree;  // 1-based heap layout; leaves at [leaves, 2 * leaves)

  void Set(NodeId id, const Key& k) {
    size_t i = leaves + static_cast<size_t>(id);
    tree[i] = k;
    for (i /= 2; i >= 1; i /= 2) {
      const Key& l = tree[2 * i];
      const Key& r = tree[2 * i + 1];
      tree[i] = Better(r, l) ? r : l;
    }
  }
  void SetReasons(NodeId id, std::vector<std::string> rs) {
    std::vector<std::string>& cur = reasons[id];
    if (cur.empty() && rs.empty()) return;
    if (cur == rs) return;
    for (const std::string& r : cur) {
      auto it = counts.find(r);
      if (--it->second == 0) counts.erase(it);
    }
    for (const std::string& r : rs) ++counts[r];
    cur = std::move(rs);
    shared.reset();
  }
};

AllocateNodeIndex::AllocateNodeIndex() = default;
AllocateNodeIndex::~AllocateNodeIndex() = default;

AllocateNodeIndex::Entry& AllocateNodeIndex::Get(Session& ssn, const TaskInfo& task) {
  const size_t n = ssn.nodes().size();
  // Reasons only make messages (events); a session recording none skips them.
  const bool want_reasons = ssn.options().record_events;
  auto [it, fresh] = entries_.try_emplace(task.equivalence_class);
  if (fresh) {
    auto e = std::make_unique<Entry>();
    e->cached = ssn.UniformBatchScores(task, &e->batch);
    if (want_reasons) e->reasons.resize(n);
    while (e->leaves < n) e->leaves *= 2;
    e->tree.assign(2 * e->leaves, Key());
    it->second = std::move(e);
  }
  Entry& e = *it->second;
  auto check = [&](NodeInfo& node) {
    Key k;
    k.id = node.id;
    if (!FitsFutureIdle(task.request, node)) {
      if (want_reasons)
        e.SetReasons(node.id, InsufficientResourceReasons(task.request, node.FutureIdle()));
    } else if (PredicateStatus st = ssn.Predicate(task, node); !st.ok()) {
      if (want_reasons) e.SetReasons(node.id, std::move(st.reasons));
    } else {
      if (want_reasons) e.SetReasons(node.id, {});
      k.tier = LessEqual(task.request, node.idle()) ? 2 : 1;
      if (e.cached) k.score = ssn.NodeScoreWith(task, node, e.batch);
    }
    e.Set(node.id, k);
  };
  const auto& log = ssn.node_change_log();
  if (fresh) {
    for (NodeInfo& node : ssn.nodes()) check(node);
  } else if (e.seen < log.size()) {
    if (stamp_.size() < n) stamp_.resize(n, 0);
    if (++epoch_ == 0) {  // wrapped: start the stamps afresh
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
    for (size_t i = e.seen; i < log.size(); ++i) {
      NodeId id = log[i];
      if (stamp_[id] == epoch_) continue;
      stamp_[id] = epoch_;
      check(ssn.node(id));
    }
  }
  e.seen = log.size();
  return e;
}

NodeInfo* AllocateNodeIndex::Best(Session& ssn, const TaskInfo& task, FitErrors* errors) {
  Entry& e = Get(ssn, task);
  const Key& top = e.tree[1];
  if (top.tier == 0) {
    if (errors && !ssn.nodes().empty()) {
      if (!e.shared) e.shared = std::make_shared<const std::map<std::string, int64_t>>(e.counts);
      errors->reason_counts = e.shared;
    }
    return nullptr;
  }
  if (e.cached) return &ssn.node(top.id);
  // Scores depend on the candidate set: score the nodes of the best tier.
  std::vector<NodeInfo*> candidates;
  for (size_t i = 0; i < ssn.nodes().size(); ++i) {
    if (e.tree[e.leaves + i].tier == top.tier)
      candidates.push_back(&ssn.node(static_cast<NodeId>(i)));
  }
  return BestNode(ssn, task, candidates);
}

// ---- EvictionNodeIndex ----

struct EvictionNodeIndex::Entry {
  size_t seen = 0;
  bool cached = false;
  std::vector<double> batch;
  std::vector<double> score;  // per node, valid when in `order`
  std::vector<uint8_t> in;    // per node: in `order`
  Order order;
};

EvictionNodeIndex::EvictionNodeIndex() = default;
EvictionNodeIndex::~EvictionNodeIndex() = default;

const EvictionNodeIndex::Order* EvictionNodeIndex::Nodes(Session& ssn, const TaskInfo& task) {
  if (task.equivalence_class == kNone) return nullptr;
  const size_t n = ssn.nodes().size();
  auto [it, fresh] = entries_.try_emplace(task.equivalence_class);
  if (fresh) {
    auto e = std::make_unique<Entry>();
    e->cached = ssn.UniformBatchScores(task, &e->batch);
    e->score.assign(n, 0);
    e->in.assign(n, 0);
    it->second = std::move(e);
  }
  Entry& e = *it->second;
  if (!e.cached) return nullptr;
  auto check = [&](NodeInfo& node) {
    if (e.in[node.id]) e.order.erase({e.score[node.id], node.id});
    PredicateStatus st = ssn.Predicate(task, node);
    e.in[node.id] = st.ok() || st.code == PredicateStatus::Code::kUnschedulable;
    if (!e.in[node.id]) return;
    e.score[node.id] = ssn.NodeScoreWith(task, node, e.batch);
    e.order.insert({e.score[node.id], node.id});
  };
  const auto& log = ssn.node_change_log();
  if (fresh) {
    for (NodeInfo& node : ssn.nodes()) check(node);
  } else if (e.seen < log.size()) {
    if (stamp_.size() < n) stamp_.resize(n, 0);
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
    for (size_t i = e.seen; i < log.size(); ++i) {
      NodeId id = log[i];
      if (stamp_[id] == epoch_) continue;
      stamp_[id] = epoch_;
      check(ssn.node(id));
    }
  }
  e.seen = log.size();
  return &e.order;
}

// ---- EvictionWatch ----

EvictionWatch::EvictionWatch(std::vector<TaskStatus> statuses) {
  for (TaskStatus s : statuses) mask_ |= 1u << static_cast<uint32_t>(s);
}

void EvictionWatch::Count(const Session& ssn, const NodeInfo& node) {
  int32_t n = 0;
  for (TaskId id : node.tasks) {
    if (mask_ & (1u << static_cast<uint32_t>(ssn.task(id).status))) ++n;
  }
  holding_[node.id] = n;
}

void EvictionWatch::Refresh(const Session& ssn) {
  const auto& log = ssn.node_change_log();
  if (!started_) {
    started_ = true;
    holding_.assign(ssn.nodes().size(), 0);
    node_changed_.assign(ssn.nodes().size(), 0);
    job_changed_.assign(ssn.jobs().size(), 0);
    for (const NodeInfo& node : ssn.nodes()) Count(ssn, node);
    seen_ = log.size();  // the counts above include every entry so far
    return;
  }
  for (; seen_ < log.size(); ++seen_) {
    const NodeInfo& node = ssn.node(log[seen_]);
    const size_t stamp = seen_ + 1;
    node_changed_[node.id] = stamp;
    // The task that changed is still on the node unless it was taken off
    // (an unpipeline); callers that let tasks leave nodes must not rely on
    // JobChanged across that.
    for (TaskId id : node.tasks) {
      JobId j = ssn.task(id).job;
      if (j == kNone || job_changed_[j] == stamp) continue;
      job_changed_[j] = stamp;
      job_stamps_.push_back(j);
    }
    Count(ssn, node);
  }
}

NodeInfo* BestNode(Session& ssn, const TaskInfo& task, const std::vector<NodeInfo*>& candidates) {
  BASALT_CHECK(!candidates.empty());
  if (candidates.size() == 1) return candidates[0];
  std::vector<const NodeInfo*> view(candidates.begin(), candidates.end());
  std::vector<double> scores = ssn.NodeScores(task, view);
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (scores[i] > scores[best]) best = i;  // strict: ties keep the earlier node
  }
  return candidates[best];
}

std::vector<NodeInfo*> NodesForEviction(Session& ssn, const TaskInfo& task) {
  std::vector<NodeInfo*> out;
  for (NodeInfo& node : ssn.nodes()) {
    PredicateStatus st = ssn.Predicate(task, node);
    if (st.ok() || st.code == PredicateStatus::Code::kUnschedulable) out.push_back(&node);
  }
  return out;
}

void SortVictims(const Session& ssn, const QueueInfo& preemptor_queue,
                 std::vector<const TaskInfo*>& victims) {
  std::stable_sort(victims.begin(), victims.end(), [&](const TaskInfo* a, const TaskInfo* b) {
    return ssn.VictimOrderLess(*a, *b, preemptor_queue);
  });
}

Resource SumRequests(const std::vector<const TaskInfo*>& tasks) {
  Resource sum;
  for (const TaskInfo* t : tasks) sum += t->request;
  return sum;
}

}  // namespace basalt
