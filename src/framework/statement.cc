#include "framework/statement.h"

#include "api/check.h"

namespace basalt {

void Statement::Evict(TaskInfo& task, const std::string& action, const std::string& reason) {
  if (!at_once()) ops_.push_back({Kind::kEvict, task.id, task.status, action, reason});
  ssn_.UpdateTaskStatus(task, TaskStatus::kReleasing);
  ssn_.FireDeallocate(task);
  if (at_once()) ssn_.decisions_.evictions.push_back({task.key, action, reason});
}

void Statement::Pipeline(TaskInfo& task, NodeInfo& node, bool nominate) {
  if (!at_once()) ops_.push_back({Kind::kPipeline, task.id, task.status, "", ""});
  ssn_.PlaceTask(task, node, TaskStatus::kPipelined);
  task.nominate_on_pipeline = nominate;
  ssn_.FireAllocate(task);
}

void Statement::Allocate(TaskInfo& task, NodeInfo& node) {
  if (!at_once()) ops_.push_back({Kind::kAllocate, task.id, task.status, "", ""});
  ssn_.PlaceTask(task, node, TaskStatus::kAllocated);
  ssn_.FireAllocate(task);
  if (!at_once() || task.job == kNone) return;
  JobInfo& job = ssn_.job(task.job);
  if (ssn_.JobReady(job)) ssn_.DispatchJob(job);
}

void Statement::Unpipeline(TaskInfo& task) {
  BASALT_CHECK(at_once()) << "unpipelining " << task.key << " cannot be rolled back";
  ssn_.FireDeallocate(task);
  ssn_.UnplaceTask(task);
}

void Statement::Commit() {
  for (const Op& op : ops_) {
    TaskInfo& t = ssn_.task(op.task);
    switch (op.kind) {
      case Kind::kEvict:
        ssn_.decisions_.evictions.push_back({t.key, op.action, op.reason});
        break;
      case Kind::kPipeline:
        break;  // pipelining never leaves the session
      case Kind::kAllocate:
        if (t.status != TaskStatus::kAllocated) break;
        ssn_.IssueBind(t);
        // A bind the node refuses (still Allocated) returns the task to
        // Pending, as a discard would (Volcano's Statement.Commit unallocates).
        if (t.status == TaskStatus::kAllocated) {
          ssn_.FireDeallocate(t);
          ssn_.UnplaceTask(t);
        }
        break;
    }
  }
  ops_.clear();
}

void Statement::Discard() { DiscardSince(0); }

void Statement::DiscardSince(size_t mark) {
  BASALT_CHECK(!at_once()) << "a statement that commits at once cannot be discarded";
  BASALT_CHECK(mark <= ops_.size()) << "discard mark beyond the statement";
  for (auto it = ops_.rbegin(); it != ops_.rend() - static_cast<std::ptrdiff_t>(mark); ++it) {
    TaskInfo& t = ssn_.task(it->task);
    switch (it->kind) {
      case Kind::kEvict:
        ssn_.UpdateTaskStatus(t, it->prev_status);
        ssn_.FireAllocate(t);
        break;
      case Kind::kPipeline:
      case Kind::kAllocate:
        ssn_.FireDeallocate(t);
        ssn_.UnplaceTask(t);
        BASALT_DCHECK(it->prev_status == TaskStatus::kPending) << t.key;
        break;
    }
  }
  ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(mark), ops_.end());
}

}  // namespace basalt
