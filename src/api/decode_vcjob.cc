// Decoding of batch.volcano.sh Jobs (vcjobs and JobTemplates) and
// bus.volcano.sh Commands, split from decode.cc.
#include <set>
#include <string>

#include "api/decode_fields.h"
#include "api/decode_objects.h"
#include "api/hypernode.h"
#include "api/job_plugin_args.h"
#include "api/subgroup.h"

namespace basalt::decode_internal {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

Status DecodePolicies(const YAML::Node& n, const std::string& path,
                      std::vector<LifecyclePolicy>* out) {
  BASALT_RETURN_IF_ERROR(ExpectList(n, path));
  if (!Present(n)) return Status::Ok();
  for (size_t i = 0; i < n.size(); ++i) {
    std::string ip = Index(path, i);
    BASALT_RETURN_IF_ERROR(ExpectMap(n[i], ip));
    LifecyclePolicy p;
    std::string event;
    BASALT_RETURN_IF_ERROR(ReadString(n[i], "event", ip, &event));
    if (!event.empty()) p.events.push_back(event);
    BASALT_ASSIGN_OR_RETURN(std::vector<std::string> events,
                            ReadStringList(n[i]["events"], Join(ip, "events")));
    p.events.insert(p.events.end(), events.begin(), events.end());
    BASALT_RETURN_IF_ERROR(ReadString(n[i], "action", ip, &p.action));
    if (Present(n[i]["exitCode"])) {
      int32_t code = 0;
      BASALT_RETURN_IF_ERROR(ReadInt(n[i], "exitCode", ip, &code));
      p.exit_code = code;
    }
    if (Present(n[i]["timeout"])) {
      std::string t;
      BASALT_RETURN_IF_ERROR(ReadString(n[i], "timeout", ip, &t));
      p.timeout = t;
    }
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

// One container of a task template as the job plugins see it: name, opened
// ports and literal env values (the shapes were checked by DecodePodSpec).
Status DecodeTemplateContainer(const YAML::Node& c, const std::string& path, bool init,
                               JobTask::TemplateContainer* out) {
  out->init = init;
  if (!c.IsMap()) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ReadString(c, "name", path, &out->name));
  if (YAML::Node ports = c["ports"]; Present(ports) && ports.IsSequence()) {
    for (size_t i = 0; i < ports.size(); ++i) {
      if (!ports[i].IsMap() || !Present(ports[i]["containerPort"])) continue;
      int32_t port = 0;
      BASALT_RETURN_IF_ERROR(
          ReadInt(ports[i], "containerPort", Index(Join(path, "ports"), i), &port));
      out->ports.push_back(port);
    }
  }
  if (YAML::Node env = c["env"]; Present(env) && env.IsSequence()) {
    for (size_t i = 0; i < env.size(); ++i) {
      if (!env[i].IsMap()) continue;
      std::string name, value;
      const std::string ep = Index(Join(path, "env"), i);
      BASALT_RETURN_IF_ERROR(ReadString(env[i], "name", ep, &name));
      if (Present(env[i]["value"])) BASALT_RETURN_IF_ERROR(ReadString(env[i], "value", ep, &value));
      out->env.emplace_back(std::move(name), std::move(value));
    }
  }
  return Status::Ok();
}

// The containers and spec.hostname/subdomain of a task template (job plugins).
Status DecodeTemplateNames(const YAML::Node& spec, const std::string& path, JobTask* t) {
  if (!Present(spec)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ReadString(spec, "hostname", path, &t->hostname));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "subdomain", path, &t->subdomain));
  for (const char* key : {"containers", "initContainers"}) {
    YAML::Node list = spec[key];
    if (!Present(list) || !list.IsSequence()) continue;  // shape checked by DecodePodSpec
    for (size_t i = 0; i < list.size(); ++i) {
      JobTask::TemplateContainer c;
      BASALT_RETURN_IF_ERROR(DecodeTemplateContainer(list[i], Index(Join(path, key), i),
                                                     std::string(key) == "initContainers", &c));
      t->containers.push_back(std::move(c));
    }
  }
  return Status::Ok();
}

Status DecodeJobVolumes(const YAML::Node& list, std::vector<JobVolume>* out) {
  BASALT_RETURN_IF_ERROR(ExpectList(list, "spec.volumes"));
  if (!Present(list)) return Status::Ok();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string vp = Index("spec.volumes", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(list[i], vp));
    JobVolume v;
    BASALT_RETURN_IF_ERROR(ReadString(list[i], "mountPath", vp, &v.mount_path));
    BASALT_RETURN_IF_ERROR(ReadString(list[i], "volumeClaimName", vp, &v.claim_name));
    v.has_claim_spec = Present(list[i]["volumeClaim"]);
    out->push_back(std::move(v));
  }
  return Status::Ok();
}

}  // namespace

Status DecodeVcJob(const YAML::Node& doc, VcJob* job) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &job->meta));
  YAML::Node spec = doc["spec"];
  if (!Present(spec)) return FieldError("spec", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  BASALT_RETURN_IF_ERROR(
      ReadInt(spec, "minAvailable", "spec", &job->min_available, INT32_MIN, INT32_MAX));
  if (Present(spec["minSuccess"])) {
    int32_t ms = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "minSuccess", "spec", &ms));
    job->min_success = ms;
  }
  BASALT_RETURN_IF_ERROR(ReadString(spec, "queue", "spec", &job->queue));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "schedulerName", "spec", &job->scheduler_name));
  BASALT_RETURN_IF_ERROR(DecodeNetworkTopology(spec["networkTopology"], "spec.networkTopology",
                                               &job->network_topology));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "priorityClassName", "spec", &job->priority_class_name));
  BASALT_RETURN_IF_ERROR(ReadInt(spec, "maxRetry", "spec", &job->max_retry, INT32_MIN, INT32_MAX));
  BASALT_RETURN_IF_ERROR(DecodePolicies(spec["policies"], "spec.policies", &job->policies));
  BASALT_RETURN_IF_ERROR(DecodeJobVolumes(spec["volumes"], &job->volumes));
  if (Present(spec["ttlSecondsAfterFinished"])) {
    int32_t ttl = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "ttlSecondsAfterFinished", "spec", &ttl, 0, INT32_MAX));
    job->ttl_seconds_after_finished = ttl;
  }
  YAML::Node plugins = spec["plugins"];
  BASALT_RETURN_IF_ERROR(ExpectMap(plugins, "spec.plugins"));
  if (Present(plugins)) {
    for (const auto& kv : plugins) {
      BASALT_ASSIGN_OR_RETURN(std::string name, KeyText(kv.first, "spec.plugins"));
      std::vector<std::string> args;
      if (Present(kv.second)) {
        BASALT_ASSIGN_OR_RETURN(args, ReadStringList(kv.second, "spec.plugins." + name));
      }
      job->plugins[name] = std::move(args);
    }
    BASALT_RETURN_IF_ERROR(CheckJobPluginNames(job->plugins));
  }
  YAML::Node tasks = spec["tasks"];
  BASALT_RETURN_IF_ERROR(ExpectList(tasks, "spec.tasks"));
  if (!Present(tasks) || tasks.size() == 0)
    return FieldError("spec.tasks", "missing (a job needs at least one task)");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string ip = Index("spec.tasks", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(tasks[i], ip));
    JobTask t;
    BASALT_RETURN_IF_ERROR(ReadString(tasks[i], "name", ip, &t.name));
    BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "replicas", ip, &t.replicas, INT32_MIN, INT32_MAX));
    if (Present(tasks[i]["minAvailable"])) {
      int32_t ma = 0;
      BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "minAvailable", ip, &ma, INT32_MIN, INT32_MAX));
      t.min_available = ma;
    }
    BASALT_RETURN_IF_ERROR(ReadInt(tasks[i], "maxRetry", ip, &t.max_retry, INT32_MIN, INT32_MAX));
    BASALT_RETURN_IF_ERROR(DecodePolicies(tasks[i]["policies"], Join(ip, "policies"), &t.policies));
    BASALT_RETURN_IF_ERROR(DecodePartitionPolicy(tasks[i]["partitionPolicy"],
                                                 Join(ip, "partitionPolicy"), &t.partition_policy));
    YAML::Node tmpl = tasks[i]["template"];
    std::string tpath = Join(ip, "template");
    if (!Present(tmpl)) return FieldError(tpath, "missing");
    BASALT_RETURN_IF_ERROR(ExpectMap(tmpl, tpath));
    YAML::Node tm = tmpl["metadata"];
    BASALT_RETURN_IF_ERROR(ExpectMap(tm, Join(tpath, "metadata")));
    if (Present(tm)) {
      BASALT_RETURN_IF_ERROR(
          ReadStringMap(tm["labels"], Join(tpath, "metadata.labels"), &t.template_meta.labels));
      BASALT_RETURN_IF_ERROR(ReadStringMap(tm["annotations"], Join(tpath, "metadata.annotations"),
                                           &t.template_meta.annotations));
    }
    BASALT_RETURN_IF_ERROR(DecodePodSpec(tmpl["spec"], Join(tpath, "spec"), &t.template_spec));
    BASALT_RETURN_IF_ERROR(DecodeTemplateNames(tmpl["spec"], Join(tpath, "spec"), &t));
    job->tasks.push_back(std::move(t));
  }
  YAML::Node st = doc["status"];
  BASALT_RETURN_IF_ERROR(ExpectMap(st, "status"));
  if (Present(st)) {
    YAML::Node state = st["state"];
    BASALT_RETURN_IF_ERROR(ExpectMap(state, "status.state"));
    if (Present(state))
      BASALT_RETURN_IF_ERROR(ReadString(state, "phase", "status.state", &job->phase));
    BASALT_RETURN_IF_ERROR(ReadInt(st, "retryCount", "status", &job->retry_count, 0, INT32_MAX));
    BASALT_RETURN_IF_ERROR(ReadInt(st, "version", "status", &job->version, 0, INT32_MAX));
  }
  if (job->phase.empty()) job->phase = "Pending";
  return Status::Ok();
}

// bus.volcano.sh/v1alpha1 Command: `action` and `target` sit at the top level.
Status DecodeCommand(const YAML::Node& doc, Command* c) {
  BASALT_RETURN_IF_ERROR(DecodeMeta(doc, true, &c->meta));
  BASALT_RETURN_IF_ERROR(ReadString(doc, "action", "", &c->action));
  static const std::set<std::string> kActions = {
      "AbortJob",  "RestartJob", "RestartTask", "RestartPod", "TerminateJob", "CompleteJob",
      "ResumeJob", "SyncJob",    "OpenQueue",   "CloseQueue", "SyncQueue",    "EnqueueJob"};
  if (c->action.empty()) return FieldError("action", "missing");
  if (!kActions.count(c->action)) {
    return FieldError("action",
                      "unknown action \"" + c->action +
                          "\" (want AbortJob, RestartJob, ResumeJob, TerminateJob, CompleteJob, "
                          "OpenQueue or CloseQueue)");
  }
  YAML::Node t = doc["target"];
  if (!Present(t)) return FieldError("target", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(t, "target"));
  BASALT_RETURN_IF_ERROR(ReadString(t, "apiVersion", "target", &c->target.api_version));
  BASALT_RETURN_IF_ERROR(ReadString(t, "kind", "target", &c->target.kind));
  BASALT_RETURN_IF_ERROR(ReadString(t, "name", "target", &c->target.name));
  BASALT_RETURN_IF_ERROR(ReadString(t, "uid", "target", &c->target.uid));
  if (c->target.kind != "Job" && c->target.kind != "Queue") {
    return FieldError("target.kind", "want Job or Queue, got \"" + c->target.kind + "\"");
  }
  if (c->target.name.empty()) return FieldError("target.name", "missing");
  return Status::Ok();
}

}  // namespace basalt::decode_internal
