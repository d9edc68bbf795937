#include "actions/node_selection.h"

#include "api/check.h"

namespace basalt {

std::vector<std::string> InsufficientResourceReasons(const Resource& request, const Resource& available) {
  std::vector<std::string> out;
  if (request.milli_cpu() > available.milli_cpu()) out.push_back("Insufficient cpu");
  if (request.memory() > available.memory()) out.push_back("Insufficient memory");
  for (const auto& [id, v] : request.scalars()) {
    if (v > available.Get(id)) out.push_back("Insufficient " + ResourceNames::Name(id));
  }
  return out;
}

std::vector<NodeInfo*> FeasibleNodes(Session& ssn, const TaskInfo& task, FitMode mode, FitErrors* errors) {
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

void FeasibilityCache::Check(Session& ssn, const TaskInfo& task, NodeInfo& node, Entry& e) {
  e.reasons.erase(node.id);
  Resource future = node.FutureIdle();
  if (!LessEqual(task.request, future)) {
    e.ok[node.id] = 0;
    e.reasons[node.id] = InsufficientResourceReasons(task.request, future);
    return;
  }
  PredicateStatus st = ssn.Predicate(task, node);
  e.ok[node.id] = st.ok() ? 1 : 0;
  if (!st.ok()) e.reasons[node.id] = st.reasons;
}

std::vector<NodeInfo*> FeasibilityCache::Feasible(Session& ssn, const TaskInfo& task, FitErrors* errors) {
  const auto& log = ssn.node_change_log();
  auto [it, fresh] = entries_.try_emplace(task.equivalence_class);
  Entry& e = it->second;
  if (fresh) {
    e.ok.assign(ssn.nodes().size(), 0);
    for (NodeInfo& node : ssn.nodes()) Check(ssn, task, node, e);
  } else {
    std::vector<uint8_t> redo(ssn.nodes().size(), 0);
    for (size_t i = e.seen; i < log.size(); ++i) redo[log[i]] = 1;
    for (NodeInfo& node : ssn.nodes()) {
      if (redo[node.id]) Check(ssn, task, node, e);
    }
  }
  e.seen = log.size();
  std::vector<NodeInfo*> out;
  for (NodeInfo& node : ssn.nodes()) {
    if (e.ok[node.id]) out.push_back(&node);
  }
  // The reasons are only worth copying when the task fits nowhere.
  if (errors && out.empty()) {
    for (const auto& [id, reasons] : e.reasons) errors->Add(ssn.node(id).name, reasons);
  }
  return out;
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

void SortVictims(const Session& ssn, const QueueInfo& preemptor_queue, std::vector<const TaskInfo*>& victims) {
  std::stable_sort(victims.begin(), victims.end(), [&](const TaskInfo* a, const TaskInfo* b) {
    if (a->job == b->job) return ssn.TaskOrderLess(*b, *a);
    if (a->job == kNone || b->job == kNone) return a->job == kNone && b->job != kNone;
    const JobInfo& ja = ssn.job(a->job);
    const JobInfo& jb = ssn.job(b->job);
    if (ja.queue != jb.queue) {
      return ssn.VictimQueueOrderLess(ssn.queue(ja.queue), ssn.queue(jb.queue), preemptor_queue);
    }
    return ssn.JobOrderLess(jb, ja);
  });
}

Resource SumRequests(const std::vector<const TaskInfo*>& tasks) {
  Resource sum;
  for (const TaskInfo* t : tasks) sum += t->request;
  return sum;
}

}  // namespace basalt
