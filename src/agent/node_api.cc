#include "agent/node_api.h"

#include "api/file_text.h"
#include "api/log.h"
#include "api/quantity.h"
#include "api/yaml_json.h"

namespace basalt::agent {
namespace {

using Json = nlohmann::json;

Status FromApi(const kube::ApiError& e) { return Status::Unavailable(e.ToString()); }

Result<int64_t> AllocatableOf(const Json& node, const char* resource, bool milli) {
  const Json alloc = node.value("status", Json::object()).value("allocatable", Json::object());
  if (!alloc.contains(resource) || !alloc[resource].is_string()) {
    return Status::InvalidArgument(std::string("Node status.allocatable.") + resource +
                                   ": missing");
  }
  std::string text = alloc[resource].get<std::string>();
  return milli ? ParseQuantityMilli(text) : ParseQuantityUnits(text);
}

}  // namespace

Json ExtendStatusPatch(int64_t cpu_milli, int64_t memory_bytes) {
  Json resources = {{kBatchCpuResource, std::to_string(cpu_milli)},
                    {kBatchMemoryResource, std::to_string(memory_bytes)}};
  return Json{{"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

Result<std::vector<AgentPod>> KubeNodeApi::ListPods() {
  auto list = client_->List("/api/v1/pods", 500, {{"fieldSelector", "spec.nodeName=" + node_}});
  if (!list.ok()) return FromApi(list.error());
  std::vector<AgentPod> pods;
  for (const Json& item : list->items) {
    auto pod = DecodeAgentPod(item);
    if (!pod.ok()) {
      Log("agent").warn("msg=\"pod skipped\" error={}", LogValue(pod.status().message()));
      continue;
    }
    pods.push_back(std::move(*pod));
  }
  return pods;
}

Status KubeNodeApi::ReportOversold(ReportMode mode, int64_t cpu_milli, int64_t memory_bytes) {
  if (mode == ReportMode::kNative) return ReportNative(cpu_milli, memory_bytes);
  auto r =
      client_->Patch("/api/v1/nodes/" + node_ + "/status",
                     ExtendStatusPatch(cpu_milli, memory_bytes), "application/merge-patch+json");
  return r.ok() ? Status::Ok() : FromApi(r.error());
}

// Native mode raises the Node's own allocatable by the oversold amount. The
// kubelet rewrites allocatable on its status updates; a value that is not the
// one last written is taken as the kubelet's new base.
Status KubeNodeApi::ReportNative(int64_t cpu_milli, int64_t memory_bytes) {
  auto node = client_->Get("/api/v1/nodes/" + node_);
  if (!node.ok()) return FromApi(node.error());
  BASALT_ASSIGN_OR_RETURN(int64_t cpu_now, AllocatableOf(*node, "cpu", true));
  BASALT_ASSIGN_OR_RETURN(int64_t memory_now, AllocatableOf(*node, "memory", false));
  std::pair<int64_t, int64_t> now{cpu_now, memory_now};
  if (!base_allocatable_ || !written_allocatable_ || now != *written_allocatable_) {
    base_allocatable_ = now;
  }
  std::pair<int64_t, int64_t> target{base_allocatable_->first + cpu_milli,
                                     base_allocatable_->second + memory_bytes};
  Json patch = {
      {"status",
       {{"allocatable",
         {{"cpu", FormatMilliDecimal(target.first)}, {"memory", std::to_string(target.second)}}}}}};
  auto r =
      client_->Patch("/api/v1/nodes/" + node_ + "/status", patch, "application/merge-patch+json");
  if (!r.ok()) return FromApi(r.error());
  written_allocatable_ = target;
  return Status::Ok();
}

Status KubeNodeApi::Evict(const AgentPod& pod, const std::string& note) {
  auto r = client_->Evict(pod.namespace_, pod.name);
  if (!r.ok()) return FromApi(r.error());
  if (r->outcome == kube::EvictOutcome::kBlockedByBudget) {
    return Status::Unavailable("eviction of " + pod.Key() +
                               " blocked by a disruption budget: " + r->message);
  }
  kube::EventSpec ev;
  ev.type = "Warning";
  ev.reason = "Evicted";
  ev.action = "Evict";
  ev.note = note;
  ev.reporting_controller = "basalt-agent";
  ev.reporting_instance = "basalt-agent-" + node_;
  ev.namespace_ = pod.namespace_;
  ev.regarding_api_version = "v1";
  ev.regarding_kind = "Pod";
  ev.regarding_name = pod.name;
  ev.regarding_uid = pod.uid;
  auto pod_event = client_->CreateEvent(ev);
  ev.namespace_ = "default";
  ev.regarding_kind = "Node";
  ev.regarding_name = node_;
  ev.regarding_uid = "";
  auto node_event = client_->CreateEvent(ev);
  // The eviction happened; a lost Event is worth a warning, not a retry.
  for (const auto* e : {&pod_event, &node_event}) {
    if (!e->ok()) {
      Log("agent").warn("msg=\"event not written\" error={}", LogValue(e->error().ToString()));
    }
  }
  return Status::Ok();
}

Result<std::vector<AgentPod>> ParseStandalonePods(const std::string& text,
                                                  const std::string& where) {
  BASALT_ASSIGN_OR_RETURN(Json doc, ParseYamlDocument(text, where));
  if (!doc.is_object() || !doc.contains("pods") || !doc["pods"].is_array()) {
    return Status::InvalidArgument(where + ": pods: want a list of pods");
  }
  std::vector<AgentPod> pods;
  for (size_t i = 0; i < doc["pods"].size(); ++i) {
    const Json& p = doc["pods"][i];
    const std::string field = where + ": pods[" + std::to_string(i) + "]";
    if (!p.is_object()) return Status::InvalidArgument(field + ": want a mapping");
    Json pod = {{"metadata",
                 {{"namespace", p.value("namespace", "default")},
                  {"name", p.value("name", "")},
                  {"uid", p.value("name", "")},
                  {"annotations", Json::object()}}},
                {"spec", {{"priority", p.value("priority", 0)}, {"containers", Json::array()}}},
                {"status", {{"phase", "Running"}, {"startTime", p.value("startTime", "")}}}};
    if (p.contains("qos")) pod["metadata"]["annotations"][kQosLevelAnnotation] = p["qos"];
    Json requests = Json::object();
    if (p.contains("cpuRequest")) requests["cpu"] = p["cpuRequest"];
    if (p.contains("memoryRequest")) requests["memory"] = p["memoryRequest"];
    pod["spec"]["containers"].push_back(
        {{"name", "main"}, {"resources", {{"requests", requests}}}});
    auto decoded = DecodeAgentPod(pod);
    if (!decoded.ok()) return decoded.status().WithContext(field);
    if (!p.contains("cgroup") || !p["cgroup"].is_string()) {
      return Status::InvalidArgument(field + ": cgroup: want the pod's group below the root");
    }
    decoded->cgroup_override = p["cgroup"].get<std::string>();
    pods.push_back(std::move(*decoded));
  }
  return pods;
}

Result<std::vector<AgentPod>> StandaloneNodeApi::ListPods() {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path_, "pod list"));
  return ParseStandalonePods(text, path_);
}

Status StandaloneNodeApi::ReportOversold(ReportMode mode, int64_t cpu_milli, int64_t memory_bytes) {
  Log("agent").info("msg=\"standalone: oversubscription not sent\" cpu={} memory={}",
                    FormatMilliDecimal(cpu_milli), FormatBinaryBytes(memory_bytes));
  return Status::Ok();
}

Status StandaloneNodeApi::Evict(const AgentPod& pod, const std::string& note) {
  Log("agent").info("msg=\"standalone: eviction not sent\" pod={} note={}", pod.Key(),
                    LogValue(note));
  return Status::Ok();
}

}  // namespace basalt::agent
