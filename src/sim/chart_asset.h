// The charting library inlined into the simulation report (Chart.js from the
// npm registry, fetched at build time by cmake/chart_asset.cmake). When the
// build could not fetch it, `ChartLibraryName()` is "missing" and the source is
// empty: the report then says so instead of drawing charts.
#pragma once

namespace basalt {

const char* ChartLibraryName();    // "chart.js@4.4.1" or "missing"
const char* ChartLibrarySource();  // the UMD bundle, or ""

}  // namespace basalt
