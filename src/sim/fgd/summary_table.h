// The short human table `basalt fgd` prints at the end (on stderr: stdout
// carries the JSON object scripts read): per policy, the GPUs allocated and
// left unallocated at 100% arrived load, the fragment there, the pods that fit
// nowhere, and the published number beside ours.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt::fgd {

// `summary` as RunExperiment and CompareWithPublished leave it.
std::string FgdSummaryTable(const nlohmann::ordered_json& summary);

}  // namespace basalt::fgd
