#include "sim/topology_report.h"

#include <cstdio>
#include <sstream>

#include "sim/html_text.h"
#include "sim/report_format.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

std::string Cell(const Json& v) {
  if (v.is_null()) return "<td></td>";
  return "<td>" + HtmlEscape(v.is_string() ? v.get<std::string>() : v.dump()) + "</td>";
}

// A wait in seconds, minutes or hours as long as it is.
std::string WaitCell(const Json& seconds) {
  if (!seconds.is_number_integer()) return Cell(seconds);
  return Cell(FormatDuration(seconds.get<int64_t>()));
}

double GpuUtilisation(const Json& summary) {
  const Json& util = summary["utilization"];
  if (!util.contains("nvidia.com/gpu")) return 0;
  return util["nvidia.com/gpu"].value("mean", 0.0);
}

void OverallTable(const Json& summary, const Json& t, std::ostringstream& os) {
  os << "<table id=\"topology-summary\">\n<tr><th>metric</th><th>value</th></tr>\n";
  for (const char* k :
       {"jobs_submitted", "jobs_placed", "jobs_never_placed", "within_one_leaf", "fewest_leaves",
        "mean_tier_spanned", "mean_leaves", "mean_extra_leaves", "hard_above_allowed_tier"}) {
    os << "<tr><td>" << k << "</td>" << Cell(t[k]) << "</tr>\n";
  }
  for (const char* k : {"p50", "p90", "max"}) {
    os << "<tr><td>job wait " << k << "</td>" << WaitCell(t["wait_seconds"][k]) << "</tr>\n";
  }
  os << "<tr><td>GPU utilisation (mean)</td>" << Cell(FormatPercent(GpuUtilisation(summary)))
     << "</tr>\n";
  os << "</table>\n";
}

void GangSizeTable(const Json& t, std::ostringstream& os) {
  os << "<h3>By gang size</h3>\n<table id=\"topology-by-size\">\n<tr><th>pods</th>"
        "<th>placed</th><th>never placed</th><th>within one leaf</th><th>fewest leaves</th>"
        "<th>mean tier spanned</th><th>mean leaves</th><th>wait p50</th>"
        "<th>wait p90</th></tr>\n";
  for (const Json& row : t["by_gang_size"]) {
    os << "<tr>" << Cell(row["pods"]) << Cell(row["jobs_placed"]) << Cell(row["jobs_never_placed"])
       << Cell(row["within_one_leaf"]) << Cell(row["fewest_leaves"])
       << Cell(row["mean_tier_spanned"]) << Cell(row["mean_leaves"])
       << WaitCell(row["wait_seconds"]["p50"]) << WaitCell(row["wait_seconds"]["p90"]) << "</tr>\n";
  }
  os << "</table>\n";
}

void TierTable(const Json& t, std::ostringstream& os) {
  os << "<h3>Jobs by the tier their pods span</h3>\n<table id=\"topology-by-tier\">\n"
        "<tr><th>tier</th><th>name</th><th>jobs</th></tr>\n";
  const int64_t above = t.value("top_tier", int64_t{0}) + 1;
  for (const auto& [tier, count] : t["jobs_by_tier_spanned"].items()) {
    std::string name = t["tier_names"].value(tier, std::string());
    if (std::stoll(tier) == above) name = "more than one top-tier HyperNode";
    os << "<tr><td>" << HtmlEscape(tier) << "</td><td>" << HtmlEscape(name) << "</td>"
       << Cell(count) << "</tr>\n";
  }
  os << "</table>\n";
}

void PerJobTable(const Json& t, std::ostringstream& os) {
  const Json& rows = t["placements"];
  os << "<details>\n<summary>Per job (" << rows.size() << ")</summary>\n"
     << "<table id=\"topology-jobs\">\n<tr>";
  for (const Json& c : t["placement_columns"])
    os << "<th>" << HtmlEscape(c.get<std::string>()) << "</th>";
  os << "</tr>\n";
  for (const Json& row : rows) {
    os << "<tr>";
    for (const Json& v : row) os << Cell(v);
    os << "</tr>\n";
  }
  os << "</table>\n</details>\n";
}

}  // namespace

std::string RenderTopologySection(const Json& summary) {
  if (!summary.contains("topology")) return "";
  const Json& t = summary["topology"];
  std::ostringstream os;
  os << "<h2>Network topology</h2>\n<p>Training jobs' constraint: <b>"
     << HtmlEscape(t.value("jobs", std::string())) << "</b>; " << t["hypernodes"].dump()
     << " HyperNodes, top tier " << t["top_tier"].dump()
     << ". Each job's placement is read when its gang first runs: the tier of the lowest "
        "HyperNode holding all its pods (top tier + 1: none does) and the leaves it uses "
        "against the fewest that could hold it in an empty cluster.</p>\n";
  OverallTable(summary, t, os);
  GangSizeTable(t, os);
  TierTable(t, os);
  PerJobTable(t, os);
  return os.str();
}

std::string TopologySummaryLine(const Json& summary) {
  if (!summary.contains("topology")) return "";
  const Json& t = summary["topology"];
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "topology (jobs %s): %lld of %lld jobs placed, %.1f%% within one leaf, mean tier "
                "spanned %.2f, %.1f%% on the fewest leaves, hard above allowed tier %lld; job wait "
                "p50 %llds p90 %llds; GPU utilisation %.1f%%",
                t.value("jobs", std::string()).c_str(),
                static_cast<long long>(t.value("jobs_placed", int64_t{0})),
                static_cast<long long>(t.value("jobs_submitted", int64_t{0})),
                100 * t.value("within_one_leaf", 0.0), t.value("mean_tier_spanned", 0.0),
                100 * t.value("fewest_leaves", 0.0),
                static_cast<long long>(t.value("hard_above_allowed_tier", int64_t{0})),
                static_cast<long long>(t["wait_seconds"].value("p50", int64_t{0})),
                static_cast<long long>(t["wait_seconds"].value("p90", int64_t{0})),
                100 * GpuUtilisation(summary));
  return buf;
}

}  // namespace basalt
