// `basalt fgd --trace DIR --pods FILE --policies LIST --seeds N [--out DIR]`:
// the FGD paper's experiment on the Alibaba openb trace (sim/fgd/experiment.h,
// docs/fgd.md). Prints one JSON object.
#pragma once

#include <cstdint>
#include <string>

namespace basalt {

struct FgdRequest {
  std::string trace_dir;
  std::string pods = "openb_pod_list_default";  // path, or a name under DIR/csv (".csv" optional)
  std::string nodes;                            // default DIR/csv/openb_node_list_gpu_node.csv
  std::string policies = "Random,DotProd,Clustering,Packing,BestFit,FGD";
  int seeds = 10;
  uint64_t first_seed = 42;  // the paper's seeds are 42..51
  double tune = 1.3;
  int jobs = 2;
  std::string out_dir;  // optional: DIR/result.json and DIR/curves.csv
};

// Exit codes: 0 done, 2 bad input (paths, CSV rows, policy names), 1 when the
// outputs cannot be written.
int RunFgd(const FgdRequest& request);

}  // namespace basalt
