// `basalt schedule`: one-shot scheduling of a folder of manifests, decisions as
// JSON (the contract in DESIGN.md; tests outside this repository depend on the
// exact shape).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

struct ScheduleRequest {
  // Scheduler configuration text; empty = Volcano's default configuration.
  std::string conf_text;
  std::string conf_source = "(default configuration)";
  // Manifests: files/folders, and/or inline text (tests).
  std::vector<std::string> cluster_paths;
  std::string cluster_text;
  std::string cluster_source = "(inline)";
  int cycles = 1;
  bool scores = false;
};

// Runs the cycles and returns the output document. Every error is a user
// input error (exit code 2) naming file, object and field.
Result<nlohmann::ordered_json> RunSchedule(const ScheduleRequest& request);

}  // namespace basalt
