// Node selection shared by the actions: which nodes a task fits (with the fit
// errors of the others) and which of them is best.
//
// Cost: `FeasibleNodes` is O(nodes) predicate calls per task; allocate's
// `AllocateNodeIndex` shares predicate answers and scores per equivalence class.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/session.h"

namespace basalt {

// Names of the dimensions of `request` that exceed `available` ("Insufficient cpu", ...).
std::vector<std::string> InsufficientResourceReasons(const Resource& request,
                                                     const Resource& available);

enum class FitMode {
  kAllocate,  // resource fit against FutureIdle, then every predicate must pass
  kBackfill,  // no resource check (BestEffort), predicates must pass
};

// Nodes (in snapshot order) where `task` fits; reasons for the others go to `errors`.
std::vector<NodeInfo*> FeasibleNodes(Session& ssn, const TaskInfo& task, FitMode mode,
                                     FitErrors* errors);

// Allocate's node choice, as the reference path makes it (`ReferenceAllocateNode`):
// the nodes where the task fits FutureIdle and passes every predicate are
// feasible; among them the ones where it fits Idle go first; the highest summed
// node-order score wins; ties go to the earliest node in snapshot (name) order.
//
// `AllocateNodeIndex` makes the same choice without visiting every node per
// task. Per equivalence class of tasks (identical scheduling inputs) it keeps,
// for every node, the tier (2: fits Idle, 1: fits only FutureIdle, 0: not
// feasible, with its reasons) and the score, and a max-tree over
// (tier, score, -node id). A query re-checks only the nodes whose bookkeeping
// changed since the class last looked (Session::node_change_log), so a gang of
// N identical pods costs one pass over the nodes plus O(log nodes) per
// placement. This relies on predicates and node-order scores depending only on
// (class, node state); batch node-order functions must be subset-uniform and
// uniform over all nodes for the class (see Session::UniformBatchScores),
// otherwise the class falls back to scoring the nodes of the best tier per task
// (predicates still cached). Fit reasons are kept as a histogram, which is all
// FitErrors::Message needs.
class AllocateNodeIndex {
 public:
  AllocateNodeIndex();
  ~AllocateNodeIndex();
  // The chosen node, or nullptr when no node is feasible (reasons into `errors`).
  NodeInfo* Best(Session& ssn, const TaskInfo& task, FitErrors* errors);

 private:
  struct Entry;
  Entry& Get(Session& ssn, const TaskInfo& task);
  std::map<int32_t, std::unique_ptr<Entry>> entries_;
  std::vector<uint32_t> stamp_;  // per node: dedupes the change log
  uint32_t epoch_ = 0;
};

// Preempt's node order for one task, as the reference path builds it per task
// (NodesForEviction, then a stable sort by summed score, best first): per
// equivalence class, the nodes whose predicates do not rule out evictions,
// ordered by (score descending, node id), kept up to date through the node
// change log. Classes whose batch scores are not uniform (see
// AllocateNodeIndex) get `nullptr` and use the reference path.
class EvictionNodeIndex {
 public:
  struct Less {
    bool operator()(const std::pair<double, NodeId>& a, const std::pair<double, NodeId>& b) const {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    }
  };
  using Order = std::set<std::pair<double, NodeId>, Less>;
  EvictionNodeIndex();
  ~EvictionNodeIndex();
  // Valid until the next call; iterate it without calling again.
  const Order* Nodes(Session& ssn, const TaskInfo& task);

 private:
  struct Entry;
  std::map<int32_t, std::unique_ptr<Entry>> entries_;
  std::vector<uint32_t> stamp_;
  uint32_t epoch_ = 0;
};

// What preempt and reclaim need to pass over nodes without looking at their
// tasks, kept up to date from Session::node_change_log: per node, how many of
// its tasks have one of the `statuses` given (the ones victims are drawn
// from), and the log position of the node's last change and of the last
// change to each job with a task on a changed node. Positions count entries
// of the log, so "changed after position p" is `changed > p`.
class EvictionWatch {
 public:
  explicit EvictionWatch(std::vector<TaskStatus> statuses);
  // Reads the log entries added since the previous call.
  void Refresh(const Session& ssn);
  int32_t Holding(NodeId node) const { return holding_[node]; }
  size_t NodeChanged(NodeId node) const { return node_changed_[node]; }
  size_t JobChanged(JobId job) const { return job == kNone ? 0 : job_changed_[job]; }
  // Every job stamped so far, in stamping order (with repeats): readers keep
  // their own position in it to visit only the jobs changed since.
  const std::vector<JobId>& job_stamps() const { return job_stamps_; }

 private:
  void Count(const Session& ssn, const NodeInfo& node);
  uint32_t mask_ = 0;  // bit per TaskStatus
  size_t seen_ = 0;    // log entries read
  bool started_ = false;
  std::vector<int32_t> holding_;
  std::vector<size_t> node_changed_;  // 1 + log index of the node's last entry; 0: none
  std::vector<size_t> job_changed_;   // likewise for jobs
  std::vector<JobId> job_stamps_;
};

// The reference path of allocate's node choice (SessionOptions::reference_node_selection).
NodeInfo* ReferenceAllocateNode(Session& ssn, const TaskInfo& task, FitErrors* errors);

// True when `request` fits the node's FutureIdle (Idle + Releasing - Pipelined),
// as LessEqual(request, node.FutureIdle()) without building the sum.
bool FitsFutureIdle(const Resource& request, const NodeInfo& node);

// The best node among `candidates` by summed node-order scores; ties go to the
// earliest node in snapshot (name) order. `candidates` must not be empty.
NodeInfo* BestNode(Session& ssn, const TaskInfo& task, const std::vector<NodeInfo*>& candidates);

// Nodes (in snapshot order) that pass the predicates as preempt and reclaim read
// them: a plain Unschedulable answer is ignored (evictions may fix it); only
// Unresolvable or Error rejects the node. No resource check.
std::vector<NodeInfo*> NodesForEviction(Session& ssn, const TaskInfo& task);

// Sorts victims in the order they are evicted (Session::VictimOrderLess,
// docs/semantics/ordering.md): tasks of one job in reverse task order; jobs
// of different queues by the victim-queue order relative to
// `preemptor_queue`; jobs of one queue in reverse job order as the job order
// plugins see it, else their pods in reverse task order.
void SortVictims(const Session& ssn, const QueueInfo& preemptor_queue,
                 std::vector<const TaskInfo*>& victims);

// Sum of the victims' requests.
Resource SumRequests(const std::vector<const TaskInfo*>& tasks);

}  // namespace basalt
