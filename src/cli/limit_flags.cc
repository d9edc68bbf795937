#include "cli/limit_flags.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace basalt {
namespace {

struct FlagSpec {
  const char* name;
  const char* help;
  int64_t InputLimits::*field;
};

FlagSpec Spec(LimitFlag flag) {
  switch (flag) {
    case LimitFlag::kObjects:
      return {"--max-objects", "Most objects the manifests may hold (docs/limits.md)",
              &InputLimits::max_objects};
    case LimitFlag::kJobPods:
      return {"--max-job-pods", "Most pods one vcjob may have, per task and in all",
              &InputLimits::max_job_pods};
    case LimitFlag::kPods:
      return {"--max-pods", "Most pods of a cluster: Pods plus the replicas of every vcjob",
              &InputLimits::max_pods};
    case LimitFlag::kNodes:
      return {"--max-nodes", "Most simulated nodes: the pools' counts added up",
              &InputLimits::max_nodes};
    case LimitFlag::kCycles:
      return {"--max-cycles", "Most cycles --cycles may ask for", &InputLimits::max_cycles};
  }
  return {"", "", nullptr};
}

}  // namespace

void AddLimitFlags(CLI::App* cmd, InputLimits* limits, std::initializer_list<LimitFlag> which) {
  for (LimitFlag flag : which) {
    const FlagSpec spec = Spec(flag);
    cmd->add_option(spec.name, limits->*spec.field, spec.help)
        ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
        ->capture_default_str()
        ->group("Limits");
  }
}

}  // namespace basalt
