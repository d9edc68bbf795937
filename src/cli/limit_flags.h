// The flags that raise the input limits of api/limits.h (`--max-objects`,
// `--max-job-pods`, `--max-pods`, `--max-nodes`, `--max-cycles`), added to the
// commands that apply each; docs/limits.md is the table.
#pragma once

#include <initializer_list>

#include "api/limits.h"

namespace CLI {
class App;
}

namespace basalt {

enum class LimitFlag { kObjects, kJobPods, kPods, kNodes, kCycles };

// Adds the flags `which` to `cmd`; each writes its field of `*limits`, whose
// values are the defaults shown in the help.
void AddLimitFlags(CLI::App* cmd, InputLimits* limits, std::initializer_list<LimitFlag> which);

}  // namespace basalt
