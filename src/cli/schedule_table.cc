#include "cli/schedule_table.h"

#include <algorithm>
#include <vector>

namespace basalt {
namespace {

using Json = nlohmann::json;
using Row = std::vector<std::string>;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// kubectl's layout: columns left-aligned, three spaces apart.
std::string Align(const std::vector<Row>& rows) {
  std::vector<size_t> width;
  for (const Row& r : rows) {
    width.resize(std::max(width.size(), r.size()));
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const Row& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

void CycleRows(const Json& cycle, bool wide, std::vector<Row>* rows) {
  const std::string n = std::to_string(cycle.value("cycle", 0));
  auto add = [&](std::string pod, std::string node, std::string phase, std::string reason,
                 std::string type) {
    Row r{n, std::move(pod), node.empty() ? "<none>" : std::move(node), std::move(phase)};
    if (wide) r.push_back(type.empty() ? "-" : std::move(type));
    r.push_back(reason.empty() ? "-" : std::move(reason));
    rows->push_back(std::move(r));
  };
  for (const Json& b : cycle.value("binds", Json::array()))
    add(Str(b, "pod"), Str(b, "node"), "Bound", "", "");
  for (const Json& p : cycle.value("pipelined", Json::array()))
    add(Str(p, "pod"), Str(p, "node"), "Pipelined", "waits for resources being released", "");
  for (const Json& e : cycle.value("evictions", Json::array()))
    add(Str(e, "pod"), "", "Evicted", Str(e, "reason"), Str(e, "action"));
  for (const Json& e : cycle.value("events", Json::array())) {
    const std::string object = Str(e, "object");
    if (object.rfind("Pod/", 0) == 0) {
      add(object.substr(4), "", "Pending", Str(e, "message"), Str(e, "type"));
    } else if (object.rfind("PodGroup/", 0) == 0) {
      add("podgroup/" + object.substr(9), "", Str(e, "reason"), Str(e, "message"), Str(e, "type"));
    }
  }
}

}  // namespace

std::string RenderScheduleTable(const Json& decisions, const ScheduleTableOptions& options) {
  std::vector<Row> rows;
  if (!options.no_headers) {
    Row header{"CYCLE", "POD", "NODE", "PHASE"};
    if (options.wide) header.push_back("TYPE");
    header.push_back("REASON");
    rows.push_back(header);
  }
  for (const Json& cycle : decisions.value("cycles", Json::array()))
    CycleRows(cycle, options.wide, &rows);
  std::string out = Align(rows);
  if (!options.wide) return out;
  // The world after the last cycle: every pod, where it is.
  std::vector<Row> final_rows;
  if (!options.no_headers) final_rows.push_back({"FINAL POD", "NODE", "PHASE"});
  const Json final_state = decisions.value("final", Json::object());
  for (const Json& p : final_state.value("pods", Json::array())) {
    std::string node = Str(p, "node");
    final_rows.push_back({Str(p, "pod"), node.empty() ? "<none>" : node, Str(p, "phase")});
  }
  return out + "\n" + Align(final_rows);
}

}  // namespace basalt
