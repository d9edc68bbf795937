// What the store refuses of a whole input, as `ClusterState::AddAll` would
// refuse it, without building the store: a name defined twice for one kind
// (named at the repeat, as `validate` has always said it), a JobFlow naming a JobTemplate not in
// the input, a HyperNode tree that is not one. `basalt validate` runs it through the loader it
// shares with `schedule` (cli/cluster_input.h), so it refuses what `schedule` cannot load.
#pragma once

#include "api/decode.h"
#include "api/status.h"

namespace basalt {

Status CheckStoreRules(const ClusterObjects& objects);

}  // namespace basalt
