// QueueIndex: the queue tree as admission sees it, built once from the Queues
// of an input so that every check is a lookup (no per-job scan of all queues).
//
// Volcano's implicit queues are modelled here: `default` and `root` exist (Open,
// without limits) unless given. A queue's tree parent is `spec.parent`, or
// `root` when that is empty; `root` itself has none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/objects.h"

namespace basalt {

class QueueIndex {
 public:
  // One bounded dimension of an effective capability, and the queue whose
  // `spec.capability` sets it (the queue itself or the ancestor it inherits from).
  struct Bound {
    int64_t value = 0;
    std::string from;
  };
  // Absent dimension = unlimited.
  using Bounds = std::map<ResourceId, Bound>;

  // `queues` must outlive the index. When a name is given twice, the first
  // definition is the one the index uses (admission reports the second).
  explicit QueueIndex(const std::vector<Queue>& queues);

  // The first Queue with this name, or nullptr (also for implicit queues).
  const Queue* Find(const std::string& name) const;
  // Given, or one of the implicit `default` and `root`.
  bool Exists(const std::string& name) const;
  // `status.state` of the queue; "Open" for an implicit queue.
  const std::string& State(const std::string& name) const;

  // Queues whose `spec.parent` is literally `name`, by name (Volcano's
  // "has child queues" test for jobs).
  const std::vector<const Queue*>& Children(const std::string& name) const;
  // Children in the tree: as `Children`, except that `root` also has every queue
  // with an empty `spec.parent`.
  const std::vector<const Queue*>& TreeChildren(const std::string& name) const;

  // When the queue's chain of parents comes back to it: the chain, starting and
  // ending with `name` ("a", "b", "a" when a's parent is b and b's is a).
  // nullptr when the queue is not on a cycle.
  const std::vector<std::string>* Cycle(const std::string& name) const;

  // The capability that bounds the queue in the capacity plugin's hierarchy:
  // its own cpu/memory (when > 0) and scalars, and the rest inherited from its
  // ancestors. Empty for unknown queues and for an implicit `root`.
  const Bounds& EffectiveCapability(const std::string& name) const;

 private:
  static std::string TreeParent(const Queue& q);
  void FindCycles();
  void ComputeCapability(const std::string& name);

  std::map<std::string, const Queue*> by_name_;
  std::map<std::string, std::vector<const Queue*>> children_;
  std::vector<const Queue*> root_children_;
  std::map<std::string, std::vector<std::string>> cycles_;
  std::map<std::string, Bounds> capability_;
};

}  // namespace basalt
