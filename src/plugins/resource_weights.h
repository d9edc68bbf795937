// Per-resource weights as Volcano's binpack-style arguments give them: a
// comma-separated list of resource names `<prefix>resources` ("nvidia.com/gpu,
// example.com/foo"), each weighted by `<prefix>resources.<name>`. Read by
// binpack (`binpack.`) and network-topology-aware (`hypernode.binpack.`).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/resource.h"
#include "api/status.h"
#include "framework/arguments.h"

namespace basalt {

// Adds each listed resource to `weights` with its weight (1 when not given;
// a negative weight counts as 1, as in Volcano). Empty names are skipped.
Status ReadResourceWeightList(const Arguments& args, const std::string& prefix,
                              std::map<ResourceId, int64_t>* weights);

}  // namespace basalt
