// Job plugin `svc` (arguments: --publish-not-ready-addresses,
// --disable-network-policy; both false by default):
//
//   OnJobAdd     ConfigMap `<job>-svc` of host files (below); headless Service
//                `<job>` (clusterIP None, selecting the job's pods,
//                publishNotReadyAddresses from the argument); NetworkPolicy
//                `<job>` letting in only the job's own pods, unless disabled.
//   OnJobUpdate  the ConfigMap is written again from the current replicas, so
//                it follows a job scaled up, down or to zero (also while the
//                job waits for its new pods: docs/differences.md).
//   OnPodCreate  hostname = the pod's name and subdomain = the job's name
//                (unless the template sets them); env VC_<T>_HOSTS and
//                VC_<T>_NUM of every task T from the ConfigMap, and the
//                ConfigMap mounted at /etc/volcano, in every container and init
//                container.
//
// The ConfigMap holds, per task T (T_ = T with '-' turned into '_'):
// `T_.host` (the task's host names, one a line), `VC_<T_ upper>_HOSTS` (the
// same, comma-joined) and `VC_<T_ upper>_NUM` (their number). A host name is
// `<pod>.<job>`; a task whose template sets `hostname` has one host,
// `<hostname>.<subdomain or job>`.
#include <algorithm>
#include <cctype>

#include "api/job_plugin_args.h"
#include "controllers/job_plugins.h"

namespace basalt {
namespace {

constexpr const char* kMountPath = "/etc/volcano";

std::string Underscored(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

class SvcPlugin : public JobPlugin {
 public:
  explicit SvcPlugin(SvcPluginArgs args) : args_(std::move(args)) {}

  Status OnJobAdd(const VcJob& job, JobPluginObjects* objects) override {
    WriteHostFiles(job, objects);
    using job_plugin_util::ObjectKey;
    Service svc;
    svc.meta = job_plugin_util::OwnedBy(job, job.meta.name);
    svc.selector = job_plugin_util::JobSelector(job);
    svc.publish_not_ready_addresses = args_.publish_not_ready_addresses;
    objects->services.try_emplace(ObjectKey(job, job.meta.name), std::move(svc));
    if (!args_.disable_network_policy) {
      NetworkPolicy np;
      np.meta = job_plugin_util::OwnedBy(job, job.meta.name);
      np.pod_selector = job_plugin_util::JobSelector(job);
      np.ingress_from = job_plugin_util::JobSelector(job);
      objects->network_policies.try_emplace(ObjectKey(job, job.meta.name), std::move(np));
    }
    return Status::Ok();
  }

  void OnJobUpdate(const VcJob& job, JobPluginObjects* objects) override {
    WriteHostFiles(job, objects);
  }

  Status OnPodCreate(const VcJob& job, const JobTask& task, const Pod& pod,
                     PodPluginAdditions* out) override {
    out->hostname = task.hostname.empty() ? pod.meta.name : task.hostname;
    out->subdomain = task.subdomain.empty() ? job.meta.name : task.subdomain;
    const std::string cm = ConfigMapName(job);
    std::vector<EnvVar> env;
    for (const JobTask& t : job.tasks) {
      const std::string k = Upper(Underscored(t.name));
      env.push_back({"VC_" + k + "_HOSTS", "", cm, "VC_" + k + "_HOSTS"});
      env.push_back({"VC_" + k + "_NUM", "", cm, "VC_" + k + "_NUM"});
    }
    PluginVolume v;
    v.name = cm;
    v.config_map_name = cm;
    out->volumes.push_back(std::move(v));
    for (ContainerAdditions& c : out->containers) {
      c.env.insert(c.env.end(), env.begin(), env.end());
      c.mounts.push_back({cm, kMountPath, ""});
    }
    return Status::Ok();
  }

 private:
  static std::string ConfigMapName(const VcJob& job) { return job.meta.name + "-svc"; }

  // Creates or rewrites the host ConfigMap from the job's current replicas.
  static void WriteHostFiles(const VcJob& job, JobPluginObjects* objects) {
    ConfigMap cm;
    cm.meta = job_plugin_util::OwnedBy(job, ConfigMapName(job));
    const auto hosts = JobPluginController::TaskHosts(job);
    for (const JobTask& t : job.tasks) {
      const std::vector<std::string>& h = hosts.at(t.name);
      const std::string env_key = Upper(Underscored(t.name));
      cm.data[Underscored(t.name) + ".host"] = Joined(h, "\n");
      cm.data["VC_" + env_key + "_HOSTS"] = Joined(h, ",");
      cm.data["VC_" + env_key + "_NUM"] = std::to_string(h.size());
    }
    objects->config_maps[job_plugin_util::ObjectKey(job, cm.meta.name)] = std::move(cm);
  }

  SvcPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeSvcPlugin(const std::vector<std::string>& args) {
  return std::make_unique<SvcPlugin>(ParseSvcPluginArgs(args));
}

}  // namespace basalt
