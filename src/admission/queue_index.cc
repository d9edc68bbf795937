#include "admission/queue_index.h"

#include <algorithm>
#include <set>

namespace basalt {

QueueIndex::QueueIndex(const std::vector<Queue>& queues) {
  for (const Queue& q : queues) by_name_.emplace(q.meta.name, &q);
  // by_name_ is ordered, so every child list comes out sorted by name.
  for (const auto& [name, q] : by_name_) {
    if (!q->parent.empty()) children_[q->parent].push_back(q);
    if (name != "root" && (q->parent.empty() || q->parent == "root")) root_children_.push_back(q);
  }
  FindCycles();
  for (const auto& [name, q] : by_name_) ComputeCapability(name);
}

std::string QueueIndex::TreeParent(const Queue& q) {
  if (q.meta.name == "root") return "";
  return q.parent.empty() ? "root" : q.parent;
}

const Queue* QueueIndex::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

bool QueueIndex::Exists(const std::string& name) const {
  return Find(name) != nullptr || name == "default" || name == "root";
}

const std::string& QueueIndex::State(const std::string& name) const {
  static const std::string kOpen = "Open";
  const Queue* q = Find(name);
  return q == nullptr ? kOpen : q->state;
}

const std::vector<const Queue*>& QueueIndex::Children(const std::string& name) const {
  static const std::vector<const Queue*> kNone;
  auto it = children_.find(name);
  return it == children_.end() ? kNone : it->second;
}

const std::vector<const Queue*>& QueueIndex::TreeChildren(const std::string& name) const {
  return name == "root" ? root_children_ : Children(name);
}

const std::vector<std::string>* QueueIndex::Cycle(const std::string& name) const {
  auto it = cycles_.find(name);
  return it == cycles_.end() ? nullptr : &it->second;
}

const QueueIndex::Bounds& QueueIndex::EffectiveCapability(const std::string& name) const {
  static const Bounds kUnlimited;
  auto it = capability_.find(name);
  return it == capability_.end() ? kUnlimited : it->second;
}

// Walks each chain of parents once (three colours), so the whole pass is linear
// in the number of queues even for long chains; no recursion, so no depth limit.
void QueueIndex::FindCycles() {
  enum Colour { kWhite, kOnPath, kDone };
  std::map<std::string, Colour> colour;
  for (const auto& [start, unused] : by_name_) {
    if (colour[start] != kWhite) continue;
    std::vector<std::string> path;
    std::string cur = start;
    while (true) {
      auto it = by_name_.find(cur);
      if (it == by_name_.end()) break;  // missing parent or implicit queue: the chain ends
      Colour& c = colour[cur];
      if (c == kDone) break;
      if (c == kOnPath) {
        std::vector<std::string> ring(std::find(path.begin(), path.end(), cur), path.end());
        for (size_t i = 0; i < ring.size(); ++i) {
          std::vector<std::string> cycle;
          for (size_t k = 0; k <= ring.size(); ++k) cycle.push_back(ring[(i + k) % ring.size()]);
          cycles_[ring[i]] = std::move(cycle);
        }
        break;
      }
      c = kOnPath;
      path.push_back(cur);
      cur = TreeParent(*it->second);
      if (cur.empty()) break;
    }
    for (const std::string& n : path) colour[n] = kDone;
  }
}

// Iterative as well: collect the chain up to an already computed ancestor (or
// the top, or a cycle), then fold the capabilities down from there.
void QueueIndex::ComputeCapability(const std::string& name) {
  if (capability_.count(name)) return;
  std::vector<const Queue*> chain;
  std::set<std::string> seen;
  Bounds base;
  std::string cur = name;
  while (!cur.empty()) {
    auto done = capability_.find(cur);
    if (done != capability_.end()) {
      base = done->second;
      break;
    }
    auto it = by_name_.find(cur);
    if (it == by_name_.end() || !seen.insert(cur).second) break;
    chain.push_back(it->second);
    cur = TreeParent(*it->second);
  }
  for (auto q = chain.rbegin(); q != chain.rend(); ++q) {
    Bounds b = base;
    if ((*q)->capability.has_value()) {
      const Resource& cap = *(*q)->capability;
      const std::string& from = (*q)->meta.name;
      // As the capacity plugin: cpu/memory at 0 and absent scalars are inherited.
      if (cap.milli_cpu() > 0) b[ResourceNames::kCpu] = {cap.milli_cpu(), from};
      if (cap.memory() > 0) b[ResourceNames::kMemory] = {cap.memory(), from};
      for (const auto& [id, v] : cap.scalars()) b[id] = {v, from};
    }
    capability_[(*q)->meta.name] = b;
    base = std::move(b);
  }
}

}  // namespace basalt
