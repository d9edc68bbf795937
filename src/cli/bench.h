// `basalt bench --profile NAME [--runs N] [--reference] [--full-snapshots]`: runs one benchmark
// profile of bench/profiles.h and prints one JSON object (see bench/README.md).
#pragma once

#include <string>

namespace basalt {

struct BenchRequest {
  std::string profile;  // a name of bench/profiles.h, or "list"
  int runs = 3;
  bool reference = false;       // SessionOptions::reference_node_selection
  bool full_snapshots = false;  // bench::RunOptions::full_snapshots
};

// Exit code: 0, or 2 for an unknown profile.
int RunBench(const BenchRequest& request);

}  // namespace basalt
