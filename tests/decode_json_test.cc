// Objects from the API server decoded straight from their JSON
// (api/decode_json.h) must be the very objects the manifest decoder makes of
// the same JSON read as a YAML tree: every field of every Pod and Node, and
// the same error for a bad one. Checked on hand-made shapes covering every
// field the decoder reads and on every Pod and Node in the recorded API
// exchanges (tests/kube_fixtures).
#include "api/decode_json.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/decode.h"
#include "api/yaml_json.h"

namespace basalt {
namespace {

using Json = nlohmann::json;

// ---- every decoded field as text, so a difference shows where it is ----

std::string Show(const ObjectMeta& m) {
  std::ostringstream o;
  o << "meta{" << m.name << "|" << m.namespace_ << "|" << m.uid << "|ts=" << m.creation_timestamp
    << "|deleting=" << m.deleting << "|source=" << m.source << "|labels=";
  for (const auto& [k, v] : m.labels) o << k << "=" << v << ";";
  o << "|annotations=";
  for (const auto& [k, v] : m.annotations) o << k << "=" << v << ";";
  o << "|owners=";
  for (const OwnerReference& r : m.owner_references)
    o << r.api_version << "," << r.kind << "," << r.name << "," << r.uid << "," << r.controller
      << ";";
  return o.str() + "}";
}

std::string Show(const std::vector<NodeSelectorRequirement>& reqs) {
  std::string s;
  for (const auto& r : reqs) {
    s += r.key + " " + r.op + " [";
    for (const auto& v : r.values) s += v + ",";
    s += "];";
  }
  return s;
}

std::string Show(const NodeSelectorTerm& t) {
  return "expr{" + Show(t.match_expressions) + "} fields{" + Show(t.match_fields) + "}";
}

std::string Show(const PodSpec& s) {
  std::ostringstream o;
  o << "spec{request=" << s.request.ToString() << "|device=" << s.device_request.ToString()
    << "|prio=" << s.has_priority << "," << s.priority << "," << s.priority_class_name
    << "|node=" << s.node_name << "|sched=" << s.scheduler_name << "|selector=";
  for (const auto& [k, v] : s.node_selector) o << k << "=" << v << ";";
  o << "|required=";
  for (const auto& t : s.required_node_affinity) o << Show(t) << ";";
  o << "|preferred=";
  for (const auto& t : s.preferred_node_affinity) o << t.weight << ":" << Show(t.preference) << ";";
  o << "|tolerations=";
  for (const auto& t : s.tolerations)
    o << t.key << "," << t.op << "," << t.value << "," << t.effect << ";";
  o << "|ports=";
  for (const auto& p : s.host_ports) o << p.port << "," << p.protocol << "," << p.host_ip << ";";
  o << "|preemption=" << s.preemption_policy.value_or("(unset)") << "|gates=" << s.scheduling_gates
    << "|qos_guaranteed=" << s.qos_guaranteed << "|container_cpu=";
  for (int64_t c : s.container_milli_cpu) o << c << ",";
  return o.str() + "}";
}

std::string Show(const ClusterObjects& objs) {
  std::ostringstream o;
  for (const Pod& p : objs.pods) {
    o << "Pod " << Show(p.meta) << " " << Show(p.spec) << " phase=" << p.phase
      << " nominated=" << p.nominated_node_name << " exit=" << p.exit_code << "\n";
  }
  for (const Node& n : objs.nodes) {
    o << "Node " << Show(n.meta) << " alloc=" << n.allocatable.ToString()
      << " cap=" << n.capacity.ToString() << " unschedulable=" << n.unschedulable
      << " ready=" << n.ready << " taints=";
    for (const Taint& t : n.taints) o << t.key << "," << t.value << "," << t.effect << ";";
    o << "\n";
  }
  o << "other kinds: "
    << objs.priority_classes.size() + objs.queues.size() + objs.podgroups.size() +
           objs.jobs.size() + objs.owners.size()
    << "\n";
  return o.str();
}

// What the manifest decoder makes of `object` read as a YAML tree (the
// informers' path before the JSON-native one).
std::string ViaYamlTree(const Json& object, const std::string& source) {
  YAML::Node node;
  Status built = JsonToYamlNode(object, &node, /*skip_managed_fields=*/true);
  if (!built.ok()) return "error: " + built.message();
  ClusterObjects objs;
  Status st = DecodeObject(node, source, &objs);
  return st.ok() ? Show(objs) : "error: " + st.message();
}

std::string Direct(const Json& object, const std::string& source) {
  ClusterObjects objs;
  Status st = DecodeJsonObject(object, source, &objs);
  return st.ok() ? Show(objs) : "error: " + st.message();
}

void ExpectSame(const Json& object) {
  const std::string source = "kube:test";
  EXPECT_EQ(Direct(object, source), ViaYamlTree(object, source)) << object.dump(1);
}

// ---- hand-made shapes ----

Json BasePod() {
  return Json::parse(R"({
    "kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "p", "namespace": "ns", "uid": "u-1",
                 "creationTimestamp": "2026-11-25T10:00:00Z",
                 "labels": {"app": "x", "volcano.sh/job-name": "j"},
                 "annotations": {"scheduling.k8s.io/group-name": "pg", "empty": ""},
                 "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}]},
    "spec": {"containers": [{"name": "c", "image": "i",
                             "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]},
    "status": {"phase": "Pending"}
  })");
}

Json BaseNode() {
  return Json::parse(R"({
    "kind": "Node", "apiVersion": "v1",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"},
                 "creationTimestamp": "2026-11-25T10:00:00Z"},
    "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110",
                               "nvidia.com/gpu": "8", "ephemeral-storage": "100Gi"},
               "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True"}]}
  })");
}

// `patch` merged into a copy of `base` (RFC 7386: null deletes).
Json With(Json base, const char* patch) {
  base.merge_patch(Json::parse(patch));
  return base;
}

TEST(DecodeJsonTest, PodShapesDecodeAsTheirYamlTree) {
  const char* patches[] = {
      "{}",
      // requests and limits, limits alone, extended and hugepages, ignored names
      R"({"spec": {"containers": [
          {"name": "a", "resources": {"requests": {"cpu": "1", "memory": "2Gi"},
                                      "limits": {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": 1}}},
          {"name": "b", "resources": {"limits": {"cpu": 2, "memory": "512Mi",
                                                 "hugepages-2Mi": "1Gi", "ephemeral-storage": "1Gi"}}},
          {"name": "c"}]}})",
      // init containers, a sidecar, overhead
      R"({"spec": {"initContainers": [
          {"name": "i1", "resources": {"requests": {"cpu": "4", "memory": "1Gi"}}},
          {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m"}}}],
          "overhead": {"cpu": "100m", "memory": "64Mi"}}})",
      // Guaranteed QoS (limits equal requests everywhere)
      R"({"spec": {"containers": [{"name": "g", "resources": {
          "requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "1Gi"}}}]}})",
      // tolerations of every operator and effect
      R"({"spec": {"tolerations": [
          {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
          {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
           "tolerationSeconds": 300},
          {"operator": "Exists"}, {"key": "x", "value": "y"}]}})",
      // node affinity, required and preferred, matchExpressions and matchFields
      R"({"spec": {"affinity": {"nodeAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]},
                                  {"key": "gpu", "operator": "Exists"},
                                  {"key": "cores", "operator": "Gt", "values": ["8"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n9"]}]}]},
          "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 20, "preference": {"matchExpressions": [
              {"key": "disk", "operator": "DoesNotExist"}]}}]},
          "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}}})",
      // nodeSelector, priority, priority class, scheduler, preemption, gates
      R"({"spec": {"nodeSelector": {"pool": "train", "kubernetes.io/os": "linux"},
                   "priority": 1000, "priorityClassName": "high", "schedulerName": "volcano",
                   "preemptionPolicy": "Never", "schedulingGates": [{"name": "wait"}]}})",
      R"({"spec": {"priority": -5, "preemptionPolicy": "PreemptLowerPriority"}})",
      // owner references, deletion, uid, labels with an empty value
      R"({"metadata": {"ownerReferences": [
          {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "j", "uid": "ju",
           "controller": true, "blockOwnerDeletion": true},
          {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "ru"}],
          "deletionTimestamp": "2026-11-25T11:00:00Z", "deletionGracePeriodSeconds": 30,
          "labels": {"blank": null}}})",
      // no namespace (defaults), a fractional timestamp with an offset
      R"({"metadata": {"namespace": null, "creationTimestamp": "2026-11-25T12:00:00.5+02:00"}})",
      // volumes, env, ports (host ports only count), a running pod
      R"({"spec": {"nodeName": "n1", "volumes": [{"name": "v", "emptyDir": {}}],
          "containers": [{"name": "c", "ports": [{"containerPort": 80},
                                                 {"containerPort": 9, "hostPort": 9090, "protocol": "UDP",
                                                  "hostIP": "10.0.0.1"}],
                          "env": [{"name": "A", "value": "1"}]}]},
          "status": {"phase": "Running", "podIP": "10.1.0.2", "nominatedNodeName": "n2",
                     "containerStatuses": [{"name": "c", "state": {"running": {}}}]}})",
      // a failed pod's exit code
      R"({"spec": {"nodeName": "n1"}, "status": {"phase": "Failed", "containerStatuses": [
          {"name": "c", "state": {"terminated": {"exitCode": 3, "reason": "Error"}}}]}})",
      R"({"status": {"phase": "Succeeded", "containerStatuses": []}})",
      R"({"status": null})",
      // numbers where strings are read, strings where numbers are read
      R"({"metadata": {"labels": {"n": 5, "b": true, "f": 1.5}}, "spec": {"priority": "7"}})",
      // errors: each must be refused with the same message
      R"({"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "x"}}}]}})",
      R"({"spec": {"containers": [{"name": "c", "resources": {"requests": {"gpu": "1"}}}]}})",
      R"({"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "-1"}}}]}})",
      R"({"spec": {"containers": {"name": "c"}}})",
      R"({"spec": {"containers": [{"name": "c", "resources": []}]}})",
      R"({"spec": {"tolerations": [{"key": "k", "operator": "Maybe"}]}})",
      R"({"spec": {"tolerations": [{"key": "k", "effect": "Sometimes"}]}})",
      R"({"spec": {"priority": 1.5}})",
      R"({"spec": {"priority": 99999999999}})",
      R"({"spec": {"preemptionPolicy": "Always"}})",
      R"({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
          {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Gt",
                                                        "values": ["1", "2"]}]}]}}}}})",
      R"({"spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
          [{"weight": 0, "preference": {}}]}}}})",
      R"({"spec": {"containers": [{"name": "c", "ports": [{"hostPort": 70000}]}]}})",
      R"({"spec": null})",
      R"({"spec": {"nodeSelector": ["a"]}})",
      R"({"status": {"phase": "Running"}})",
      R"({"status": {"phase": "Sleeping"}})",
      R"({"status": {"containerStatuses": [{"state": {"terminated": {"exitCode": "x"}}}]}})",
      R"({"metadata": {"name": null}})",
      R"({"metadata": {"labels": {"a": {"b": "c"}}}})",
      R"({"metadata": {"creationTimestamp": "yesterday"}})",
      R"({"metadata": {"ownerReferences": [{"name": "x"}]}})",
      R"({"metadata": {"ownerReferences": [{"kind": "Job", "name": "x", "controller": "maybe"}]}})",
      R"({"apiVersion": "v2"})",
      R"({"apiVersion": null})",
      R"({"kind": null})",
      R"({"kind": ["Pod"]})",
  };
  for (const char* patch : patches) {
    SCOPED_TRACE(patch);
    ExpectSame(With(BasePod(), patch));
  }
}

// Explicit nulls (a merge patch would delete these members instead).
TEST(DecodeJsonTest, NullMembersDecodeAsTheirYamlTree) {
  for (const char* path :
       {"/metadata/labels/blank", "/metadata/annotations", "/status", "/spec", "/spec/priority",
        "/spec/containers", "/spec/affinity", "/metadata/ownerReferences", "/status/phase"}) {
    SCOPED_TRACE(path);
    Json pod = BasePod();
    pod[Json::json_pointer(path)] = nullptr;
    ExpectSame(pod);
  }
  Json node = BaseNode();
  node["status"]["allocatable"] = nullptr;
  ExpectSame(node);
}

TEST(DecodeJsonTest, NodeShapesDecodeAsTheirYamlTree) {
  const char* patches[] = {
      "{}",
      R"({"spec": {"unschedulable": true, "taints": [
          {"key": "gpu", "value": "a100", "effect": "NoSchedule"},
          {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute",
           "timeAdded": "2026-11-25T10:00:00Z"}]}})",
      R"({"status": {"allocatable": null}})",
      R"({"status": {"conditions": [{"type": "Ready", "status": "False"},
                                    {"type": "MemoryPressure", "status": "True"}]}})",
      R"({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})",
      R"({"spec": {"podCIDR": "10.0.0.0/24", "providerID": "kwok://n1"},
          "status": {"nodeInfo": {"kubeletVersion": "v1.36.1"}, "addresses": [{"type": "InternalIP",
                                                                               "address": "10.0.0.1"}]}})",
      R"({"status": {"allocatable": {"hugepages-1Gi": "4Gi", "example.com/fpga": 2}}})",
      // errors
      R"({"status": null})",
      R"({"status": {"allocatable": {"cpu": "lots"}}})",
      R"({"spec": {"taints": [{"key": "k", "effect": "Never"}]}})",
      R"({"spec": {"taints": [{"effect": "NoSchedule"}]}})",
      R"({"spec": {"unschedulable": "perhaps"}})",
      R"({"spec": {"unschedulable": "yes"}})",
      R"({"metadata": {"name": ""}})",
  };
  for (const char* patch : patches) {
    SCOPED_TRACE(patch);
    ExpectSame(With(BaseNode(), patch));
  }
}

TEST(DecodeJsonTest, OtherKindsGoThroughTheYamlTree) {
  ExpectSame(Json::parse(R"({"kind": "Queue", "apiVersion": "scheduling.volcano.sh/v1beta1",
                             "metadata": {"name": "q"}, "spec": {"weight": 2}})"));
  ExpectSame(Json::parse(R"({"kind": "ReplicaSet", "apiVersion": "apps/v1",
                             "metadata": {"name": "rs", "namespace": "a"}})"));
  ExpectSame(Json::parse(R"({"kind": "Gadget", "apiVersion": "v1", "metadata": {"name": "g"}})"));
  ExpectSame(Json::parse(R"({"apiVersion": "v1", "metadata": {"name": "nokind"}})"));
  ExpectSame(Json::parse(R"(["not", "an", "object"])"));
}

// Every Pod and Node anywhere in the recorded exchanges: request and reply
// bodies, list items (which carry no kind of their own) and watch events.
void CollectObjects(const Json& v, const std::string& item_kind, std::vector<Json>* out) {
  if (v.is_array()) {
    for (const Json& item : v) CollectObjects(item, item_kind, out);
    return;
  }
  if (!v.is_object()) return;
  std::string kind =
      v.contains("kind") && v["kind"].is_string() ? v["kind"].get<std::string>() : "";
  if (kind.empty() && !item_kind.empty() && v.contains("metadata")) {
    Json copy = v;
    copy["kind"] = item_kind;
    copy["apiVersion"] = "v1";
    out->push_back(std::move(copy));
    return;
  }
  if ((kind == "Pod" || kind == "Node") && v.contains("metadata")) out->push_back(v);
  const std::string items_kind = kind == "PodList" ? "Pod" : kind == "NodeList" ? "Node" : "";
  for (const auto& [key, child] : v.items())
    CollectObjects(child, key == "items" ? items_kind : "", out);
}

TEST(DecodeJsonTest, RecordedPodsAndNodesDecodeAsTheirYamlTree) {
  std::vector<Json> objects;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(BASALT_SOURCE_DIR) +
                                                               "/tests/kube_fixtures")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    Json fixture = Json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (fixture.is_discarded()) continue;
    // Watch bodies are text, one event per line.
    std::vector<Json> found;
    CollectObjects(fixture, "", &found);
    for (const Json& line_text : {fixture["response"]["body"]}) {
      if (!line_text.is_string()) continue;
      std::istringstream lines(line_text.get<std::string>());
      for (std::string line; std::getline(lines, line);) {
        Json event = Json::parse(line, nullptr, false);
        if (!event.is_discarded()) CollectObjects(event, "", &found);
      }
    }
    for (Json& o : found) objects.push_back(std::move(o));
  }
  ASSERT_GE(objects.size(), 10u) << "the recorded exchanges hold Pods and Nodes";
  for (const Json& o : objects) ExpectSame(o);
}

}  // namespace
}  // namespace basalt
