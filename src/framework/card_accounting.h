// A read-only window on a plugin's per-queue, per-card-model accounting, for
// the invariant checker (framework/invariants.h, check 9).
//
// capacity-card keeps, per queue, the cards its placed pods use per model,
// updated by allocate / deallocate events. If an event were missed or fired
// twice, quotas would drift silently: a queue would be refused cards it has,
// or given cards it has not. The checker recounts the use from the tasks and
// compares. The plugin publishes its view for the session it is opened in and
// withdraws it when destroyed; nothing here changes a decision.
//
// The view lives outside Session so that a plugin's private state needs no
// field in session.h (which every file includes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "framework/types.h"

namespace basalt {

class Session;

// The cards one pod uses once placed.
struct CardDemand {
  std::vector<std::string> models;  // `card.name` alternatives, preferred first; empty: no cards
  int64_t milli = 0;                // milli-cards of the model's resource
};

class CardAccountingView {
 public:
  virtual ~CardAccountingView() = default;
  // The plugin's name, for messages.
  virtual std::string_view AccountName() const = 0;
  // Per model, the milli-cards the plugin counts as used by queue `q`.
  virtual std::map<std::string, int64_t> ChargedCards(QueueId q) const = 0;
  // What `task` uses when placed (models empty when it asks for no cards or
  // its request cannot be read, which charges no card).
  virtual CardDemand TaskCards(const TaskInfo& task) const = 0;
  // True when `node` offers `model` (from the node's labels and allocatable).
  virtual bool NodeOffers(NodeId node, const std::string& model) const = 0;
};

// Registers `view` for `ssn` (several may be registered).
void PublishCardAccounting(const Session* ssn, const CardAccountingView* view);
// Removes `view` wherever it is registered.
void WithdrawCardAccounting(const CardAccountingView* view);
// The views registered for `ssn`, in registration order.
std::vector<const CardAccountingView*> CardAccountingViews(const Session& ssn);

}  // namespace basalt
