// Why a JobEnqueueable vote refused, with the numbers that refused it, for
// `basalt explain` only.
//
// The session's events keep Volcano's words ("resource in cluster is
// overused"), which the `basalt schedule` JSON contract prints as they are; the
// arithmetic behind them ("6 reserved before it + 4 asked = 10 > 8 × 1.2 =
// 9.6") is noted here instead. Nothing is kept unless a collector is open on
// the thread running the session (the explain probe opens one around its
// session), so schedule, simulate and serve pay one thread-local load per
// refusal.
#pragma once

#include <string>
#include <vector>

#include "api/resource.h"

namespace basalt {

struct VoteNote {
  std::string object;  // "PodGroup/ns/name"
  std::string plugin;  // "overcommit", "proportion", "capacity"
  std::string text;    // the comparison that refused, one dimension after another
};

// Collects the notes of the sessions run on this thread while it lives.
class VoteNoteCollector {
 public:
  VoteNoteCollector();
  ~VoteNoteCollector();
  VoteNoteCollector(const VoteNoteCollector&) = delete;
  VoteNoteCollector& operator=(const VoteNoteCollector&) = delete;
  const std::vector<VoteNote>& notes() const { return notes_; }

 private:
  friend void NoteVote(const std::string&, const char*, const std::string&);
  std::vector<VoteNote> notes_;
  VoteNoteCollector* outer_;
};

// Whether a collector is open on this thread (compose a note only then).
bool NotingVotes();
void NoteVote(const std::string& object, const char* plugin, const std::string& text);

// A queue's quota refusing a PodGroup, each dimension `min` asks for that
// does not fit: "nvidia.com/gpu: 4 asked + 2 allocated + 6 reserved by
// admitted PodGroups (6 of it admitted before it in this pass) - 0 elastic =
// 12 > 8 capability of queue q".
std::string QueueQuotaNote(const std::string& queue, const Resource& min, const Resource& allocated,
                           const Resource& inqueue, const Resource& admitted_in_pass,
                           const Resource& elastic, const Resource& capability);

// A stored value of dimension `id` as a person reads it: "9.6" GPUs, "2.5"
// cpus, "16Gi" memory.
std::string ReadableDimension(ResourceId id, int64_t stored_value);

// The dimensions `request` asks for, as LessEqualOnRequested compares them
// (cpu, memory, then the scalars other than pods).
std::vector<ResourceId> RequestedDimensions(const Resource& request);

}  // namespace basalt
