#include "actions/builtin.h"

#include "api/check.h"

namespace basalt {

void RegisterBuiltinActions(ActionRegistry& r) {
  const std::pair<const char*, ActionFactory> kBuiltins[] = {
      {"enqueue", NewEnqueueAction},         {"allocate", NewAllocateAction},
      {"backfill", NewBackfillAction},       {"preempt", NewPreemptAction},
      {"reclaim", NewReclaimAction},         {"shuffle", NewShuffleAction},
      {"gangpreempt", NewGangPreemptAction}, {"gangreclaim", NewGangReclaimAction},
  };
  for (const auto& [name, factory] : kBuiltins) {
    Status st = r.Register(name, factory);
    BASALT_CHECK(st.ok()) << st.message();
  }
}

}  // namespace basalt
