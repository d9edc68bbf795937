#include "framework/vote_notes.h"

namespace basalt {
namespace {

thread_local VoteNoteCollector* open_collector = nullptr;

}  // namespace

VoteNoteCollector::VoteNoteCollector() : outer_(open_collector) { open_collector = this; }

VoteNoteCollector::~VoteNoteCollector() { open_collector = outer_; }

bool NotingVotes() { return open_collector != nullptr; }

void NoteVote(const std::string& object, const char* plugin, const std::string& text) {
  if (open_collector != nullptr) open_collector->notes_.push_back({object, plugin, text});
}

std::string ReadableDimension(ResourceId id, int64_t stored_value) {
  if (id == ResourceNames::kMemory || id == ResourceNames::kPods)
    return FormatDimension(id, stored_value);
  // cpu and scalars are stored in thousandths: a decimal, trailing zeros cut.
  const bool negative = stored_value < 0;
  const uint64_t v =
      negative ? 0 - static_cast<uint64_t>(stored_value) : static_cast<uint64_t>(stored_value);
  std::string s = std::to_string(v / 1000);
  if (uint64_t frac = v % 1000; frac != 0) {
    std::string digits = std::to_string(1000 + frac).substr(1);
    while (digits.back() == '0') digits.pop_back();
    s += "." + digits;
  }
  return negative ? "-" + s : s;
}

std::string QueueQuotaNote(const std::string& queue, const Resource& min, const Resource& allocated,
                           const Resource& inqueue, const Resource& admitted_in_pass,
                           const Resource& elastic, const Resource& capability) {
  std::string note;
  for (ResourceId id : RequestedDimensions(min)) {
    const int64_t needed = min.Get(id) + allocated.Get(id) + inqueue.Get(id) - elastic.Get(id);
    if (needed <= capability.Get(id)) continue;
    const auto d = [id](int64_t v) { return ReadableDimension(id, v); };
    note += std::string(note.empty() ? "" : "; ") + ResourceNames::Name(id) + ": " +
            d(min.Get(id)) + " asked + " + d(allocated.Get(id)) + " allocated + " +
            d(inqueue.Get(id)) + " reserved by admitted PodGroups (" + d(admitted_in_pass.Get(id)) +
            " of it admitted before it in this pass) - " + d(elastic.Get(id)) +
            " elastic = " + d(needed) + " > " + d(capability.Get(id)) + " capability of queue " +
            queue;
  }
  return note;
}

std::vector<ResourceId> RequestedDimensions(const Resource& request) {
  std::vector<ResourceId> out;
  if (request.milli_cpu() > 0) out.push_back(ResourceNames::kCpu);
  if (request.memory() > 0) out.push_back(ResourceNames::kMemory);
  for (const auto& [id, v] : request.scalars()) {
    if (id != ResourceNames::kPods && v > 0) out.push_back(id);
  }
  return out;
}

}  // namespace basalt
