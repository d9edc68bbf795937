// The body of a LIST reply parsed fast: on a large cluster the informers'
// first list is megabytes of JSON per page, and parsing it is what a restart
// of `basalt serve` waits for once decoding is cheap.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt::kube {

// `body` parsed as `nlohmann::json::parse(body, nullptr, false)` would
// (discarded when it is not JSON), with one difference: the items of a
// PodList or NodeList come without `metadata.managedFields` (server
// bookkeeping, often most of their bytes, that nothing in basalt reads).
// The text is read by simdjson; a body simdjson refuses is left to nlohmann,
// so what is accepted does not change (numbers keep nlohmann's types, but for
// "-0", which reads as the double -0.0 rather than the integer 0).
nlohmann::json ParseListBody(const std::string& body);

}  // namespace basalt::kube
