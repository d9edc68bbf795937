// Statement: the one way to change session state (framework/session.h keeps
// the primitives private).
//
// A transaction (the default): Evict / Pipeline / Allocate apply at once to
// the session (so later decisions in the same action see them); Commit turns
// them into decisions (binds, evictions); Discard undoes them in reverse
// order. A statement that is neither committed nor discarded keeps its effects
// in the session without issuing anything (allocate does this for
// pipelined-but-not-ready gangs).
//
// Committing at once (`CommitAtOnce`), for the action that never rolls back
// (backfill): an eviction is a decision as it is made, and an allocation binds
// every Allocated task of its job as soon as the job is ready.
#pragma once

#include <string>
#include <vector>

#include "framework/session.h"

namespace basalt {

class Statement {
 public:
  enum class Mode { kTransaction, kCommitAtOnce };

  explicit Statement(Session& ssn, Mode mode = Mode::kTransaction) : ssn_(ssn), mode_(mode) {}
  static Statement CommitAtOnce(Session& ssn) { return Statement(ssn, Mode::kCommitAtOnce); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Evict(TaskInfo& task, const std::string& action, const std::string& reason);
  // `nominate`: the preemptor gets nominatedNodeName (preempt with an eviction).
  void Pipeline(TaskInfo& task, NodeInfo& node, bool nominate = false);
  void Allocate(TaskInfo& task, NodeInfo& node);
  // Takes a Pipelined task off its node, back to Pending (backfill retries a
  // pipelined BestEffort task). Only when committing at once.
  void Unpipeline(TaskInfo& task);
  void Commit();
  void Discard();
  // The operations so far, and the undoing of those after a mark: allocate
  // keeps the SubGroups of a job that were placed whole and drops the others.
  size_t Mark() const { return ops_.size(); }
  void DiscardSince(size_t mark);
  bool empty() const { return ops_.empty(); }

 private:
  enum class Kind { kEvict, kPipeline, kAllocate };
  struct Op {
    Kind kind;
    TaskId task;
    TaskStatus prev_status;
    std::string action, reason;
  };
  bool at_once() const { return mode_ == Mode::kCommitAtOnce; }

  Session& ssn_;
  Mode mode_;
  std::vector<Op> ops_;
};

}  // namespace basalt
