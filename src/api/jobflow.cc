#include "api/jobflow.h"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <set>

#include "api/decode_fields.h"

namespace basalt {
namespace {

using decode_fields::FieldError;
using decode_fields::Present;

Status ExpectMap(const YAML::Node& n, const std::string& field) {
  if (Present(n) && !n.IsMap()) return FieldError(field, "expected an object");
  return Status::Ok();
}

Status ExpectList(const YAML::Node& n, const std::string& field) {
  if (Present(n) && !n.IsSequence()) return FieldError(field, "expected a list");
  return Status::Ok();
}

Status ReadString(const YAML::Node& parent, const char* key, const std::string& path,
                  std::string* out) {
  const YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  if (!n.IsScalar()) return FieldError(path + "." + key, "expected a string");
  *out = n.Scalar();
  return Status::Ok();
}

Status ReadPort(const YAML::Node& parent, const std::string& path, int32_t* out) {
  const YAML::Node n = parent["port"];
  if (!Present(n)) return Status::Ok();
  const std::string field = path + ".port";
  if (!n.IsScalar()) return FieldError(field, "expected an integer");
  const std::string& s = n.Scalar();
  int64_t v = 0;
  if (s.empty() || s.size() > 6)
    return FieldError(field, "expected a port number (1-65535), got \"" + s + "\"");
  for (char c : s) {
    if (c < '0' || c > '9')
      return FieldError(field, "expected a port number (1-65535), got \"" + s + "\"");
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > 65535)
    return FieldError(field, "expected a port number (1-65535), got \"" + s + "\"");
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Status DecodeProbe(const YAML::Node& n, const std::string& path, FlowProbe* probe) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    if (key != "httpGetList" && key != "tcpSocketList" && key != "taskStatusList") {
      return FieldError(path + "." + key,
                        "unknown field (want httpGetList, tcpSocketList or taskStatusList)");
    }
  }
  const YAML::Node http = n["httpGetList"], tcp = n["tcpSocketList"], task = n["taskStatusList"];
  BASALT_RETURN_IF_ERROR(ExpectList(http, path + ".httpGetList"));
  BASALT_RETURN_IF_ERROR(ExpectList(tcp, path + ".tcpSocketList"));
  BASALT_RETURN_IF_ERROR(ExpectList(task, path + ".taskStatusList"));
  for (size_t i = 0; Present(http) && i < http.size(); ++i) {
    const std::string ip = Index(path + ".httpGetList", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(http[i], ip));
    FlowProbe::HttpGet h;
    BASALT_RETURN_IF_ERROR(ReadString(http[i], "taskName", ip, &h.task_name));
    BASALT_RETURN_IF_ERROR(ReadString(http[i], "path", ip, &h.path));
    BASALT_RETURN_IF_ERROR(ReadPort(http[i], ip, &h.port));
    probe->http_get_list.push_back(std::move(h));
  }
  for (size_t i = 0; Present(tcp) && i < tcp.size(); ++i) {
    const std::string ip = Index(path + ".tcpSocketList", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(tcp[i], ip));
    FlowProbe::TcpSocket t;
    BASALT_RETURN_IF_ERROR(ReadString(tcp[i], "taskName", ip, &t.task_name));
    BASALT_RETURN_IF_ERROR(ReadPort(tcp[i], ip, &t.port));
    probe->tcp_socket_list.push_back(std::move(t));
  }
  for (size_t i = 0; Present(task) && i < task.size(); ++i) {
    const std::string ip = Index(path + ".taskStatusList", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(task[i], ip));
    FlowProbe::TaskStatus t;
    BASALT_RETURN_IF_ERROR(ReadString(task[i], "taskName", ip, &t.task_name));
    BASALT_RETURN_IF_ERROR(ReadString(task[i], "phase", ip, &t.phase));
    probe->task_status_list.push_back(std::move(t));
  }
  return Status::Ok();
}

// Volcano's JobFlow admission reads the flows as a graph keyed by flow name:
// a name given twice keeps the dependencies of its last entry (earlier ones
// are not looked at), an empty list is a valid graph. Every target must be a
// flow's name, then no path may lead back to where it started. The messages
// are Volcano's, word for word.
constexpr char kNotDag[] = "jobflow Flow is not DAG";

Status CheckFlowGraph(const std::vector<Flow>& flows) {
  std::map<std::string, size_t> last_entry;
  for (size_t i = 0; i < flows.size(); ++i) last_entry[flows[i].name] = i;
  for (const auto& [name, i] : last_entry) {
    const std::vector<std::string>& targets = flows[i].targets;
    for (size_t j = 0; j < targets.size(); ++j) {
      if (last_entry.count(targets[j])) continue;
      return FieldError(Index(Index("spec.flows", i) + ".dependsOn.targets", j),
                        std::string(kNotDag) + ": vertex is not defined: " + targets[j]);
    }
  }
  // Depth-first walk; `state` 1 = on the current path, 2 = explored.
  std::map<std::string, int> state;
  std::function<bool(const std::string&)> leads_back = [&](const std::string& name) {
    state[name] = 1;
    for (const std::string& t : flows[last_entry.at(name)].targets) {
      if (state[t] == 1 || (state[t] == 0 && leads_back(t))) return true;
    }
    state[name] = 2;
    return false;
  };
  for (const auto& [name, i] : last_entry) {
    if (state[name] == 0 && leads_back(name)) return FieldError("spec.flows", kNotDag);
  }
  return Status::Ok();
}

}  // namespace

Status DecodeJobFlowSpec(const YAML::Node& doc, JobFlow* flow) {
  const YAML::Node spec = doc["spec"];
  if (!Present(spec)) return FieldError("spec", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "jobRetainPolicy", "spec", &flow->job_retain_policy));
  if (flow->job_retain_policy.empty()) flow->job_retain_policy = "retain";
  if (flow->job_retain_policy != "retain" && flow->job_retain_policy != "delete") {
    return FieldError("spec.jobRetainPolicy",
                      "must be retain or delete, got \"" + flow->job_retain_policy + "\"");
  }
  const YAML::Node flows = spec["flows"];
  BASALT_RETURN_IF_ERROR(ExpectList(flows, "spec.flows"));
  for (size_t i = 0; Present(flows) && i < flows.size(); ++i) {
    const std::string ip = Index("spec.flows", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(flows[i], ip));
    Flow f;
    BASALT_RETURN_IF_ERROR(ReadString(flows[i], "name", ip, &f.name));
    if (f.name.empty()) return FieldError(ip + ".name", "missing");
    const YAML::Node dep = flows[i]["dependsOn"];
    const std::string dp = ip + ".dependsOn";
    BASALT_RETURN_IF_ERROR(ExpectMap(dep, dp));
    if (Present(dep)) {
      const YAML::Node targets = dep["targets"];
      BASALT_RETURN_IF_ERROR(ExpectList(targets, dp + ".targets"));
      for (size_t j = 0; Present(targets) && j < targets.size(); ++j) {
        if (!targets[j].IsScalar() || targets[j].Scalar().empty()) {
          return FieldError(Index(dp + ".targets", j), "expected a flow name");
        }
        f.targets.push_back(targets[j].Scalar());
      }
      if (Present(dep["probe"])) {
        f.has_probe = true;
        BASALT_RETURN_IF_ERROR(DecodeProbe(dep["probe"], dp + ".probe", &f.probe));
      }
    }
    flow->flows.push_back(std::move(f));
  }
  return CheckFlowGraph(flow->flows);
}

Status CheckJobFlowTemplates(const std::vector<JobFlow>& flows,
                             const std::vector<VcJob>& templates) {
  std::set<std::string> known;
  for (const VcJob& t : templates) known.insert(t.meta.Key());
  for (const JobFlow& jf : flows) {
    for (size_t i = 0; i < jf.flows.size(); ++i) {
      const std::string key = jf.meta.namespace_ + "/" + jf.flows[i].name;
      if (!known.count(key)) {
        return Status::InvalidArgument(jf.meta.source + ": JobFlow " + jf.meta.Key() +
                                       ": spec.flows[" + std::to_string(i) +
                                       "].name: no JobTemplate " + key + " in the input");
      }
    }
  }
  return Status::Ok();
}

}  // namespace basalt
