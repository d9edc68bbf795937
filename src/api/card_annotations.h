// Parsing of the capacity-card annotations (docs/plugins/capacity-card.md):
//
//   Queue            volcano.sh/card.quota    {"NVIDIA-H200": 3, "NVIDIA-H200/mig-1g.18gb-mixed":
//   3} vcjob, PodGroup  volcano.sh/card.request  {"NVIDIA-H200": 2, "NVIDIA-A|NVIDIA-B": 2} Pod
//   (template)   volcano.sh/card.name     "NVIDIA-H200" or "A|B|C" (preferred first)
//
// Admission uses these functions to reject malformed values before scheduling;
// the capacity-card plugin uses the same functions to read them, so a value that
// passes `basalt validate` is exactly a value the plugin understands.
//
// Messages name the problem, not the annotation key or the object: callers add
// the field path (`metadata.annotations[volcano.sh/card.quota]`) themselves.
// Nothing here throws or crashes on any input.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/status.h"

namespace basalt {

inline constexpr char kCardQuotaAnnotation[] = "volcano.sh/card.quota";
inline constexpr char kCardRequestAnnotation[] = "volcano.sh/card.request";
inline constexpr char kCardNameAnnotation[] = "volcano.sh/card.name";

// Card counts above this are refused as typos; it keeps every sum of counts
// (quota + used + request over many queues and jobs) far away from int64 overflow.
inline constexpr int64_t kMaxCardCount = int64_t{1} << 40;

// `volcano.sh/card.quota`: a JSON object mapping a card model to a non-negative
// integer count. Keys must be valid model names (see `ParseCardName`; no `|`
// here: a quota is per model). Duplicate keys are errors (JSON would silently
// keep one of them). An empty object is valid (no cards).
Result<std::map<std::string, int64_t>> ParseCardQuota(const std::string& text);

// One entry of a card request: the acceptable models (one, or `A|B` alternatives
// in preference order) and the total number of cards the job needs.
using CardRequestEntry = std::pair<std::vector<std::string>, int64_t>;

// `volcano.sh/card.request`: a JSON object mapping a model or `A|B` alternatives
// to a positive integer count. Entries keep the order they have in the text.
// Duplicate keys, empty alternatives, the same model twice in one key, and a
// model named by two keys are errors.
Result<std::vector<CardRequestEntry>> ParseCardRequest(const std::string& text);

// `volcano.sh/card.name`: one model or `A|B|C` alternatives, preferred first.
// Errors: empty value, an empty alternative ("A||B", "A|"), an alternative with
// surrounding or embedded whitespace or control characters, the same model twice,
// alternatives on different Kubernetes resources (see `CardResourceFromName`:
// a whole card with an MPS or MIG model, two MIG profiles).
Result<std::vector<std::string>> ParseCardName(const std::string& text);

// The Kubernetes resource a model's pods request, told from the name alone
// where it can be: MIG names (`<product>/mig-<profile>-mixed`) give
// `nvidia.com/mig-<profile>`, MPS names (`<product>/mps-...`) give
// `nvidia.com/gpu.shared`; a whole-card name tells nothing (returns "").
std::string CardResourceFromName(const std::string& model);

// Checks one model name ("NVIDIA-H200", "NVIDIA-H200/mig-1g.18gb-mixed",
// "NVIDIA-H200/mps-80g*1/4"): non-empty, at most 253 bytes, printable ASCII
// without spaces, `|`, `"` or `\`. Returns the reason it is not valid.
Status CheckCardModel(std::string_view model);

}  // namespace basalt
