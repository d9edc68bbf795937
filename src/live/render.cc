#include "live/render.h"

#include <openssl/evp.h>

#include <vector>

#include "api/quantity.h"

namespace basalt {
namespace {

// One entry of spec.subGroupPolicy, with the field names Volcano's API uses.
Json SubGroupPolicyJson(const SubGroupPolicy& p) {
  Json j = Json::object();
  if (!p.name.empty()) j["name"] = p.name;
  if (p.sub_group_size) j["subGroupSize"] = *p.sub_group_size;
  if (p.min_sub_groups) j["minSubGroups"] = *p.min_sub_groups;
  if (p.network_topology) j["networkTopology"] = NetworkTopologyJson(*p.network_topology);
  if (p.has_label_selector) {
    Json sel = Json::object();
    if (!p.match_labels.empty()) sel["matchLabels"] = p.match_labels;
    for (const NodeSelectorRequirement& r : p.match_expressions) {
      Json e = {{"key", r.key}, {"operator", r.op}};
      if (!r.values.empty()) e["values"] = r.values;
      sel["matchExpressions"].push_back(std::move(e));
    }
    j["labelSelector"] = std::move(sel);
  }
  if (!p.match_label_keys.empty()) j["matchLabelKeys"] = p.match_label_keys;
  return j;
}

Json OwnerJson(const OwnerReference& o) {
  Json j = {{"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name}, {"uid", o.uid}};
  if (o.controller) {
    j["controller"] = true;
    j["blockOwnerDeletion"] = true;
  }
  return j;
}

Json MetaJson(const ObjectMeta& m) {
  Json meta = {{"name", m.name}};
  if (!m.namespace_.empty()) meta["namespace"] = m.namespace_;
  if (!m.labels.empty()) meta["labels"] = m.labels;
  if (!m.annotations.empty()) meta["annotations"] = m.annotations;
  if (!m.owner_references.empty()) {
    Json refs = Json::array();
    for (const OwnerReference& o : m.owner_references) refs.push_back(OwnerJson(o));
    meta["ownerReferences"] = std::move(refs);
  }
  return meta;
}

std::string Base64(const std::string& raw) {
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  out.resize(n);
  return out;
}

Json VolumeJson(const PluginVolume& v) {
  Json items = Json::array();
  for (const KeyToPath& i : v.items) items.push_back({{"key", i.key}, {"path", i.path}});
  Json source;
  if (!v.secret_name.empty()) {
    source = {{"secretName", v.secret_name}};
  } else {
    source = {{"name", v.config_map_name}};
  }
  if (!items.empty()) source["items"] = std::move(items);
  if (v.default_mode != 0) source["defaultMode"] = v.default_mode;
  return {{"name", v.name}, {v.secret_name.empty() ? "configMap" : "secret", std::move(source)}};
}

Json EnvJson(const EnvVar& e) {
  if (e.config_map.empty()) return {{"name", e.name}, {"value", e.value}};
  return {
      {"name", e.name},
      {"valueFrom", {{"configMapKeyRef", {{"name", e.config_map}, {"key", e.config_map_key}}}}}};
}

// Appends the plugins' env vars, mounts and ports to the named containers,
// sets the commands they replace, and adds the init containers they add.
void AddToContainers(Json& spec, const PodPluginAdditions& additions) {
  for (const ContainerAdditions& add : additions.containers) {
    Json& list = spec[add.init ? "initContainers" : "containers"];
    if (add.added) {
      if (!list.is_array()) list = Json::array();
      list.push_back({{"name", add.name}, {"image", add.image}});
    }
    if (!list.is_array()) continue;
    for (Json& c : list) {
      if (!c.is_object() || c.value("name", "") != add.name) continue;
      for (const EnvVar& e : add.env) c["env"].push_back(EnvJson(e));
      for (const VolumeMount& m : add.mounts) {
        Json mount = {{"name", m.name}, {"mountPath", m.mount_path}};
        if (!m.sub_path.empty()) mount["subPath"] = m.sub_path;
        c["volumeMounts"].push_back(std::move(mount));
      }
      for (const ContainerPort& p : add.ports)
        c["ports"].push_back({{"name", p.name}, {"containerPort", p.container_port}});
      if (!add.command.empty()) c["command"] = add.command;
      break;
    }
  }
}

// The task's pod template in the job object: tasks are matched by name, an
// unnamed task being `default<i>` as the mutating webhook names it.
const Json* TaskTemplate(const Json& job_object, const std::string& task_name) {
  const Json* tasks = nullptr;
  if (auto spec = job_object.find("spec"); spec != job_object.end() && spec->is_object()) {
    if (auto t = spec->find("tasks"); t != spec->end() && t->is_array()) tasks = &*t;
  }
  if (tasks == nullptr) return nullptr;
  for (size_t i = 0; i < tasks->size(); ++i) {
    const Json& task = (*tasks)[i];
    if (!task.is_object()) continue;
    std::string name = task.value("name", "");
    if (name.empty()) name = "default" + std::to_string(i);
    if (name != task_name) continue;
    auto tmpl = task.find("template");
    return tmpl != task.end() && tmpl->is_object() ? &*tmpl : nullptr;
  }
  return nullptr;
}

}  // namespace

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::map<std::string, std::string> ResourceListOf(const Resource& r) {
  std::map<std::string, std::string> out;
  out["cpu"] = FormatDimension(ResourceNames::kCpu, r.milli_cpu());
  out["memory"] = FormatDimension(ResourceNames::kMemory, r.memory());
  for (const auto& [id, v] : r.scalars()) {
    if (id == ResourceNames::kPods || v == 0) continue;
    out[ResourceNames::Name(id)] = FormatDimension(id, v);
  }
  return out;
}

Json NetworkTopologyJson(const NetworkTopologySpec& topology) {
  Json out = {{"mode", topology.mode == NetworkTopologySpec::Mode::kSoft ? "soft" : "hard"}};
  if (topology.highest_tier_allowed) out["highestTierAllowed"] = *topology.highest_tier_allowed;
  if (!topology.highest_tier_name.empty()) out["highestTierName"] = topology.highest_tier_name;
  return out;
}

Json PodGroupJson(const PodGroup& pg, const OwnerReference* owner) {
  Json meta = MetaJson(pg.meta);
  if (pg.meta.owner_references.empty() && owner != nullptr)
    meta["ownerReferences"] = Json::array({OwnerJson(*owner)});
  Json spec = {{"minMember", pg.min_member}};
  // A vcjob's partitioned tasks, as Volcano's job controller writes them.
  for (const SubGroupPolicy& p : pg.sub_group_policy)
    spec["subGroupPolicy"].push_back(SubGroupPolicyJson(p));
  if (!pg.min_task_member.empty()) spec["minTaskMember"] = pg.min_task_member;
  if (!pg.queue.empty()) spec["queue"] = pg.queue;
  if (!pg.priority_class_name.empty()) spec["priorityClassName"] = pg.priority_class_name;
  if (pg.min_resources) spec["minResources"] = ResourceListOf(*pg.min_resources);
  if (pg.network_topology) spec["networkTopology"] = NetworkTopologyJson(*pg.network_topology);
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)}};
}

Result<Json> VcJobPodJson(const Json& job_object, const Pod& pod,
                          const PodPluginAdditions* additions) {
  auto task = pod.meta.labels.find("volcano.sh/task-spec");
  const std::string task_name = task == pod.meta.labels.end() ? "" : task->second;
  const Json* tmpl = TaskTemplate(job_object, task_name);
  if (tmpl == nullptr)
    return Status::InvalidArgument("Pod " + pod.meta.Key() + ": the job has no task \"" +
                                   task_name + "\" with a pod template");
  Json spec = tmpl->value("spec", Json::object());
  if (!spec.is_object()) spec = Json::object();
  spec["schedulerName"] = pod.spec.scheduler_name;
  if (!pod.spec.priority_class_name.empty())
    spec["priorityClassName"] = pod.spec.priority_class_name;
  if (additions != nullptr) {
    if (!additions->hostname.empty() && !spec.contains("hostname"))
      spec["hostname"] = additions->hostname;
    if (!additions->subdomain.empty() && !spec.contains("subdomain"))
      spec["subdomain"] = additions->subdomain;
    for (const PluginVolume& v : additions->volumes) spec["volumes"].push_back(VolumeJson(v));
    AddToContainers(spec, *additions);
  }
  // The controller's metadata already holds the template's labels and
  // annotations with Volcano's own on top; the plugins' annotations come last.
  ObjectMeta meta = pod.meta;
  if (additions != nullptr) {
    for (const auto& [k, v] : additions->annotations) meta.annotations.emplace(k, v);
  }
  return Json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", MetaJson(meta)},
              {"spec", std::move(spec)}};
}

Json ServiceJson(const Service& svc) {
  Json spec = {{"selector", svc.selector},
               {"publishNotReadyAddresses", svc.publish_not_ready_addresses}};
  if (!svc.cluster_ip.empty()) spec["clusterIP"] = svc.cluster_ip;
  for (const Service::Port& p : svc.ports) {
    spec["ports"].push_back({{"name", p.name},
                             {"port", p.port},
                             {"targetPort", p.target_port},
                             {"protocol", p.protocol}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", MetaJson(svc.meta)},
          {"spec", std::move(spec)}};
}

Json SecretJson(const Secret& secret) {
  Json data = Json::object();
  for (const auto& [k, v] : secret.data) data[k] = Base64(v);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", MetaJson(secret.meta)},
          {"type", secret.type},
          {"data", std::move(data)}};
}

Json ConfigMapJson(const ConfigMap& cm) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", MetaJson(cm.meta)},
          {"data", cm.data}};
}

Json JobActionEventJson(const JobActionEvent& event, const std::string& name,
                        const std::string& timestamp) {
  auto [ns, job] = SplitKey(event.job_key);
  Json involved = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                   {"kind", "Job"},
                   {"namespace", ns},
                   {"name", job}};
  if (!event.job_uid.empty()) involved["uid"] = event.job_uid;
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"involvedObject", std::move(involved)},
          {"reason", "ExecuteAction"},
          {"message", event.message},
          {"type", "Normal"},
          {"source", {{"component", "basalt"}}},
          {"firstTimestamp", timestamp},
          {"lastTimestamp", timestamp},
          {"count", 1}};
}

Json NetworkPolicyJson(const NetworkPolicy& np) {
  return {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "NetworkPolicy"},
      {"metadata", MetaJson(np.meta)},
      {"spec",
       {{"podSelector", {{"matchLabels", np.pod_selector}}},
        {"ingress",
         Json::array(
             {{{"from", Json::array({{{"podSelector", {{"matchLabels", np.ingress_from}}}}})}}})},
        {"policyTypes", np.policy_types}}}};
}

Json VcJobStatusJson(const VcJob& job, const JobPodCounts& counts) {
  return {{"state", {{"phase", job.phase}}},  {"retryCount", job.retry_count},
          {"version", job.version},           {"minAvailable", job.min_available},
          {"pending", counts.pending},        {"running", counts.running},
          {"succeeded", counts.succeeded},    {"failed", counts.failed},
          {"terminating", counts.terminating}};
}

Json FlowJobJson(const JobFlow& flow, const std::string& template_name,
                 const Json& template_object) {
  const std::string created_by = flow.meta.namespace_ + "." + template_name;
  Json owner = {{"apiVersion", "flow.volcano.sh/v1alpha1"},
                {"kind", "JobFlow"},
                {"name", flow.meta.name},
                {"uid", flow.meta.uid},
                {"controller", true},
                {"blockOwnerDeletion", true}};
  Json meta = {{"name", FlowJobName(flow, template_name)},
               {"namespace", flow.meta.namespace_},
               {"labels", {{kCreatedByJobTemplate, created_by}}},
               {"annotations", {{kCreatedByJobTemplate, created_by}}},
               {"ownerReferences", Json::array({owner})}};
  auto spec = template_object.is_object() ? template_object.find("spec") : template_object.end();
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", std::move(meta)},
          {"spec", spec != template_object.end() && spec->is_object() ? *spec : Json::object()}};
}

}  // namespace basalt
