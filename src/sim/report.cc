#include "sim/report.h"

#include <sstream>

#include "sim/html_text.h"
#include "sim/topology_report.h"

namespace basalt {
namespace {

// The page script: builds the charts from the embedded data. Kept free of any
// data-dependent text so the report is a pure function of its inputs.
constexpr const char* kPageScript = R"JS(
(function () {
  const M = JSON.parse(document.getElementById('metrics').textContent);
  const S = JSON.parse(document.getElementById('summary').textContent);
  const hours = M.samples.map(s => (s.t / 3600).toFixed(2));
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                   '#bcbd22', '#17becf'];
  const charts = [];
  function line(id, title, series, opts) {
    const canvas = document.getElementById(id);
    if (typeof Chart === 'undefined') return;
    const datasets = series.map((s, i) => Object.assign({
      label: s.label, data: s.data, borderColor: palette[i % palette.length],
      backgroundColor: palette[i % palette.length] + '55', pointRadius: 0, borderWidth: 1.5, fill: !!(opts && opts.stacked)
    }, s.extra || {}));
    charts.push(new Chart(canvas, {
      type: 'line', data: {labels: hours, datasets: datasets},
      options: {animation: false, responsive: false, plugins: {title: {display: true, text: title}},
                scales: {x: {title: {display: true, text: 'simulated hours'}, ticks: {maxTicksLimit: 14}},
                         y: {stacked: !!(opts && opts.stacked), beginAtZero: true}}}
    }));
  }
  const utilKeys = Object.keys(M.samples.length ? M.samples[0].utilization : {});
  line('chart-util', 'Utilisation (allocated / allocatable)',
       utilKeys.map(k => ({label: k, data: M.samples.map(s => s.utilization[k] || 0)})));
  line('chart-queues', 'GPUs allocated per queue (stacked)',
       M.queues.map(q => ({label: q.name + (q.role ? ' (' + q.role + ')' : ''),
                           data: M.samples.map(s => s.queue_gpus[q.name] || 0)})), {stacked: true});
  line('chart-pending', 'Pending pods and jobs',
       [{label: 'pending pods', data: M.samples.map(s => s.pending_pods)},
        {label: 'pending jobs', data: M.samples.map(s => s.pending_jobs)},
        {label: 'running jobs', data: M.samples.map(s => s.running_jobs)},
        {label: 'inference replicas desired', data: M.samples.map(s => s.inference_desired)}]);
  line('chart-evictions', 'Cumulative evictions, completions, gang violations',
       [{label: 'evictions', data: M.samples.map(s => s.evictions)},
        {label: 'jobs completed', data: M.samples.map(s => s.jobs_completed)},
        {label: 'gang violations', data: M.samples.map(s => s.gang_violations)}]);
})();
)JS";

// With a `colocation:` section: requested vs used vs oversold CPU over time.
constexpr const char* kColocationScript = R"JS(
(function () {
  const M = JSON.parse(document.getElementById('metrics').textContent);
  const canvas = document.getElementById('chart-colocation');
  if (typeof Chart === 'undefined' || !canvas) return;
  const hours = M.samples.map(s => (s.t / 3600).toFixed(2));
  const series = [['cpu_capacity', 'capacity', '#7f7f7f'],
                  ['cpu_online_requested', 'online requested', '#1f77b4'],
                  ['cpu_online_used', 'online used', '#d62728'],
                  ['cpu_oversold', 'oversold (reported by the agents)', '#2ca02c'],
                  ['cpu_be_requested', 'BE requested (running)', '#ff7f0e'],
                  ['cpu_be_used', 'BE used', '#9467bd']];
  new Chart(canvas, {
    type: 'line',
    data: {labels: hours, datasets: series.map(([k, label, color]) => ({
      label: label, data: M.samples.map(s => (s.colocation || {})[k] || 0), borderColor: color,
      backgroundColor: color + '55', pointRadius: 0, borderWidth: 1.5, fill: false}))},
    options: {animation: false, responsive: false,
              plugins: {title: {display: true, text: 'Colocation: CPU cores requested, used and oversold'}},
              scales: {x: {title: {display: true, text: 'simulated hours'}, ticks: {maxTicksLimit: 14}},
                       y: {beginAtZero: true, title: {display: true, text: 'CPU cores'}}}}
  });
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
  auto row = [&](const std::string& name, const nlohmann::ordered_json& v) {
    os << "<tr><td>" << HtmlEscape(name) << "</td><td>" << v.dump() << "</td></tr>\n";
  };
  for (const auto& [k, v] : c["cpu_used_share"].items()) row("cpu used share: " + k, v);
  row("online cpu peak (cores)", c["online_cpu_peak"]["cores"]);
  row("online cpu peak (hour)", c["online_cpu_peak"]["t"].get<int64_t>() / 3600.0);
  row("online cpu peak (share of capacity)", c["online_cpu_peak"]["share_of_capacity"]);
  row("node cpu peak (%)", c["node_cpu_peak_percent"]);
  row("node periods at the cpu high watermark", c["node_periods_at_cpu_high_watermark"]);
  row("oversubscription reports", c["reports"]);
  for (const auto& [k, v] : c["be_evictions"].items()) row("BE evictions: " + k, v);
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
        "td:first-child,th:first-child{text-align:left}.warn{background:#fff3cd;padding:8px;border:"
        "1px solid #e0c060}"
        "canvas{display:block;margin:12px 0;border:1px solid #eee}\n</style>\n</head>\n<body "
        "data-charts-rendered=\"0\">\n";
  os << "<h1>" << HtmlEscape(title) << "</h1>\n";
  os << "<p>seed " << summary.value("seed", uint64_t{0}) << ", "
     << summary.value("duration_seconds", int64_t{0})
     << " simulated seconds; charts: " << HtmlEscape(chart_name) << "</p>\n";
  if (!have_charts) {
    os << "<p class=\"warn\" id=\"charts-missing\">The charts library is missing: this basalt was "
          "built without "
          "network access to the npm registry, so the report shows tables only. Rebuild with npm "
          "available "
          "to get charts.</p>\n";
  }
  os << "<h2>Summary</h2>\n<table>\n<tr><th>metric</th><th>value</th></tr>\n";
  for (const char* k : {"gang_violations", "jobs_submitted", "jobs_completed", "job_restarts"}) {
    os << "<tr><td>" << k << "</td><td>" << summary.value(k, int64_t{0}) << "</td></tr>\n";
  }
  for (const auto& [cause, n] : summary["evictions"].items()) {
    os << "<tr><td>evictions." << HtmlEscape(cause) << "</td><td>" << n.dump() << "</td></tr>\n";
  }
  os << "</table>\n<h2>Utilisation</h2>\n<table>\n<tr><th>resource</th><th>mean</th><th>max</th></"
        "tr>\n";
  for (const auto& [k, v] : summary["utilization"].items()) {
    if (k == "card_models") continue;
    os << "<tr><td>" << HtmlEscape(k) << "</td><td>" << v["mean"].dump() << "</td><td>"
       << v["max"].dump() << "</td></tr>\n";
  }
  for (const auto& [k, v] : summary["utilization"]["card_models"].items()) {
    os << "<tr><td>gpu " << HtmlEscape(k) << "</td><td>" << v["mean"].dump() << "</td><td>"
       << v["max"].dump() << "</td></tr>\n";
  }
  os << "</table>\n<h2>Queues "
        "(GPUs)</h2>\n<table>\n<tr><th>queue</th><th>role</th><th>mean</th><th>max</th>"
        "<th>deserved</th><th>capability</th></tr>\n";
  for (const auto& [q, v] : summary["queues"].items()) {
    os << "<tr><td>" << HtmlEscape(q) << "</td><td>" << HtmlEscape(v["role"].get<std::string>())
       << "</td><td>" << v["gpus_mean"].dump() << "</td><td>" << v["gpus_max"].dump() << "</td><td>"
       << v["deserved_gpus"].dump() << "</td><td>" << v["capability_gpus"].dump() << "</td></tr>\n";
  }
  os << "</table>\n<h2>Wait time (seconds, arrival to "
        "running)</h2>\n<table>\n<tr><th>queue</th><th>count</th>"
        "<th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n";
  for (const auto& [q, v] : summary["wait_seconds"].items()) {
    os << "<tr><td>" << HtmlEscape(q) << "</td>";
    for (const char* k : {"count", "p50", "p90", "p99", "max"})
      os << "<td>" << v[k].dump() << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n";
  if (!summary["tides"].empty()) {
    os << "<h2>Tides</h2>\n<table>\n<tr><th>peak (h)</th><th>inference GPUs</th><th>training "
          "GPUs</th>"
          "<th>reclaims while rising</th><th>trough (h)</th><th>inference GPUs</th><th>training "
          "GPUs</th></tr>\n";
    for (const auto& w : summary["tides"]) {
      os << "<tr><td>" << w["peak_t"].get<int64_t>() / 3600.0 << "</td><td>"
         << w["inference_gpus_at_peak"].dump() << "</td><td>" << w["training_gpus_at_peak"].dump()
         << "</td><td>" << w["reclaim_evictions_rising"].dump() << "</td><td>"
         << w["trough_t"].get<int64_t>() / 3600.0 << "</td><td>"
         << w["inference_gpus_at_trough"].dump() << "</td><td>"
         << w["training_gpus_at_trough"].dump() << "</td></tr>\n";
    }
    os << "</table>\n";
  }
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
  os << "<script type=\"application/json\" id=\"summary\">" << ScriptSafe(summary.dump())
     << "</script>\n";
  if (have_charts) os << "<script>\n" << ScriptSafe(chart_library) << "\n</script>\n";
  os << "<script>" << kPageScript << (colocation ? kColocationScript : "")
     << kMarkRenderedChartsScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace basalt
