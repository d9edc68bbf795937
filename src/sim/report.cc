#include "sim/report.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "sim/html_text.h"
#include "sim/report_axes.h"
#include "sim/report_format.h"
#include "sim/report_script.h"
#include "sim/topology_report.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

// With a `colocation:` section: requested vs used vs oversold CPU over time.
constexpr const char* kColocationScript = R"JS(
(function () {
  const M = JSON.parse(document.getElementById('metrics').textContent);
  if (!window.basaltLine) return;
  const series = [['cpu_capacity', 'capacity', '#7f7f7f'],
                  ['cpu_online_requested', 'online requested', '#1f77b4'],
                  ['cpu_online_used', 'online used', '#d62728'],
                  ['cpu_oversold', 'oversold (reported by the agents)', '#2ca02c'],
                  ['cpu_be_requested', 'BE requested (running)', '#ff7f0e'],
                  ['cpu_be_used', 'BE used', '#9467bd']];
  window.basaltLine('chart-colocation', 'Colocation: CPU cores requested, used and oversold',
                    series.map(([k, label, color]) => ({
                      label: label, data: M.samples.map(s => (s.colocation || {})[k] || 0),
                      extra: {borderColor: color, backgroundColor: color + '55'}})),
                    {yTitle: 'CPU cores'});
})();
)JS";

// The colocation table: what the agents lent, what BE pods used of it, the
// online peaks and the agents' evictions.
void RenderColocation(const nlohmann::ordered_json& c, std::ostringstream& os) {
  os << "<h2>Colocation (" << HtmlEscape(c["mode"].get<std::string>()) << " mode, "
     << c["nodes"].dump() << " nodes, agent period " << c["agent_period_seconds"].dump()
     << " s)</h2>\n<table id=\"colocation\">\n<tr><th>CPU</th><th>core-hours</th><th>mean "
        "cores</th></tr>\n";
  for (const auto& [k, v] : c["cpu_core_hours"].items()) {
    os << "<tr><td>" << HtmlEscape(k) << "</td><td>" << v.dump() << "</td><td>"
       << c["cpu_cores_mean"][k].dump() << "</td></tr>\n";
  }
  os << "</table>\n<table>\n<tr><th>metric</th><th>value</th></tr>\n";
  auto row = [&](const std::string& name, const std::string& v) {
    os << "<tr><td>" << HtmlEscape(name) << "</td><td>" << HtmlEscape(v) << "</td></tr>\n";
  };
  for (const auto& [k, v] : c["cpu_used_share"].items())
    row("cpu used share: " + k, FormatPercent(v.get<double>()));
  row("online cpu peak (cores)", c["online_cpu_peak"]["cores"].dump());
  row("online cpu peak (when)", FormatSimTime(c["online_cpu_peak"]["t"].get<int64_t>()));
  row("online cpu peak (share of capacity)",
      FormatPercent(c["online_cpu_peak"]["share_of_capacity"].get<double>()));
  row("node cpu peak (%)", c["node_cpu_peak_percent"].dump());
  row("node periods at the cpu high watermark", c["node_periods_at_cpu_high_watermark"].dump());
  row("oversubscription reports", c["reports"].dump());
  for (const auto& [k, v] : c["be_evictions"].items()) row("BE evictions: " + k, v.dump());
  os << "</table>\n";
}

// The headline numbers: jobs, restarts, gang violations, evictions by cause.
void RenderSummary(const Json& summary, std::ostringstream& os) {
  os << "<h2>Summary</h2>\n<table>\n<tr><th>metric</th><th>value</th></tr>\n";
  for (const char* k : {"gang_violations", "jobs_submitted", "jobs_completed", "job_restarts"}) {
    os << "<tr><td>" << k << "</td><td>" << summary.value(k, int64_t{0}) << "</td></tr>\n";
  }
  for (const auto& [cause, n] : summary["evictions"].items()) {
    os << "<tr><td>evictions." << HtmlEscape(cause) << "</td><td>" << n.dump() << "</td></tr>\n";
  }
  os << "</table>\n";
}

// Mean and max utilisation in %, one row per series the chart draws (a card
// model equal to the generic GPU row is folded into it).
void RenderUtilisation(const Json& summary, const Json& metrics, std::ostringstream& os) {
  os << "<h2>Utilisation</h2>\n<table id=\"utilisation\">\n<tr><th>resource</th><th>mean</th>"
        "<th>max</th></tr>\n";
  const Json& util = summary["utilization"];
  for (const ChartSeries& s : UtilisationSeries(metrics)) {
    const Json* e = nullptr;
    if (s.key.starts_with("gpu:")) {
      const std::string model = s.key.substr(4);
      if (util["card_models"].contains(model)) e = &util["card_models"][model];
    } else if (util.contains(s.key)) {
      e = &util[s.key];
    }
    if (!e) continue;
    os << "<tr><td>" << HtmlEscape(s.label) << "</td><td>"
       << FormatPercent((*e)["mean"].get<double>()) << "</td><td>"
       << FormatPercent((*e)["max"].get<double>()) << "</td></tr>\n";
  }
  os << "</table>\n";
}

std::string OneDecimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

void RenderQueues(const Json& summary, std::ostringstream& os) {
  os << "<h2>Queues (GPUs)</h2>\n<table>\n<tr><th>queue</th><th>role</th><th>mean</th>"
        "<th>max</th><th>deserved</th><th>capability</th></tr>\n";
  for (const auto& [q, v] : summary["queues"].items()) {
    os << "<tr><td>" << HtmlEscape(q) << "</td><td>" << HtmlEscape(v["role"].get<std::string>())
       << "</td><td>" << OneDecimal(v["gpus_mean"].get<double>()) << "</td><td>"
       << v["gpus_max"].dump() << "</td><td>" << v["deserved_gpus"].dump() << "</td><td>"
       << v["capability_gpus"].dump() << "</td></tr>\n";
  }
  os << "</table>\n";
}

// Waits in seconds, minutes or hours, as long as they are.
void RenderWaits(const Json& summary, std::ostringstream& os) {
  os << "<h2>Wait time (arrival to running)</h2>\n<table id=\"waits\">\n<tr><th>queue</th>"
        "<th>count</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n";
  for (const auto& [q, v] : summary["wait_seconds"].items()) {
    os << "<tr><td>" << HtmlEscape(q) << "</td><td>" << v["count"].dump() << "</td>";
    for (const char* k : {"p50", "p90", "p99", "max"})
      os << "<td>" << FormatDuration(v[k].get<int64_t>()) << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n";
}

void RenderTides(const Json& summary, std::ostringstream& os) {
  if (summary["tides"].empty()) return;
  os << "<h2>Tides</h2>\n<table>\n<tr><th>peak</th><th>inference GPUs</th><th>training "
        "GPUs</th><th>reclaims while rising</th><th>trough</th><th>inference GPUs</th>"
        "<th>training GPUs</th></tr>\n";
  for (const auto& w : summary["tides"]) {
    os << "<tr><td>" << FormatSimTime(w["peak_t"].get<int64_t>()) << "</td><td>"
       << w["inference_gpus_at_peak"].dump() << "</td><td>" << w["training_gpus_at_peak"].dump()
       << "</td><td>" << w["reclaim_evictions_rising"].dump() << "</td><td>"
       << FormatSimTime(w["trough_t"].get<int64_t>()) << "</td><td>"
       << w["inference_gpus_at_trough"].dump() << "</td><td>" << w["training_gpus_at_trough"].dump()
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

// Why GPUs were idle while jobs waited (sim/idle_reasons.h), with the numbers
// of the sample where each reason left the most GPUs idle.
void RenderIdleGpus(const Json& summary, std::ostringstream& os) {
  if (!summary.contains("idle_gpus_while_waiting")) return;
  const Json& idle = summary["idle_gpus_while_waiting"];
  os << "<h2>Idle GPUs while jobs waited</h2>\n";
  if (idle["samples"].get<int64_t>() == 0) {
    os << "<p id=\"idle-gpus\">No sample had free GPUs while GPU pods waited.</p>\n";
    return;
  }
  os << "<p id=\"idle-gpus\">" << idle["samples"].dump()
     << " samples had free GPUs while GPU pods waited: " << idle["idle_gpu_hours"].dump()
     << " GPU-hours idle. Each sample counts under the reason most waiting jobs had.</p>\n"
        "<table id=\"idle-reasons\">\n<tr><th>reason</th><th>samples</th><th>idle GPU-hours</th>"
        "<th>most idle GPUs</th><th>example</th></tr>\n";
  static const std::map<std::string, std::string> kWhat = {
      {"fragmentation", "fragmentation: free GPUs spread so no node fits the smallest waiting pod"},
      {"quota", "quota: the queue's capability or deserved share is reached"},
      {"gang_size", "gang size: the gang needs more GPUs than are free in total"},
      {"other", "other: selectors, CPU or memory, or the next cycle"}};
  for (const auto& [reason, v] : idle["reasons"].items()) {
    if (v["samples"].get<int64_t>() == 0) continue;
    os << "<tr><td>" << HtmlEscape(kWhat.at(reason)) << "</td><td>" << v["samples"].dump()
       << "</td><td>" << v["idle_gpu_hours"].dump() << "</td><td>" << v["max_idle_gpus"].dump()
       << "</td><td class=\"text\">" << HtmlEscape(v.value("example", std::string()))
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

}  // namespace

std::string RenderReport(const nlohmann::ordered_json& summary,
                         const nlohmann::ordered_json& metrics, const std::string& chart_library,
                         const std::string& chart_name) {
  const bool have_charts = !chart_library.empty() && chart_name != "missing";
  const std::string title =
      "basalt simulate: " + summary.value("scenario", std::string("scenario"));
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << HtmlEscape(title)
     << "</"
        "title>\n<style>\nbody{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:"
        "collapse;"
        "margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px "
        "8px;text-align:right}th{background:#f3f3f3}"
        "td:first-child,th:first-child,td.text{text-align:left}.warn{background:#fff3cd;padding:"
        "8px;border:"
        "1px solid #e0c060}"
        "canvas{display:block;margin:12px 0;border:1px solid #eee}\n</style>\n</head>\n<body "
        "data-charts-rendered=\"0\">\n";
  os << "<h1>" << HtmlEscape(title) << "</h1>\n";
  const int64_t duration = summary.value("duration_seconds", int64_t{0});
  os << "<p>seed " << summary.value("seed", uint64_t{0}) << ", " << FormatDuration(duration)
     << " simulated (" << duration << " s); charts: " << HtmlEscape(chart_name) << "</p>\n";
  if (!have_charts) {
    os << "<p class=\"warn\" id=\"charts-missing\">The charts library is missing: this basalt was "
          "built without "
          "network access to the npm registry, so the report shows tables only. Rebuild with npm "
          "available "
          "to get charts.</p>\n";
  }
  RenderSummary(summary, os);
  RenderUtilisation(summary, metrics, os);
  RenderQueues(summary, os);
  RenderWaits(summary, os);
  RenderTides(summary, os);
  RenderIdleGpus(summary, os);
  const bool colocation = summary.contains("colocation");
  if (colocation) RenderColocation(summary["colocation"], os);
  os << RenderTopologySection(summary);  // empty without a topology section
  os << "<h2>Charts</h2>\n";
  for (const char* id : {"chart-util", "chart-queues", "chart-pending", "chart-evictions"}) {
    os << "<canvas id=\"" << id << "\" class=\"chart\" width=\"1100\" height=\"320\"></canvas>\n";
  }
  if (colocation) {
    os << "<canvas id=\"chart-colocation\" class=\"chart\" width=\"1100\" "
          "height=\"360\"></canvas>\n";
  }
  os << "<script type=\"application/json\" id=\"metrics\">" << ScriptSafe(metrics.dump())
     << "</script>\n";
  os << "<script type=\"application/json\" id=\"chart-spec\">"
     << ScriptSafe(ChartSpecJson(metrics, summary.value("duration_seconds", int64_t{0})).dump())
     << "</script>\n";
  os << "<script type=\"application/json\" id=\"summary\">" << ScriptSafe(summary.dump())
     << "</script>\n";
  if (have_charts) os << "<script>\n" << ScriptSafe(chart_library) << "\n</script>\n";
  os << "<script>" << kReportPageScript << (colocation ? kColocationScript : "")
     << kMarkRenderedChartsScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace basalt
