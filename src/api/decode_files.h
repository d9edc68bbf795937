// Loading manifests from files and folders, going on past a file that fails,
// for the one loader of the commands (cli/cluster_input.h).
#pragma once

#include <string>
#include <vector>

#include "api/decode.h"
#include "api/limits.h"

namespace basalt {

// As `LoadPath` (api/decode.h), going on after a file that fails: the first
// error of each file, in file order (empty when everything loaded).
std::vector<Status> LoadPathEveryFile(const std::string& path, ClusterObjects* out,
                                      const InputLimits& limits);

}  // namespace basalt
