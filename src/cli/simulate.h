// `basalt simulate SCENARIO.yaml [--seed N] [--out DIR]`: runs the
// discrete-event simulator (sim/simulator.h) and writes DIR/report.html,
// DIR/metrics.json, DIR/metrics.csv and DIR/summary.json (and DIR/topology.csv
// for a scenario with a `topology` section). docs/simulate.md is the reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/limits.h"
#include "api/status.h"

namespace basalt {

struct SimulateRequest {
  std::string scenario_path;
  std::optional<uint64_t> seed;
  std::string out_dir = "simulate-out";
  bool progress = true;  // a progress line on stderr
  // Overrides the scenario's `topology.jobs` (hard, soft, none, as_written).
  std::optional<std::string> topology_jobs;
  // `--max-nodes`, `--max-job-pods`, ... (api/limits.h).
  InputLimits limits;
};

// Exit codes: 0 done, 2 bad input (scenario, trace, configuration), 1 when the
// outputs cannot be written.
int RunSimulate(const SimulateRequest& request);

}  // namespace basalt
