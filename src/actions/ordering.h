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

}  // namespace basalt
