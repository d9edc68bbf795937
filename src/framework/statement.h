// Statement: a transaction over session state. Evict / Pipeline / Allocate apply
// at once to the session (so later decisions in the same action see them);
// Commit turns them into decisions (binds, evictions); Discard undoes them in
// reverse order. A statement that is neither committed nor discarded keeps its
// effects in the session without issuing anything (allocate does this for
// pipelined-but-not-ready gangs).
#pragma once

#include <string>
#include <vector>

#include "framework/session.h"

namespace basalt {

class Statement {
 public:
  explicit Statement(Session& ssn) : ssn_(ssn) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Evict(TaskInfo& task, const std::string& action, const std::string& reason);
  // `nominate`: the preemptor gets nominatedNodeName (preempt with an eviction).
  void Pipeline(TaskInfo& task, NodeInfo& node, bool nominate = false);
  void Allocate(TaskInfo& task, NodeInfo& node);
  void Commit();
  void Discard();
  bool empty() const { return ops_.empty(); }

 private:
  enum class Kind { kEvict, kPipeline, kAllocate };
  struct Op {
    Kind kind;
    TaskId task;
    TaskStatus prev_status;
    std::string action, reason;
  };
  Session& ssn_;
  std::vector<Op> ops_;
};

}  // namespace basalt
