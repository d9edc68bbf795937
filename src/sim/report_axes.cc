#include "sim/report_axes.h"

#include <algorithm>
#include <string_view>

#include "sim/report_format.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 86400;
constexpr int64_t kMaxTicks = 15;
constexpr std::string_view kGpu = "nvidia.com/gpu";
constexpr std::string_view kModelPrefix = "gpu:";

// The smallest step of `steps` that keeps the tick count at most kMaxTicks
// (the largest one when none does).
int64_t PickStep(int64_t duration, std::initializer_list<int64_t> steps) {
  int64_t chosen = 0;
  for (int64_t step : steps) {
    chosen = step;
    if (duration / step + 1 <= kMaxTicks) break;
  }
  return chosen;
}

std::vector<AxisTick> EveryStep(int64_t duration, int64_t step, std::string (*label)(int64_t)) {
  std::vector<AxisTick> ticks;
  for (int64_t t = 0; t <= duration; t += step) ticks.push_back({t, label(t)});
  return ticks;
}

std::string HourLabel(int64_t t) { return std::to_string(t / kHour) + " h"; }
std::string MinuteLabel(int64_t t) { return std::to_string(t / kMinute) + " min"; }

std::string ResourceLabel(const std::string& key) {
  if (key == "cpu") return "CPU";
  if (key == kGpu) return "GPU (nvidia.com/gpu)";
  if (key.starts_with(kModelPrefix)) return "GPU " + key.substr(kModelPrefix.size());
  return key;
}

// Whether the utilisation of `a` equals that of `b` at every sample.
bool SameSeries(const Json& samples, const std::string& a, const std::string& b) {
  for (const Json& s : samples) {
    const Json& u = s["utilization"];
    if (!u.contains(a) || !u.contains(b) || u[a] != u[b]) return false;
  }
  return true;
}

}  // namespace

TimeAxis TimeTicks(int64_t duration) {
  if (duration < 0) duration = 0;
  if (duration >= 2 * kDay) {
    // At most kMaxTicks ticks: kMaxTicks - 1 steps over the whole days.
    const int64_t step = kDay * ((duration / kDay + kMaxTicks - 2) / (kMaxTicks - 1));
    return {"simulated time (day and hour of day)", EveryStep(duration, step, FormatSimTime)};
  }
  if (duration >= 2 * kHour) {
    const int64_t step =
        PickStep(duration, {kHour, 2 * kHour, 3 * kHour, 4 * kHour, 6 * kHour, 12 * kHour});
    return {"simulated hours", EveryStep(duration, step, HourLabel)};
  }
  const int64_t step =
      PickStep(duration, {5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute, kHour});
  return {"simulated minutes", EveryStep(duration, step, MinuteLabel)};
}

std::vector<ChartSeries> UtilisationSeries(const Json& metrics) {
  const Json& samples = metrics["samples"];
  std::vector<ChartSeries> out;
  if (samples.empty()) return out;
  const Json& first = samples[0]["utilization"];
  std::vector<std::string> models, folded;
  for (const auto& [key, v] : first.items()) {
    if (!key.starts_with(kModelPrefix)) continue;
    models.push_back(key);
    if (SameSeries(samples, std::string(kGpu), key)) folded.push_back(key);
  }
  std::string folded_names;
  for (const std::string& m : folded)
    folded_names += (folded_names.empty() ? "" : ", ") + m.substr(kModelPrefix.size());
  for (const auto& [key, v] : first.items()) {
    if (std::find(folded.begin(), folded.end(), key) != folded.end()) continue;
    ChartSeries series{key, ResourceLabel(key)};
    if (key == kGpu && !folded.empty()) {
      series.label = models.size() == folded.size() ? "GPU (all " + folded_names + ")"
                                                    : "GPU (nvidia.com/gpu = " + folded_names + ")";
    }
    out.push_back(series);
  }
  return out;
}

Json ChartSpecJson(const Json& metrics, int64_t duration) {
  const TimeAxis axis = TimeTicks(duration);
  Json ticks = Json::array();
  for (const AxisTick& t : axis.ticks) ticks.push_back({{"t", t.t}, {"label", t.label}});
  Json series = Json::array();
  for (const ChartSeries& s : UtilisationSeries(metrics))
    series.push_back({{"key", s.key}, {"label", s.label}});
  return {{"x_title", axis.title}, {"x_ticks", ticks}, {"utilization", series}};
}

}  // namespace basalt
