// `basalt validate FILE_OR_DIR...`: checks manifests as Volcano's admission
// webhooks would (admission/admission.h), before they reach a cluster or
// `basalt schedule`. Output, one problem per line (docs/validate.md):
//
//   cluster/jobs.yaml:12: Job default/mpi: spec.tasks[0].minAvailable: 'minAvailable' is greater
//   than ...
//
// Exit codes: 0 when every object is valid ("ok: N objects valid" on stdout);
// 2 when a file cannot be read or decoded (the decoder's message on stderr) or
// when any admission problem is found (the problems on stdout, a count on stderr).
//
// With `--conf FILE`, the scheduler configuration is checked as `basalt
// schedule` checks it before its first cycle (names, switches, and every
// plugin's arguments), each problem with its field path:
//
//   sched.conf: tiers[1].plugins[0]: plugin deviceshare: arguments.deviceshare.VGPUEnable:
//   expected true or false, got "maybe"
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace basalt {

struct InputLimits;  // api/limits.h

// Validates every object under `paths` (files or folders, as `LoadPath`) and
// writes the report to `out` (problems, or the "ok" line) and `err` (decode
// errors and the problem count). Returns the process exit code.
int RunValidate(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err);

// The same with a scheduler configuration file to check ("" = none; then
// `paths` must not be empty).
int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                std::ostream& out, std::ostream& err);

// The same with limits other than the defaults (`--max-objects`, ...; api/limits.h).
int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                const InputLimits& limits, std::ostream& out, std::ostream& err);

// The same, on std::cout and std::cerr.
int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                const InputLimits& limits);

}  // namespace basalt
