#include "live/webhook_resource_groups.h"

#include <algorithm>

#include "api/file_text.h"
#include "api/yaml_json.h"

namespace basalt {
namespace {

using Json = nlohmann::json;

constexpr char kResourceGroupAnnotation[] = "volcano.sh/resource-group";

Status Bad(const std::string& where, const std::string& field, const std::string& why) {
  return Status::InvalidArgument(where + ": " + field + ": " + why);
}

Result<std::string> StringAt(const Json& obj, const char* key, const std::string& where,
                             const std::string& field) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Bad(where, field + "." + key, "expected a string");
  return it->get<std::string>();
}

Result<ResourceGroup> ParseGroup(const Json& g, const std::string& where,
                                 const std::string& field) {
  if (!g.is_object()) return Bad(where, field, "expected an object");
  ResourceGroup rg;
  BASALT_ASSIGN_OR_RETURN(rg.name, StringAt(g, "resourceGroup", where, field));
  BASALT_ASSIGN_OR_RETURN(rg.scheduler_name, StringAt(g, "schedulerName", where, field));
  BASALT_ASSIGN_OR_RETURN(rg.affinity, StringAt(g, "affinity", where, field));
  if (!rg.affinity.empty() && !Json::accept(rg.affinity))
    return Bad(where, field + ".affinity", "not JSON");
  if (auto o = g.find("object"); o != g.end() && !o->is_null()) {
    if (!o->is_object()) return Bad(where, field + ".object", "expected an object");
    BASALT_ASSIGN_OR_RETURN(rg.object_key, StringAt(*o, "key", where, field + ".object"));
    if (auto v = o->find("value"); v != o->end() && !v->is_null()) {
      if (!v->is_array()) return Bad(where, field + ".object.value", "expected a list");
      for (const Json& s : *v) {
        if (!s.is_string()) return Bad(where, field + ".object.value", "expected strings");
        rg.values.push_back(s.get<std::string>());
      }
    }
  }
  if (auto l = g.find("labels"); l != g.end() && !l->is_null()) {
    if (!l->is_object()) return Bad(where, field + ".labels", "expected a map");
    for (const auto& [k, v] : l->items()) {
      if (!v.is_string()) return Bad(where, field + ".labels." + k, "expected a string");
      rg.labels[k] = v.get<std::string>();
    }
  }
  if (auto t = g.find("tolerations"); t != g.end() && !t->is_null()) {
    if (!t->is_array()) return Bad(where, field + ".tolerations", "expected a list");
    rg.tolerations = *t;
  }
  return rg;
}

// The annotations an annotation group names: each value is a one-line YAML
// map ("key: value"); a key named twice keeps its first value. Lines that do
// not read as a map are skipped, as Volcano skips them.
std::map<std::string, std::string> GroupAnnotations(const ResourceGroup& g) {
  std::map<std::string, std::string> out;
  for (const std::string& line : g.values) {
    auto m = ParseYamlDocument(line, "annotation");
    if (!m.ok() || !m->is_object()) continue;
    for (const auto& [k, v] : m->items()) {
      if (v.is_string()) out.emplace(k, v.get<std::string>());
    }
  }
  return out;
}

std::string AnnotationOf(const Json& pod, const std::string& key) {
  const Json* md = pod.contains("metadata") ? &pod["metadata"] : nullptr;
  if (md == nullptr || !md->is_object() || !md->contains("annotations")) return "";
  const Json& a = (*md)["annotations"];
  auto it = a.is_object() ? a.find(key) : a.end();
  return a.is_object() && it != a.end() && it->is_string() ? it->get<std::string>() : "";
}

bool Belongs(const Json& pod, const std::string& ns, const ResourceGroup& g) {
  if (g.object_key == "namespace")
    return std::find(g.values.begin(), g.values.end(), ns) != g.values.end();
  if (!g.object_key.empty() && g.object_key != "annotation") return false;
  for (const auto& [k, v] : GroupAnnotations(g)) {
    if (AnnotationOf(pod, k) == v) return true;
  }
  return g.object_key.empty() && AnnotationOf(pod, kResourceGroupAnnotation) == g.name;
}

Json Add(const std::string& path, Json value) {
  return {{"op", "add"}, {"path", path}, {"value", std::move(value)}};
}

}  // namespace

Result<std::vector<ResourceGroup>> ParseResourceGroups(const std::string& text,
                                                       const std::string& where) {
  BASALT_ASSIGN_OR_RETURN(Json conf, ParseYamlDocument(text, where));
  std::vector<ResourceGroup> out;
  if (conf.is_null()) return out;  // an empty (all-comments) file: no groups
  if (!conf.is_object()) return Bad(where, "(top)", "expected a map with resourceGroups");
  auto groups = conf.find("resourceGroups");
  if (groups == conf.end() || groups->is_null()) return out;
  if (!groups->is_array()) return Bad(where, "resourceGroups", "expected a list");
  for (size_t i = 0; i < groups->size(); ++i) {
    BASALT_ASSIGN_OR_RETURN(
        ResourceGroup g,
        ParseGroup((*groups)[i], where, "resourceGroups[" + std::to_string(i) + "]"));
    out.push_back(std::move(g));
  }
  return out;
}

Result<std::vector<ResourceGroup>> LoadResourceGroups(const std::string& path) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path, "admission configuration"));
  return ParseResourceGroups(text, path);
}

Json ResourceGroupPatch(const Json& pod, const std::string& ns,
                        const std::vector<ResourceGroup>& groups) {
  Json patch = Json::array();
  const Json spec = pod.contains("spec") && pod["spec"].is_object() ? pod["spec"] : Json::object();
  for (const ResourceGroup& g : groups) {
    if (!Belongs(pod, ns, g)) continue;
    if (!pod.contains("spec") || !pod["spec"].is_object())
      patch.push_back(Add("/spec", Json::object()));
    if (!g.labels.empty()) {
      Json selector = spec.contains("nodeSelector") && spec["nodeSelector"].is_object()
                          ? spec["nodeSelector"]
                          : Json::object();
      for (const auto& [k, v] : g.labels) selector[k] = v;
      patch.push_back(Add("/spec/nodeSelector", selector));
    }
    const bool has_affinity = spec.contains("affinity") && !spec["affinity"].is_null();
    if (!g.affinity.empty() && !has_affinity)
      patch.push_back(Add("/spec/affinity", Json::parse(g.affinity)));
    if (!g.tolerations.empty()) {
      Json all = spec.contains("tolerations") && spec["tolerations"].is_array()
                     ? spec["tolerations"]
                     : Json::array();
      for (const Json& t : g.tolerations) all.push_back(t);
      patch.push_back(Add("/spec/tolerations", all));
    }
    if (!g.scheduler_name.empty()) patch.push_back(Add("/spec/schedulerName", g.scheduler_name));
    break;  // the first group the pod belongs to
  }
  return patch;
}

}  // namespace basalt
