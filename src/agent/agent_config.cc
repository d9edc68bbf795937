#include "agent/agent_config.h"

#include <functional>
#include <map>

#include "api/file_text.h"
#include "api/go_duration.h"
#include "api/quantity.h"
#include "api/yaml_json.h"

namespace basalt::agent {
namespace {

using Json = nlohmann::json;

// A value as the message shows it. A configuration file is not always valid
// UTF-8: invalid bytes are shown replaced instead of making dump() throw.
std::string Shown(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Walks one mapping of the file: each known key has a reader; anything else
// is an error naming the field.
class Section {
 public:
  Section(const Json& value, std::string path, std::string where)
      : value_(value), path_(std::move(path)), where_(std::move(where)) {}

  Status Check() const {
    if (!value_.is_object()) return Error(path_.empty() ? "(top)" : path_, "want a mapping");
    return Status::Ok();
  }
  std::string Field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  Status Error(const std::string& field, const std::string& message) const {
    return Status::InvalidArgument(where_ + ": " + field + ": " + message);
  }
  const Json* Get(const std::string& key) const {
    auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  Status Unknown(const std::vector<std::string>& known) const {
    for (const auto& [key, _] : value_.items()) {
      bool ok = false;
      for (const auto& k : known) ok = ok || k == key;
      if (!ok) return Error(Field(key), "unknown field");
    }
    return Status::Ok();
  }
  Status Bool(const std::string& key, bool* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (!v->is_boolean()) return Error(Field(key), "want true or false, got " + Shown(*v));
    *out = v->get<bool>();
    return Status::Ok();
  }
  Status Percent(const std::string& key, int* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (!v->is_number_integer() || v->get<int64_t>() < 0 || v->get<int64_t>() > 100) {
      return Error(Field(key), "want a whole number from 0 to 100, got " + Shown(*v));
    }
    *out = v->get<int>();
    return Status::Ok();
  }
  Status Duration(const std::string& key, int64_t* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (!v->is_string()) return Error(Field(key), "want a duration such as 10s, got " + Shown(*v));
    auto d = ParseGoDuration(v->get<std::string>(), where_ + ": " + Field(key));
    if (!d.ok()) return d.status();
    if (*d <= 0) return Error(Field(key), "want a positive duration, got " + Shown(*v));
    *out = *d;
    return Status::Ok();
  }
  Status Quantity(const std::string& key, bool milli, int64_t* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    std::string text = v->is_string() ? v->get<std::string>() : Shown(*v);
    auto q = milli ? ParseQuantityMilli(text) : ParseQuantityUnits(text);
    if (!q.ok()) return Error(Field(key), q.status().message());
    if (*q < 0) return Error(Field(key), "want a quantity of 0 or more, got " + text);
    *out = *q;
    return Status::Ok();
  }
  Status Integer(const std::string& key, int64_t lo, int64_t hi, int64_t* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (!v->is_number_integer() || v->get<int64_t>() < lo || v->get<int64_t>() > hi) {
      return Error(Field(key), "want a whole number from " + std::to_string(lo) + " to " +
                                   std::to_string(hi) + ", got " + Shown(*v));
    }
    *out = v->get<int64_t>();
    return Status::Ok();
  }
  Status Choice(const std::string& key, const std::vector<std::string>& choices,
                std::string* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    for (const auto& c : choices) {
      if (v->is_string() && v->get<std::string>() == c) {
        *out = c;
        return Status::Ok();
      }
    }
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : " or ") + c;
    return Error(Field(key), "want " + list + ", got " + Shown(*v));
  }
  Section Child(const std::string& key) const {
    const Json* v = Get(key);
    static const Json kEmpty = Json::object();
    return Section(v ? *v : kEmpty, Field(key), where_);
  }

 private:
  const Json& value_;
  std::string path_;
  std::string where_;
};

Status ParseTop(const Section& top, AgentConfig* c) {
  BASALT_RETURN_IF_ERROR(top.Check());
  BASALT_RETURN_IF_ERROR(top.Unknown({"mode", "samplingPeriod", "window", "cgroup",
                                      "oversubscription", "eviction", "throttling", "isolation"}));
  std::string mode = c->mode == ReportMode::kExtend ? "extend" : "native";
  BASALT_RETURN_IF_ERROR(top.Choice("mode", {"extend", "native"}, &mode));
  c->mode = mode == "extend" ? ReportMode::kExtend : ReportMode::kNative;
  BASALT_RETURN_IF_ERROR(top.Duration("samplingPeriod", &c->sampling_period_nanos));
  BASALT_RETURN_IF_ERROR(top.Duration("window", &c->window_nanos));
  if (c->window_nanos < c->sampling_period_nanos) {
    return top.Error("window", "want at least one sampling period");
  }
  Section cg = top.Child("cgroup");
  BASALT_RETURN_IF_ERROR(cg.Check());
  BASALT_RETURN_IF_ERROR(cg.Unknown({"driver", "parent"}));
  std::string driver = c->cgroup_driver == CgroupDriver::kCgroupfs ? "cgroupfs" : "systemd";
  BASALT_RETURN_IF_ERROR(cg.Choice("driver", {"cgroupfs", "systemd"}, &driver));
  c->cgroup_driver = driver == "cgroupfs" ? CgroupDriver::kCgroupfs : CgroupDriver::kSystemd;
  if (const Json* p = cg.Get("parent")) {
    if (!p->is_string() || p->get<std::string>().empty()) {
      return cg.Error(cg.Field("parent"), "want a non-empty cgroup name, got " + Shown(*p));
    }
    c->cgroup_parent = p->get<std::string>();
  }
  return Status::Ok();
}

Status ParseOversubscription(const Section& s, AgentConfig* c) {
  BASALT_RETURN_IF_ERROR(s.Check());
  BASALT_RETURN_IF_ERROR(s.Unknown({"enabled", "cpuMarginPercent", "memoryMarginPercent",
                                    "minReportInterval", "materialChangePercent"}));
  BASALT_RETURN_IF_ERROR(s.Bool("enabled", &c->oversubscription));
  BASALT_RETURN_IF_ERROR(s.Percent("cpuMarginPercent", &c->cpu_margin_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("memoryMarginPercent", &c->memory_margin_percent));
  BASALT_RETURN_IF_ERROR(s.Duration("minReportInterval", &c->cpu_report.min_interval_nanos));
  BASALT_RETURN_IF_ERROR(s.Percent("materialChangePercent", &c->cpu_report.material_percent));
  c->memory_report.min_interval_nanos = c->cpu_report.min_interval_nanos;
  c->memory_report.material_percent = c->cpu_report.material_percent;
  return Status::Ok();
}

Status ParseEviction(const Section& s, AgentConfig* c) {
  BASALT_RETURN_IF_ERROR(s.Check());
  BASALT_RETURN_IF_ERROR(s.Unknown({"enabled", "cpuHighWatermark", "cpuLowWatermark",
                                    "memoryHighWatermark", "memoryLowWatermark"}));
  BASALT_RETURN_IF_ERROR(s.Bool("enabled", &c->eviction));
  BASALT_RETURN_IF_ERROR(s.Percent("cpuHighWatermark", &c->cpu_watermarks.high_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("cpuLowWatermark", &c->cpu_watermarks.low_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("memoryHighWatermark", &c->memory_watermarks.high_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("memoryLowWatermark", &c->memory_watermarks.low_percent));
  if (c->cpu_watermarks.low_percent > c->cpu_watermarks.high_percent) {
    return s.Error(s.Field("cpuLowWatermark"), "above cpuHighWatermark");
  }
  if (c->memory_watermarks.low_percent > c->memory_watermarks.high_percent) {
    return s.Error(s.Field("memoryLowWatermark"), "above memoryHighWatermark");
  }
  return Status::Ok();
}

Status ParseThrottling(const Section& s, AgentConfig* c) {
  BASALT_RETURN_IF_ERROR(s.Check());
  BASALT_RETURN_IF_ERROR(s.Unknown(
      {"enabled", "engagePercent", "releasePercent", "budgetPercent", "minBeCpu", "periodMicros"}));
  BASALT_RETURN_IF_ERROR(s.Bool("enabled", &c->throttling));
  BASALT_RETURN_IF_ERROR(s.Percent("engagePercent", &c->throttle.engage_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("releasePercent", &c->throttle.release_percent));
  BASALT_RETURN_IF_ERROR(s.Percent("budgetPercent", &c->throttle.budget_percent));
  BASALT_RETURN_IF_ERROR(s.Quantity("minBeCpu", true, &c->throttle.min_be_milli));
  // The kernel takes CFS periods from 1 ms to 1 s.
  BASALT_RETURN_IF_ERROR(s.Integer("periodMicros", 1000, 1000000, &c->cfs_period_us));
  if (c->throttle.release_percent > c->throttle.engage_percent) {
    return s.Error(s.Field("releasePercent"), "above engagePercent");
  }
  return Status::Ok();
}

Status ParseIsolation(const Section& s, AgentConfig* c) {
  BASALT_RETURN_IF_ERROR(s.Check());
  BASALT_RETURN_IF_ERROR(s.Unknown(
      {"beCpuShares", "beCpuIdle", "beCpuQosLevel", "beMemoryHighPercent", "beOomKillFirst"}));
  int64_t shares = static_cast<int64_t>(c->be_cpu_shares);
  BASALT_RETURN_IF_ERROR(s.Integer("beCpuShares", 2, 262144, &shares));
  c->be_cpu_shares = static_cast<uint64_t>(shares);
  BASALT_RETURN_IF_ERROR(s.Bool("beCpuIdle", &c->be_cpu_idle));
  BASALT_RETURN_IF_ERROR(s.Bool("beCpuQosLevel", &c->be_cpu_qos_level));
  BASALT_RETURN_IF_ERROR(s.Percent("beMemoryHighPercent", &c->be_memory_high_percent));
  return s.Bool("beOomKillFirst", &c->be_oom_kill_first);
}

}  // namespace

Result<AgentConfig> ParseAgentConfig(const std::string& text, const std::string& where,
                                     const std::string& field_prefix) {
  BASALT_ASSIGN_OR_RETURN(Json doc, ParseYamlDocument(text, where));
  if (doc.is_null()) doc = Json::object();
  AgentConfig c;
  Section top(doc, field_prefix, where);
  BASALT_RETURN_IF_ERROR(ParseTop(top, &c));
  BASALT_RETURN_IF_ERROR(ParseOversubscription(top.Child("oversubscription"), &c));
  BASALT_RETURN_IF_ERROR(ParseEviction(top.Child("eviction"), &c));
  BASALT_RETURN_IF_ERROR(ParseThrottling(top.Child("throttling"), &c));
  BASALT_RETURN_IF_ERROR(ParseIsolation(top.Child("isolation"), &c));
  return c;
}

Result<AgentConfig> LoadAgentConfig(const std::string& path) {
  if (path.empty()) return AgentConfig{};
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path, "agent configuration"));
  return ParseAgentConfig(text, path);
}

}  // namespace basalt::agent
