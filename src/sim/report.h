// The self-contained HTML report of a simulation: the summary as tables and
// the metrics as charts (GPU utilisation per card model, GPUs per queue with
// inference and training apart, pending pods and jobs, cumulative evictions).
// The charting library's source is inlined (sim/chart_asset.h) and the data is
// embedded as JSON, so the file opens without any network. After drawing, the
// page marks each chart `data-nonblank="true|false"` and the body
// `data-charts-rendered="N"`, which the headless-browser test reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace basalt {

// `chart_library` is the library's JavaScript source, `chart_name` its
// "package@version" (or "missing": the page then says the charts library is
// missing and shows the tables only).
std::string RenderReport(const nlohmann::ordered_json& summary,
                         const nlohmann::ordered_json& metrics, const std::string& chart_library,
                         const std::string& chart_name);

}  // namespace basalt
