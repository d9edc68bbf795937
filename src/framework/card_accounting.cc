#include "framework/card_accounting.h"

#include <algorithm>
#include <mutex>

namespace basalt {
namespace {

// Sessions can be open on several threads (tests, `basalt serve`): the
// registry is shared and guarded.
struct Registry {
  std::mutex mu;
  std::map<const Session*, std::vector<const CardAccountingView*>> views;
};

Registry& Get() {
  static Registry* r = new Registry();  // never destroyed: plugins may outlive static teardown
  return *r;
}

}  // namespace

void PublishCardAccounting(const Session* ssn, const CardAccountingView* view) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.views[ssn].push_back(view);
}

void WithdrawCardAccounting(const CardAccountingView* view) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto it = r.views.begin(); it != r.views.end();) {
    auto& list = it->second;
    list.erase(std::remove(list.begin(), list.end(), view), list.end());
    it = list.empty() ? r.views.erase(it) : std::next(it);
  }
}

std::vector<const CardAccountingView*> CardAccountingViews(const Session& ssn) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.views.find(&ssn);
  return it == r.views.end() ? std::vector<const CardAccountingView*>() : it->second;
}

}  // namespace basalt
