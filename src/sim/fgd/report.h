// The self-contained HTML report of `basalt fgd --out DIR` (DIR/report.html):
// the unallocated-GPU share over arrived load, 80..130%, our mean +/- sd for
// each policy drawn beside the authors' published band (their mean +/- sd over
// the same seeds), plus the table at 100%. The charting library is the one the
// simulation report inlines (sim/chart_asset.h); the data sits in the page as
// JSON (`<script id="fgd-data">`), so the file opens without any network.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt::fgd {

// The authors' curve of one policy: unallocated GPU % (100 - their allocated
// share) at each arrived load, mean and sd (n - 1) over their seeds.
struct PublishedCurve {
  std::string policy;  // our name: Random, DotProd, Clustering, Packing, BestFit, FGD
  std::vector<int> arrived_pct;
  std::vector<double> mean;
  std::vector<double> sd;
  int seeds = 0;
};

// Reads the authors' per-run allocation curves (fgd_expected_results/
// analysis_allo_discrete.csv: workload,sc_policy,tune,seed,total_gpus,0..130)
// for `workload`, arrived loads `from`..`to`. Their policy names
// ("03-GpuClustering") map to ours ("Clustering"). A missing file gives an
// empty list; a malformed one an error naming the file, row and column.
Result<std::vector<PublishedCurve>> LoadPublishedCurves(const std::string& allo_csv,
                                                        const std::string& workload, int from,
                                                        int to);

// The chart data the page draws: for each policy of `summary` (the object
// `basalt fgd` prints) its curve, and for each published policy its band.
nlohmann::ordered_json ReportData(const nlohmann::ordered_json& summary,
                                  const std::vector<PublishedCurve>& published);

// The whole page. `chart_library` is the library's source and `chart_name`
// its "package@version", or "missing" (the page then shows the tables only).
std::string RenderFgdReport(const nlohmann::ordered_json& summary,
                            const std::vector<PublishedCurve>& published,
                            const std::string& chart_library, const std::string& chart_name);

}  // namespace basalt::fgd
