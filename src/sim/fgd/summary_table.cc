#include "sim/fgd/summary_table.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace basalt::fgd {
namespace {

using Json = nlohmann::ordered_json;

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

std::string PublishedCell(const Json& entry) {
  if (!entry.contains("published")) return "-";
  const double mean = entry["published"]["mean"].get<double>();
  return Pct(mean) + (entry.value("within_tolerance", false) ? " (ours within)" : " (ours off)");
}

}  // namespace

std::string FgdSummaryTable(const Json& summary) {
  std::vector<std::vector<std::string>> rows = {
      {"policy", "allocated", "unallocated (sd)", "fragment", "failed pods", "published"}};
  for (const auto& [policy, e] : summary["policies"].items()) {
    const double unallocated = e["mean"].get<double>();
    char failed[32];
    std::snprintf(failed, sizeof failed, "%.1f", e["failed_pods_mean"].get<double>());
    rows.push_back({policy, Pct(100.0 - unallocated),
                    Pct(unallocated) + " (" + Pct(e["sd"].get<double>()) + ")",
                    Pct(e["fragment_pct_mean"].get<double>()), failed, PublishedCell(e)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out = "fgd: " + summary.value("workload", std::string()) + ", " +
                    std::to_string(summary["seeds"].size()) + " seeds" +
                    ": GPUs at 100% arrived load\n";
  for (const auto& row : rows) {
    out += " ";
    for (size_t c = 0; c < row.size(); ++c) {
      out += " " + row[c];
      if (c + 1 < row.size()) out += std::string(width[c] - row[c].size() + 1, ' ');
    }
    out += "\n";
  }
  return out;
}

}  // namespace basalt::fgd
