// JournalCursor: where one reader of a ClusterState's change journal stands
// (the snapshot cache, the vcjob and PodGroup controllers).
#pragma once

#include <cstdint>

#include "state/cluster_state.h"

namespace basalt {

class JournalCursor {
 public:
  // True when the journal still holds every change since the last MoveToEnd:
  // same store, no structural change, no entry dropped. When false, the
  // reader must look at everything.
  bool Intact(const ClusterState& state) const {
    return store_id_ == state.instance_id() && structure_version_ == state.structure_version() &&
           position_ >= state.journal_begin();
  }
  // Entries since the last MoveToEnd (only meaningful when Intact).
  uint64_t Pending(const ClusterState& state) const { return state.journal_end() - position_; }
  template <typename Fn>
  void ForEachSince(const ClusterState& state, Fn fn) const {
    for (uint64_t seq = position_; seq < state.journal_end(); ++seq) fn(state.journal_entry(seq));
  }
  // The reader has seen everything up to now.
  void MoveToEnd(const ClusterState& state) {
    store_id_ = state.instance_id();
    structure_version_ = state.structure_version();
    position_ = state.journal_end();
  }

 private:
  uint64_t store_id_ = 0;
  uint64_t structure_version_ = 0;
  uint64_t position_ = 0;
};

}  // namespace basalt
