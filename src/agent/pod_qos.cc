#include "agent/pod_qos.h"

#include <ctime>

#include "api/quantity.h"

namespace basalt::agent {
namespace {

using Json = nlohmann::json;

// "2026-11-26T00:10:00Z" -> seconds since the epoch; 0 when unparsable.
int64_t ParseRfc3339Seconds(const std::string& text) {
  std::tm tm{};
  if (::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(::timegm(&tm));
}

Status AddQuantity(const Json& list, const std::string& name, bool milli, const std::string& field,
                   int64_t* sum) {
  if (!list.is_object() || !list.contains(name)) return Status::Ok();
  const Json& v = list[name];
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  auto parsed = milli ? ParseQuantityMilli(text) : ParseQuantityUnits(text);
  if (!parsed.ok()) return parsed.status().WithContext(field + "." + name);
  *sum += *parsed;
  return Status::Ok();
}

// Kubernetes' QoS class from requests and limits, for a pod whose status
// does not carry it yet.
std::string ComputeQosClass(const Json& containers) {
  bool any = false, guaranteed = true;
  for (const Json& c : containers) {
    const Json res = c.value("resources", Json::object());
    const Json req = res.value("requests", Json::object());
    const Json lim = res.value("limits", Json::object());
    if (!req.empty() || !lim.empty()) any = true;
    for (const char* r : {"cpu", "memory"}) {
      if (!lim.contains(r)) guaranteed = false;
      if (req.contains(r) && lim.contains(r) && req[r] != lim[r]) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace

const char* QosLevelName(QosLevel level) {
  switch (level) {
    case QosLevel::kLC:
      return "LC";
    case QosLevel::kHLS:
      return "HLS";
    case QosLevel::kLS:
      return "LS";
    case QosLevel::kBE:
      return "BE";
  }
  return "?";
}

bool ParseQosLevel(const std::string& text, QosLevel* level) {
  for (QosLevel l : {QosLevel::kLC, QosLevel::kHLS, QosLevel::kLS, QosLevel::kBE}) {
    if (text == QosLevelName(l)) {
      *level = l;
      return true;
    }
  }
  return false;
}

Result<AgentPod> DecodeAgentPod(const Json& pod) {
  AgentPod out;
  const Json meta = pod.value("metadata", Json::object());
  out.namespace_ = meta.value("namespace", "default");
  out.name = meta.value("name", "");
  out.uid = meta.value("uid", "");
  const std::string where = "Pod " + out.namespace_ + "/" + out.name;
  if (out.name.empty()) return Status::InvalidArgument(where + ": metadata.name: missing");
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    for (const auto& [k, v] : meta["annotations"].items()) {
      if (v.is_string()) out.annotations[k] = v.get<std::string>();
    }
  }
  const Json spec = pod.value("spec", Json::object());
  const Json status = pod.value("status", Json::object());
  out.node_name = spec.value("nodeName", "");
  if (spec.contains("priority") && spec["priority"].is_number_integer()) {
    out.priority = spec["priority"].get<int32_t>();
  }
  out.phase = status.value("phase", "Pending");
  out.start_time = ParseRfc3339Seconds(status.value("startTime", ""));
  const Json containers = spec.value("containers", Json::array());
  out.qos_class = status.value("qosClass", "");
  if (out.qos_class.empty()) out.qos_class = ComputeQosClass(containers);
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::string field = "spec.containers[" + std::to_string(i) + "].resources.requests";
    const Json req = containers[i].value("resources", Json::object()).value("requests", Json());
    auto add = [&](const char* name, bool milli, int64_t* sum) {
      return AddQuantity(req, name, milli, field, sum);
    };
    Status st = add("cpu", true, &out.cpu_request_milli);
    if (st.ok()) st = add("memory", false, &out.memory_request_bytes);
    // Volcano's batch CPU is counted in millicores: "2000" is two cores.
    if (st.ok()) st = add(kBatchCpuResource, false, &out.batch_cpu_request_milli);
    if (st.ok()) st = add(kBatchMemoryResource, false, &out.batch_memory_request_bytes);
    if (!st.ok()) return st.WithContext(where);
  }
  return out;
}

QosLevel QosLevelOf(const AgentPod& pod, std::string* why) {
  auto say = [&](const char* reason) {
    if (why) *why = reason;
  };
  auto it = pod.annotations.find(kQosLevelAnnotation);
  QosLevel level;
  if (it != pod.annotations.end() && ParseQosLevel(it->second, &level)) {
    say("annotation");
    return level;
  }
  if (pod.batch_cpu_request_milli > 0 || pod.batch_memory_request_bytes > 0) {
    say("requests oversold resources");
    return QosLevel::kBE;
  }
  if (pod.qos_class == "BestEffort") {
    say("QoS class BestEffort");
    return QosLevel::kBE;
  }
  if (pod.priority < 0) {
    say("priority below 0");
    return QosLevel::kBE;
  }
  say("default");
  return QosLevel::kLS;
}

std::string PodCgroup(const AgentPod& pod, CgroupDriver driver, const std::string& parent) {
  if (!pod.cgroup_override.empty()) return pod.cgroup_override;
  std::string tier;
  if (pod.qos_class == "BestEffort") tier = "besteffort";
  if (pod.qos_class == "Burstable") tier = "burstable";
  if (driver == CgroupDriver::kCgroupfs) {
    return parent + "/" + (tier.empty() ? "" : tier + "/") + "pod" + pod.uid;
  }
  std::string uid = pod.uid;
  for (char& c : uid) c = c == '-' ? '_' : c;
  std::string path = parent + ".slice";
  std::string prefix = parent;
  if (!tier.empty()) {
    prefix += "-" + tier;
    path += "/" + prefix + ".slice";
  }
  return path + "/" + prefix + "-pod" + uid + ".slice";
}

}  // namespace basalt::agent
