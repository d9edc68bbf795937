// Priority lists for the actions' queue/job/task loops.
//
// Volcano keeps heaps whose order is fixed when an element is pushed. basalt
// picks the best element when it is popped, which is the same choice whenever
// an element's key only changes while it is out of the list (a job's share
// changes when it allocates, i.e. after it was popped), and is total thanks to
// the session's fallback keys.
#pragma once

#include <algorithm>
#include <vector>

namespace basalt {

template <typename T, typename Less>
class PickList {
 public:
  explicit PickList(Less less) : less_(std::move(less)) {}
  void Push(T v) { items_.push_back(std::move(v)); }
  bool Empty() const { return items_.empty(); }
  size_t Size() const { return items_.size(); }
  // Removes and returns the element no other element is less than.
  T Pop() {
    size_t best = 0;
    for (size_t i = 1; i < items_.size(); ++i) {
      if (less_(items_[i], items_[best])) best = i;
    }
    T v = std::move(items_[best]);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(best));
    return v;
  }

 private:
  Less less_;
  std::vector<T> items_;
};

template <typename T, typename Less>
PickList<T, Less> MakePickList(Less less) {
  return PickList<T, Less>(std::move(less));
}

// A binary heap with PickList's interface, O(log n) a push or pop instead of
// PickList's O(n) pop. It makes the same picks only when no element's key
// changes while the element is in the list (the order is fixed at push time).
// That holds for enqueue's and allocate's per-queue job lists: every job-order
// key (priority, gang readiness, drf share, sla deadline) belongs to the job
// itself and only moves when the job is admitted or allocates, i.e. after it
// was popped. It does not hold for
// queue lists (a hierarchical share moves with a sibling's allocation) nor in
// preempt/reclaim (evictions change other jobs' shares): they keep PickList.
template <typename T, typename Less>
class HeapList {
 public:
  explicit HeapList(Less less) : less_(std::move(less)) {}
  void Push(T v) {
    items_.push_back(std::move(v));
    std::push_heap(items_.begin(), items_.end(), Greater{&less_});
  }
  bool Empty() const { return items_.empty(); }
  size_t Size() const { return items_.size(); }
  // Removes and returns the element no other element is less than.
  T Pop() {
    std::pop_heap(items_.begin(), items_.end(), Greater{&less_});
    T v = std::move(items_.back());
    items_.pop_back();
    return v;
  }

 private:
  // std heaps keep the greatest element on top; invert to keep the least.
  struct Greater {
    const Less* less;
    bool operator()(const T& a, const T& b) const { return (*less)(b, a); }
  };
  Less less_;
  std::vector<T> items_;
};

template <typename T, typename Less>
HeapList<T, Less> MakeHeapList(Less less) {
  return HeapList<T, Less>(std::move(less));
}

}  // namespace basalt
