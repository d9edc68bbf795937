#include "sim/summary_table.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/report_axes.h"
#include "sim/report_format.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;
using Rows = std::vector<std::pair<std::string, std::string>>;

const Json* UtilisationEntry(const Json& util, const std::string& key) {
  if (key.starts_with("gpu:")) {
    const std::string model = key.substr(4);
    return util["card_models"].contains(model) ? &util["card_models"][model] : nullptr;
  }
  return util.contains(key) ? &util[key] : nullptr;
}

void AddUtilisation(const Json& summary, const Json& metrics, Rows& rows) {
  for (const ChartSeries& s : UtilisationSeries(metrics)) {
    const Json* e = UtilisationEntry(summary["utilization"], s.key);
    if (!e) continue;
    rows.emplace_back("utilisation " + s.label,
                      FormatPercent((*e)["mean"].get<double>()) + " mean, " +
                          FormatPercent((*e)["max"].get<double>()) + " max");
  }
}

void AddJobs(const Json& summary, const Json& metrics, Rows& rows) {
  std::string line = std::to_string(summary.value("jobs_completed", int64_t{0})) + " of " +
                     std::to_string(summary.value("jobs_submitted", int64_t{0})) + " submitted";
  if (!metrics["samples"].empty()) {
    const Json& last = metrics["samples"].back();
    line += "; at the end " + last["running_jobs"].dump() + " running, " +
            last["pending_jobs"].dump() + " pending";
  }
  rows.emplace_back("jobs completed", line);
}

void AddWaits(const Json& summary, Rows& rows) {
  for (const auto& [queue, v] : summary["wait_seconds"].items()) {
    rows.emplace_back("wait p50 / p90 (" + queue + ")",
                      FormatDuration(v["p50"].get<int64_t>()) + " / " +
                          FormatDuration(v["p90"].get<int64_t>()) + " (" + v["count"].dump() +
                          " started)");
  }
}

void AddEvictions(const Json& summary, Rows& rows) {
  const Json& ev = summary["evictions"];
  std::string causes;
  for (const auto& [cause, n] : ev.items()) {
    if (cause == "total" || n.get<int64_t>() == 0) continue;
    causes += (causes.empty() ? " (" : ", ") + cause + " " + n.dump();
  }
  rows.emplace_back("evictions", ev["total"].dump() + (causes.empty() ? "" : causes + ")"));
  rows.emplace_back("gang violations", std::to_string(summary.value("gang_violations", 0)));
}

void AddIdle(const Json& summary, Rows& rows) {
  if (!summary.contains("idle_gpus_while_waiting")) return;
  const Json& idle = summary["idle_gpus_while_waiting"];
  std::string line = idle["idle_gpu_hours"].dump() + " GPU-hours";
  std::string parts;
  for (const auto& [reason, v] : idle["reasons"].items()) {
    if (v["samples"].get<int64_t>() == 0) continue;
    parts += (parts.empty() ? " (" : ", ") + reason + " " + v["idle_gpu_hours"].dump();
  }
  rows.emplace_back("idle GPUs while jobs waited", line + (parts.empty() ? "" : parts + ")"));
}

}  // namespace

std::string SimulateSummaryTable(const Json& summary, const Json& metrics) {
  Rows rows;
  AddUtilisation(summary, metrics, rows);
  AddJobs(summary, metrics, rows);
  AddWaits(summary, rows);
  AddEvictions(summary, rows);
  AddIdle(summary, rows);
  size_t width = 0;
  for (const auto& [name, value] : rows) width = std::max(width, name.size());
  std::string out = summary.value("scenario", std::string("scenario")) + ": " +
                    FormatDuration(summary.value("duration_seconds", int64_t{0})) +
                    " simulated, seed " + std::to_string(summary.value("seed", uint64_t{0})) + "\n";
  for (const auto& [name, value] : rows)
    out += "  " + name + std::string(width - name.size() + 2, ' ') + value + "\n";
  return out;
}

}  // namespace basalt
