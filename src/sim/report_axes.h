// What the simulation report's charts show on their axes and which series
// they draw: time ticks on day or hour boundaries (not wherever the chart
// library's tick spacing falls), and the utilisation series with a card model
// that equals the generic GPU series folded into it, so no line is drawn twice.
// The page script (sim/report.cc) draws from these; they are computed here so
// they can be tested without a browser.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace basalt {

struct AxisTick {
  int64_t t = 0;      // seconds from the start of the run
  std::string label;  // "d2 00:00", "6 h", "30 min"
};

struct TimeAxis {
  std::string title;
  std::vector<AxisTick> ticks;
};

// Ticks for a run of `duration_seconds`: every day (or every few days, at
// most 15 ticks) for runs of two days or more, whole hours (1, 2, 3, 4, 6 or
// 12 apart) for runs of two hours or more, else whole minutes (5 to 30 apart).
TimeAxis TimeTicks(int64_t duration_seconds);

struct ChartSeries {
  std::string key;    // the key in a metrics sample's `utilization`
  std::string label;  // what the legend and the tables say
};

// The utilisation series of `metrics` (MetricsRecorder::MetricsJson): cpu,
// memory, the generic GPU and each card model, except that a card model whose
// value equals the generic GPU's at every sample is not drawn again: the
// generic series then names the model.
std::vector<ChartSeries> UtilisationSeries(const nlohmann::ordered_json& metrics);

// The chart description the page script reads: x ticks, x title and the
// utilisation series.
nlohmann::ordered_json ChartSpecJson(const nlohmann::ordered_json& metrics,
                                     int64_t duration_seconds);

}  // namespace basalt
