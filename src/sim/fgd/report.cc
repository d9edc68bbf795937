#include "sim/fgd/report.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "api/file_text.h"
#include "sim/csv_table.h"
#include "sim/html_text.h"

namespace basalt::fgd {
namespace {

// "03-GpuClustering" -> "Clustering": the authors number their policies and
// name the two GPU-aware baselines with a "Gpu" prefix.
std::string OurPolicyName(const std::string& theirs) {
  std::string name = theirs;
  const size_t dash = name.find('-');
  if (dash != std::string::npos && dash > 0 && name.find_first_not_of("0123456789") == dash)
    name.erase(0, dash + 1);
  if (name.rfind("Gpu", 0) == 0 && name.size() > 3) name.erase(0, 3);
  return name;
}

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// The page script: draws the charts from the embedded data. It holds no data
// itself, so the page is a pure function of its inputs.
constexpr const char* kPageScript = R"JS(
(function () {
  const D = JSON.parse(document.getElementById('fgd-data').textContent);
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  const labels = D.arrived_pct;
  function chart(id, title, datasets) {
    if (typeof Chart === 'undefined') return;
    new Chart(document.getElementById(id), {
      type: 'line', data: {labels: labels, datasets: datasets},
      options: {animation: false, responsive: false,
                plugins: {title: {display: true, text: title},
                          legend: {labels: {filter: item => !item.text.startsWith('_')}}},
                scales: {x: {title: {display: true, text: 'arrived GPU load (% of capacity)'}},
                         y: {title: {display: true, text: 'unallocated GPU (% of capacity)'}}}}
    });
  }
  function line(label, values, colour, extra) {
    return Object.assign({label: label, data: values, borderColor: colour, backgroundColor: colour + '33',
                          pointRadius: 0, borderWidth: 1.5, fill: false}, extra || {});
  }
  // A band: a hidden lower edge, then the upper edge filled down to it.
  function band(name, points, colour) {
    return [line('_' + name + ' low', points.map(p => p.mean - p.sd), colour + '00', {borderWidth: 0}),
            line(name, points.map(p => p.mean + p.sd), colour + '00', {borderWidth: 0, fill: '-1',
                 backgroundColor: colour + '30'})];
  }
  const all = [];
  D.series.forEach((s, i) => {
    const colour = palette[i % palette.length];
    all.push(line(s.policy + ' (ours)', s.points.map(p => p.mean), colour));
    const pub = D.published.find(p => p.policy === s.policy);
    if (pub) all.push(line(s.policy + ' (published)', pub.points.map(p => p.mean), colour, {borderDash: [6, 4]}));
    const sets = [];
    if (pub) {
      sets.push(...band('published mean \u00b1 sd', pub.points, '#7f7f7f'));
      sets.push(line('published mean', pub.points.map(p => p.mean), '#7f7f7f', {borderDash: [6, 4]}));
    }
    sets.push(...band('ours mean \u00b1 sd', s.points, colour));
    sets.push(line('ours mean', s.points.map(p => p.mean), colour));
    chart('chart-' + i, s.policy + ': unallocated GPU over arrived load', sets);
  });
  chart('chart-all', 'All policies: ours (solid) and published (dashed)', all);
})();
)JS";

std::string Cell(const nlohmann::ordered_json& v) { return v.is_null() ? "" : v.dump(); }

}  // namespace

Result<std::vector<PublishedCurve>> LoadPublishedCurves(const std::string& allo_csv,
                                                        const std::string& workload, int from,
                                                        int to) {
  std::vector<PublishedCurve> out;
  std::optional<std::string> text = ReadFileText(allo_csv);
  if (!text) return out;  // no published results beside the trace: no band
  BASALT_ASSIGN_OR_RETURN(CsvTable table,
                          CsvTable::Parse(*text, allo_csv, {"workload", "sc_policy"}));
  std::vector<std::string> load_columns;
  for (int k = from; k <= to; ++k) {
    load_columns.push_back(std::to_string(k));
    if (!table.Has(load_columns.back())) {
      return Status::InvalidArgument(allo_csv + ":row 1: no column for arrived load " +
                                     std::to_string(k));
    }
  }
  // Per policy, in file order: the unallocated share of every run at each load.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::vector<double>>> runs;
  for (const CsvTable::Row& row : table.rows()) {
    if (table.Cell(row, "workload") != workload) continue;
    const std::string policy = OurPolicyName(table.Cell(row, "sc_policy"));
    if (!runs.count(policy)) order.push_back(policy);
    std::vector<double> values;
    for (const std::string& column : load_columns) {
      BASALT_ASSIGN_OR_RETURN(double allocated, table.Double(row, column, 0, 100));
      values.push_back(100.0 - allocated);
    }
    runs[policy].push_back(std::move(values));
  }
  for (const auto& policy : order) {
    const auto& seeds = runs[policy];
    PublishedCurve curve;
    curve.policy = policy;
    curve.seeds = static_cast<int>(seeds.size());
    for (size_t i = 0; i < load_columns.size(); ++i) {
      double mean = 0;
      for (const auto& run : seeds) mean += run[i];
      mean /= static_cast<double>(seeds.size());
      double sq = 0;
      for (const auto& run : seeds) sq += (run[i] - mean) * (run[i] - mean);
      const double sd =
          seeds.size() > 1 ? std::sqrt(sq / static_cast<double>(seeds.size() - 1)) : 0.0;
      curve.arrived_pct.push_back(from + static_cast<int>(i));
      curve.mean.push_back(Round3(mean));
      curve.sd.push_back(Round3(sd));
    }
    out.push_back(std::move(curve));
  }
  return out;
}

nlohmann::ordered_json ReportData(const nlohmann::ordered_json& summary,
                                  const std::vector<PublishedCurve>& published) {
  nlohmann::ordered_json data;
  data["workload"] = summary.value("workload", std::string());
  nlohmann::ordered_json loads = nlohmann::ordered_json::array();
  nlohmann::ordered_json series = nlohmann::ordered_json::array();
  if (summary.contains("policies")) {
    for (const auto& [policy, entry] : summary["policies"].items()) {
      nlohmann::ordered_json points = nlohmann::ordered_json::array();
      for (const auto& p : entry["curve"]) {
        if (series.empty()) loads.push_back(p["arrived_pct"]);
        points.push_back({{"arrived_pct", p["arrived_pct"]},
                          {"mean", p["unallocated_mean"]},
                          {"sd", p["unallocated_sd"]}});
      }
      series.push_back({{"policy", policy}, {"points", std::move(points)}});
    }
  }
  nlohmann::ordered_json bands = nlohmann::ordered_json::array();
  for (const auto& curve : published) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (size_t i = 0; i < curve.arrived_pct.size(); ++i) {
      points.push_back(
          {{"arrived_pct", curve.arrived_pct[i]}, {"mean", curve.mean[i]}, {"sd", curve.sd[i]}});
    }
    bands.push_back(
        {{"policy", curve.policy}, {"seeds", curve.seeds}, {"points", std::move(points)}});
  }
  data["arrived_pct"] = std::move(loads);
  data["series"] = std::move(series);
  data["published"] = std::move(bands);
  return data;
}

std::string RenderFgdReport(const nlohmann::ordered_json& summary,
                            const std::vector<PublishedCurve>& published,
                            const std::string& chart_library, const std::string& chart_name) {
  const bool have_charts = !chart_library.empty() && chart_name != "missing";
  const auto data = ReportData(summary, published);
  const std::string title = "basalt fgd: " + data["workload"].get<std::string>();
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << HtmlEscape(title)
     << "</"
        "title>\n<style>\nbody{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:"
        "collapse;"
        "margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px "
        "8px;text-align:right}th{background:#f4f4f4}"
        "td:first-child{text-align:left}canvas{display:block;margin:12px 0;border:1px solid "
        "#eee}\n</style>\n"
        "</head>\n<body data-charts-rendered=\"0\">\n";
  os << "<h1>" << HtmlEscape(title) << "</h1>\n<p>"
     << Cell(summary.value("nodes", nlohmann::ordered_json())) << " nodes, "
     << Cell(summary.value("gpus", nlohmann::ordered_json())) << " GPUs, seeds "
     << HtmlEscape(Cell(summary.value("seeds", nlohmann::ordered_json()))) << ", tune "
     << Cell(summary.value("tune", nlohmann::ordered_json()))
     << "; charts: " << HtmlEscape(chart_name) << "</p>\n";
  if (!have_charts) {
    os << "<p><b>The charts library is missing</b> from this build (it is fetched from npm when "
          "basalt is built); "
          "the tables below hold the numbers.</p>\n";
  }
  if (published.empty())
    os << "<p>No published curves were found in the trace folder for this workload.</p>\n";
  os << "<h2>Unallocated GPU at 100% arrived "
        "load</h2>\n<table>\n<tr><th>policy</th><th>mean</th><th>sd</th>"
        "<th>count</th><th>published mean</th><th>published sd</th><th>within "
        "tolerance</th></tr>\n";
  if (summary.contains("policies")) {
    for (const auto& [policy, entry] : summary["policies"].items()) {
      const auto pub = entry.value("published", nlohmann::ordered_json());
      os << "<tr><td>" << HtmlEscape(policy) << "</td><td>" << Cell(entry["mean"]) << "</td><td>"
         << Cell(entry["sd"]) << "</td><td>" << Cell(entry["count"]) << "</td><td>"
         << (pub.is_null() ? "" : Cell(pub["mean"])) << "</td><td>"
         << (pub.is_null() ? "" : Cell(pub["sd"])) << "</td><td>"
         << Cell(entry.value("within_tolerance", nlohmann::ordered_json())) << "</td></tr>\n";
    }
  }
  os << "</table>\n";
  if (summary.contains("same_ranking_as_published")) {
    os << "<p>Same ranking as published: " << summary["same_ranking_as_published"].dump()
       << "</p>\n";
  }
  os << "<h2>Unallocated GPU over arrived load</h2>\n";
  os << "<canvas id=\"chart-all\" class=\"chart\" width=\"1100\" height=\"420\"></canvas>\n";
  for (size_t i = 0; i < data["series"].size(); ++i) {
    os << "<canvas id=\"chart-" << i
       << "\" class=\"chart\" width=\"1100\" height=\"300\"></canvas>\n";
  }
  os << "<script type=\"application/json\" id=\"fgd-data\">" << ScriptSafe(data.dump())
     << "</script>\n";
  if (have_charts) os << "<script>\n" << ScriptSafe(chart_library) << "\n</script>\n";
  os << "<script>" << kPageScript << kMarkRenderedChartsScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace basalt::fgd
