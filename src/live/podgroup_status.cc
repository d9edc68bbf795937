#include "live/podgroup_status.h"

namespace basalt {
namespace {

using Json = nlohmann::json;

std::string StringField(const Json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int IntField(const Json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace

Json DesiredPodGroupStatus(PodGroupPhase phase, const PodGroupCounts& counts,
                           const std::string& unschedulable) {
  Json status = {{"phase", PodGroupPhaseName(phase)},
                 {"running", counts.running},
                 {"succeeded", counts.succeeded},
                 {"failed", counts.failed}};
  if (phase == PodGroupPhase::kRunning) {
    status["conditions"] = Json::array({{{"type", "Scheduled"},
                                         {"status", "True"},
                                         {"reason", "tasks in gang are ready to be scheduled"},
                                         {"message", ""}}});
  } else if (!unschedulable.empty()) {
    status["conditions"] = Json::array({{{"type", "Unschedulable"},
                                         {"status", "True"},
                                         {"reason", "NotEnoughResources"},
                                         {"message", unschedulable}}});
  }
  return status;
}

std::string PodGroupStatusText(const Json& status) {
  if (!status.is_object()) return "";
  Json canon = {{"phase", StringField(status, "phase")},
                {"running", IntField(status, "running")},
                {"succeeded", IntField(status, "succeeded")},
                {"failed", IntField(status, "failed")}};
  auto conditions = status.find("conditions");
  if (conditions != status.end() && conditions->is_array() && !conditions->empty()) {
    Json list = Json::array();
    for (const Json& c : *conditions) {
      if (!c.is_object()) continue;
      list.push_back({{"type", StringField(c, "type")},
                      {"status", StringField(c, "status")},
                      {"reason", StringField(c, "reason")},
                      {"message", StringField(c, "message")}});
    }
    canon["conditions"] = std::move(list);
  }
  return canon.dump();
}

Json PodGroupStatusPatch(Json status, const std::string& transition_time) {
  if (auto it = status.find("conditions"); it != status.end()) {
    for (Json& c : *it) c["lastTransitionTime"] = transition_time;
  }
  return Json{{"status", std::move(status)}};
}

}  // namespace basalt
