// The short human table `basalt simulate` prints at the end of a run (on
// stdout; summary.json stays the machine output): utilisation in %, jobs
// completed and pending, wait p50 / p90 per queue in minutes or hours,
// evictions, gang violations and why GPUs were idle while jobs waited.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt {

// `summary` and `metrics` as MetricsRecorder writes them.
std::string SimulateSummaryTable(const nlohmann::ordered_json& summary,
                                 const nlohmann::ordered_json& metrics);

}  // namespace basalt
