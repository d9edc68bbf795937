#include "sim/traces.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "api/file_text.h"
#include "sim/csv_table.h"
#include "sim/workload.h"

namespace basalt {
namespace {

int64_t MapTime(const TraceWorkload& w, int64_t trace_t) {
  return std::llround(static_cast<double>(std::max<int64_t>(0, trace_t - w.time_offset)) *
                      w.time_scale);
}

const std::string* QueueFor(const TraceWorkload& w, const std::string& cls) {
  auto it = w.queue_by_class.find(cls);
  if (it == w.queue_by_class.end()) it = w.queue_by_class.find("*");
  return it == w.queue_by_class.end() ? nullptr : &it->second;
}

void ApplyNodeSelector(const TraceWorkload& w, const std::string& cls, Pod& pod) {
  auto it = w.node_selector_by_class.find(cls);
  if (it == w.node_selector_by_class.end()) it = w.node_selector_by_class.find("*");
  if (it == w.node_selector_by_class.end()) return;
  for (const auto& [k, v] : it->second) pod.spec.node_selector[k] = v;
}

ResourceId kGpu() { return ResourceNames::Intern("nvidia.com/gpu"); }

}  // namespace

Result<std::vector<Node>> ParseOpenbNodes(const std::string& text, const std::string& file,
                                          int32_t limit, const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(
      CsvTable csv, CsvTable::Parse(text, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}));
  std::vector<Node> nodes;
  for (const CsvTable::Row& r : csv.rows()) {
    if (limit > 0 && static_cast<int32_t>(nodes.size()) >= limit) break;
    Node n;
    n.meta.name = csv.Cell(r, "sn");
    if (n.meta.name.empty()) return csv.Error(r, "sn", "empty node name");
    n.meta.source = file + ":row " + std::to_string(r.line);
    int64_t cpu = 0, mem = 0, gpu = 0;
    BASALT_ASSIGN_OR_RETURN(cpu, csv.Int(r, "cpu_milli", 0, int64_t{1} << 40));
    BASALT_ASSIGN_OR_RETURN(mem, csv.Int(r, "memory_mib", 0, int64_t{1} << 30));
    BASALT_ASSIGN_OR_RETURN(gpu, csv.Int(r, "gpu", 0, 1024));
    n.allocatable.Set(ResourceNames::kCpu, cpu);
    n.allocatable.Set(ResourceNames::kMemory, mem * 1024 * 1024);
    n.allocatable.Set(ResourceNames::kPods, 110);
    if (gpu > 0) n.allocatable.Set(kGpu(), gpu * 1000);
    const std::string& model = csv.Cell(r, "model");
    if (!model.empty()) n.meta.labels[card_label] = model;
    n.capacity = n.allocatable;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

Result<std::vector<TracePod>> ParseOpenbPods(const std::string& text, const std::string& file,
                                             const TraceWorkload& w,
                                             const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(
      CsvTable csv, CsvTable::Parse(text, file,
                                    {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli",
                                     "gpu_spec", "qos", "creation_time", "deletion_time"}));
  std::vector<TracePod> out;
  for (const CsvTable::Row& r : csv.rows()) {
    if (w.max_rows > 0 && static_cast<int32_t>(out.size()) >= w.max_rows) break;
    TracePod tp;
    Pod& pod = tp.pod;
    pod.meta.name = csv.Cell(r, "name");
    if (pod.meta.name.empty()) return csv.Error(r, "name", "empty pod name");
    pod.meta.namespace_ = w.namespace_;
    pod.meta.uid = "trace-" + pod.meta.name;
    pod.meta.source = file + ":row " + std::to_string(r.line);
    int64_t cpu = 0, mem = 0, ngpu = 0, gmilli = 0, created = 0, deleted = 0;
    BASALT_ASSIGN_OR_RETURN(cpu, csv.Int(r, "cpu_milli", 0, int64_t{1} << 40));
    BASALT_ASSIGN_OR_RETURN(mem, csv.Int(r, "memory_mib", 0, int64_t{1} << 30));
    BASALT_ASSIGN_OR_RETURN(ngpu, csv.Int(r, "num_gpu", 0, 64));
    BASALT_ASSIGN_OR_RETURN(gmilli, csv.Int(r, "gpu_milli", 0, 1000));
    BASALT_ASSIGN_OR_RETURN(created, csv.Seconds(r, "creation_time"));
    BASALT_ASSIGN_OR_RETURN(deleted, csv.Seconds(r, "deletion_time", true));
    if (ngpu > 1 && gmilli != 1000)
      return csv.Error(r, "gpu_milli", "must be 1000 when num_gpu > 1");
    if (ngpu > 0 && gmilli == 0)
      return csv.Error(r, "gpu_milli", "must be positive when num_gpu > 0");
    if (deleted >= 0 && deleted < created)
      return csv.Error(r, "deletion_time", "before creation_time");
    const std::string& qos = csv.Cell(r, "qos");
    const std::string* queue = QueueFor(w, qos);
    if (!queue)
      return csv.Error(r, "qos",
                       "no queue rule for \"" + qos + "\" (add it, or \"*\", to queues:)");
    pod.meta.annotations["scheduling.volcano.sh/queue-name"] = *queue;
    ApplyNodeSelector(w, qos, pod);
    pod.spec.scheduler_name = "volcano";
    pod.spec.request.Set(ResourceNames::kCpu, cpu);
    pod.spec.request.Set(ResourceNames::kMemory, mem * 1024 * 1024);
    pod.spec.request.Set(ResourceNames::kPods, 1);
    if (ngpu > 0) pod.spec.request.Set(kGpu(), ngpu * gmilli);
    if (!w.priority_class.empty()) pod.spec.priority_class_name = w.priority_class;
    const std::string& spec = csv.Cell(r, "gpu_spec");
    if (!spec.empty()) {
      NodeSelectorRequirement req{card_label, "In", {}};
      std::string::size_type s = 0;
      while (true) {
        auto bar = spec.find('|', s);
        std::string m = spec.substr(s, bar == std::string::npos ? std::string::npos : bar - s);
        if (m.empty()) return csv.Error(r, "gpu_spec", "empty model in \"" + spec + "\"");
        req.values.push_back(m);
        if (bar == std::string::npos) break;
        s = bar + 1;
      }
      pod.spec.required_node_affinity.push_back(NodeSelectorTerm{{req}, {}});
    }
    tp.arrive = MapTime(w, created);
    pod.meta.creation_timestamp = kSimEpoch + tp.arrive;
    tp.run_for = deleted >= 0
                     ? std::max<int64_t>(
                           1, std::llround(static_cast<double>(deleted - created) * w.time_scale))
                     : w.default_duration;
    out.push_back(std::move(tp));
  }
  return out;
}

Result<std::vector<TracePod>> ParseDlrmInference(const std::string& text, const std::string& file,
                                                 const TraceWorkload& w,
                                                 const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(
      CsvTable csv,
      CsvTable::Parse(text, file,
                      {"instance_sn", "role", "app_name", "cpu_request", "gpu_request",
                       "memory_request", "creation_time", "deletion_time"}));
  std::vector<TracePod> out;
  for (const CsvTable::Row& r : csv.rows()) {
    if (w.max_rows > 0 && static_cast<int32_t>(out.size()) >= w.max_rows) break;
    TracePod tp;
    Pod& pod = tp.pod;
    pod.meta.name = csv.Cell(r, "instance_sn");
    if (pod.meta.name.empty()) return csv.Error(r, "instance_sn", "empty instance name");
    const std::string& app = csv.Cell(r, "app_name");
    if (app.empty()) return csv.Error(r, "app_name", "empty");
    const std::string& role = csv.Cell(r, "role");
    if (role != "CN" && role != "HN")
      return csv.Error(r, "role", "must be CN or HN, got \"" + role + "\"");
    pod.meta.namespace_ = w.namespace_;
    pod.meta.uid = "trace-" + pod.meta.name;
    pod.meta.source = file + ":row " + std::to_string(r.line);
    double cpu = 0, mem = 0;
    int64_t gpu = 0, created = 0, deleted = 0;
    BASALT_ASSIGN_OR_RETURN(cpu, csv.Double(r, "cpu_request", 0, 1e6));
    BASALT_ASSIGN_OR_RETURN(mem, csv.Double(r, "memory_request", 0, 1e7));
    BASALT_ASSIGN_OR_RETURN(gpu, csv.Int(r, "gpu_request", 0, 64));
    BASALT_ASSIGN_OR_RETURN(created, csv.Seconds(r, "creation_time", true));
    BASALT_ASSIGN_OR_RETURN(deleted, csv.Seconds(r, "deletion_time", true));
    if (created >= 0 && deleted >= 0 && deleted < created)
      return csv.Error(r, "deletion_time", "before creation_time");
    const std::string* queue = QueueFor(w, role);
    if (!queue)
      return csv.Error(r, "role",
                       "no queue rule for \"" + role + "\" (add it, or \"*\", to queues:)");
    pod.meta.annotations["scheduling.volcano.sh/queue-name"] = *queue;
    ApplyNodeSelector(w, role, pod);
    // One ReplicaSet per app and role (`<app>-cn`, `<app>-hn`): its pods share
    // a PodGroup, as a Deployment's would; an app's CPU and GPU halves are two
    // services, in the queues their roles map to.
    const std::string rs = app + (role == "HN" ? "-hn" : "-cn");
    pod.meta.owner_references.push_back({"apps/v1", "ReplicaSet", rs, "trace-rs-" + rs, true});
    pod.spec.scheduler_name = "volcano";
    pod.spec.request.Set(ResourceNames::kCpu, std::llround(cpu * 1000));
    pod.spec.request.Set(ResourceNames::kMemory, std::llround(mem * 1024) * 1024 * 1024);
    pod.spec.request.Set(ResourceNames::kPods, 1);
    if (gpu > 0) {
      pod.spec.request.Set(kGpu(), gpu * 1000);
      if (!w.card_model.empty()) pod.spec.node_selector[card_label] = w.card_model;
    }
    if (!w.priority_class.empty()) pod.spec.priority_class_name = w.priority_class;
    tp.arrive = created < 0 ? 0 : MapTime(w, created);
    tp.delete_at = deleted < 0 ? -1 : std::max(tp.arrive + 1, MapTime(w, deleted));
    pod.meta.creation_timestamp = kSimEpoch + tp.arrive;
    out.push_back(std::move(tp));
  }
  return out;
}

Result<std::vector<Node>> LoadOpenbNodes(const std::string& path, int32_t limit,
                                         const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path, "trace file"));
  return ParseOpenbNodes(text, path, limit, card_label);
}

Result<std::vector<TracePod>> LoadOpenbPods(const TraceWorkload& w, const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(w.path, "trace file"));
  return ParseOpenbPods(text, w.path, w, card_label);
}

Result<std::vector<TracePod>> LoadDlrmInference(const TraceWorkload& w,
                                                const std::string& card_label) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(w.path, "trace file"));
  return ParseDlrmInference(text, w.path, w, card_label);
}

}  // namespace basalt
