// The network topology part of a simulation's outputs (scenarios with a
// `topology` section): the report's "Network topology" section and the line
// `basalt simulate` prints, both read from summary.json's `topology` object
// (sim/placement_quality.h) beside its utilisation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt {

// The HTML section; empty when the summary has no `topology` object.
std::string RenderTopologySection(const nlohmann::ordered_json& summary);

// "topology (jobs hard): 120 of 130 jobs placed, 62% within one leaf, ...";
// empty when the summary has no `topology` object.
std::string TopologySummaryLine(const nlohmann::ordered_json& summary);

}  // namespace basalt
