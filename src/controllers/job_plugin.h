// One vcjob job plugin (`spec.plugins.<name>`), as Volcano's job controller
// runs them (pkg/controllers/job/plugins): each has one file here,
// plugin_<name>.cc, and JobPluginController (job_plugins.h) drives them.
//
//   OnJobAdd     the job is Pending: make the plugin's cluster objects (once
//                per incarnation of the objects);
//   OnJobUpdate  the job is Running, or Pending once added: bring them in line
//                with the spec (the svc host ConfigMap follows scaling);
//   OnPodCreate  a pod of the job is created: add to it (env, ports, volumes,
//                mounts, commands, init containers, annotations).
//
// The objects go when the job leaves Pending and Running (Volcano's killJob
// runs every plugin's OnJobDelete) or is deleted; the controller does that for
// every plugin alike.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace basalt {

// An env var: a literal `value`, or `valueFrom.configMapKeyRef` when
// `config_map` is set.
struct EnvVar {
  std::string name;
  std::string value;
  std::string config_map;
  std::string config_map_key;
};

struct KeyToPath {
  std::string key;
  std::string path;
};

// A pod volume: a Secret or a ConfigMap.
struct PluginVolume {
  std::string name;
  std::string secret_name;      // set for a secret volume
  std::string config_map_name;  // set for a configMap volume
  std::vector<KeyToPath> items;
  int32_t default_mode = 0;  // 0 = unset
};

struct VolumeMount {
  std::string name;
  std::string mount_path;
  std::string sub_path;
};

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
};

// What the plugins add to one container of a pod, or (`added`) a container a
// plugin adds to the pod's init containers (pytorch's wait-for-master).
struct ContainerAdditions {
  std::string name;
  bool init = false;
  std::vector<EnvVar> env;
  std::vector<VolumeMount> mounts;
  std::vector<ContainerPort> ports;  // appended to the container's ports
  std::vector<std::string> command;  // when set, replaces the container's command
  bool added = false;                // a new init container
  std::string image;                 // its image
  // The template's own ports and literal env (plugins look at them; not rendered).
  std::vector<int32_t> template_ports;
  std::vector<std::pair<std::string, std::string>> template_env;

  // Whether the container opens `port` (template or added).
  bool OpensPort(int64_t port) const;
  // The first literal value of env var `name` (template first, then added).
  std::string EnvValue(const std::string& name) const;
};

// What the plugins add to one pod (OnPodCreate).
struct PodPluginAdditions {
  std::string hostname;   // svc: empty when svc is off
  std::string subdomain;  // svc
  std::vector<PluginVolume> volumes;
  // Containers, then init containers, in template order, then added ones.
  std::vector<ContainerAdditions> containers;
  std::map<std::string, std::string> annotations;  // hcclrank's rank
};

struct Service {
  struct Port {
    std::string name;
    int32_t port = 0;
    std::string target_port;  // a port name
    std::string protocol = "TCP";
  };
  ObjectMeta meta;
  std::string cluster_ip = "None";  // "" = unset (a ClusterIP service)
  std::map<std::string, std::string> selector;
  bool publish_not_ready_addresses = false;
  std::vector<Port> ports;
};

struct Secret {
  ObjectMeta meta;
  std::string type = "Opaque";
  std::map<std::string, std::string> data;  // decoded (not base64)
};

struct ConfigMap {
  ObjectMeta meta;
  std::map<std::string, std::string> data;
};

struct NetworkPolicy {
  ObjectMeta meta;
  std::map<std::string, std::string> pod_selector;  // spec.podSelector.matchLabels
  std::map<std::string, std::string>
      ingress_from;  // spec.ingress[0].from[0].podSelector.matchLabels
  std::vector<std::string> policy_types = {"Ingress"};
};

// The cluster objects of the job plugins, by "ns/name".
struct JobPluginObjects {
  std::map<std::string, Service> services;
  std::map<std::string, Secret> secrets;
  std::map<std::string, ConfigMap> config_maps;
  std::map<std::string, NetworkPolicy> network_policies;
};

// 32 bytes of key material for the job `ns/name`.
using SshKeySeeds = std::function<Result<std::array<uint8_t, 32>>(const std::string& job_key)>;

class JobPlugin {
 public:
  virtual ~JobPlugin() = default;
  virtual Status OnJobAdd(const VcJob& /*job*/, JobPluginObjects* /*objects*/) {
    return Status::Ok();
  }
  virtual void OnJobUpdate(const VcJob& /*job*/, JobPluginObjects* /*objects*/) {}
  // A failure leaves the pod without this plugin's additions (logged).
  virtual Status OnPodCreate(const VcJob& job, const JobTask& task, const Pod& pod,
                             PodPluginAdditions* out) = 0;
};

// The plugin `name` with its arguments (parsed leniently, as Volcano: see
// api/job_plugin_args.h); null for a name basalt does not know.
std::unique_ptr<JobPlugin> MakeJobPlugin(const std::string& name,
                                         const std::vector<std::string>& args,
                                         const SshKeySeeds& seeds);

// One constructor per plugin file.
std::unique_ptr<JobPlugin> MakeEnvPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakeSshPlugin(const std::vector<std::string>& args, SshKeySeeds seeds);
std::unique_ptr<JobPlugin> MakeSvcPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakePytorchPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakeMpiPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakeTensorflowPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakeRayPlugin(const std::vector<std::string>& args);
std::unique_ptr<JobPlugin> MakeHcclrankPlugin(const std::vector<std::string>& args);

// Helpers the plugins share (Volcano's job helpers).
namespace job_plugin_util {

// Standard base64 (Secret data, the OpenSSH key blobs).
std::string Base64(const std::string& bytes);

// `<job>-<task>-<index>`.
std::string PodName(const std::string& job, const std::string& task, int index);
// `<hostname or pod name>.<subdomain or job>`: a pod's address through the
// job's headless Service.
std::string DomainName(const VcJob& job, const JobTask& task, int index);
// The task named `name`, or null.
const JobTask* FindTask(const VcJob& job, const std::string& name);
// The pod's task (annotation volcano.sh/task-spec; Volcano's default "default").
std::string TaskOf(const Pod& pod);
// The last `-` part of the pod's name when the name has at least three parts
// (Volcano's GetPodIndexUnderTask), else "".
std::string IndexPartOfName(const Pod& pod);
// That part as a number (Go's strconv.Atoi); nullopt when it is not one.
std::optional<int> IndexFromName(const Pod& pod);
// Owner reference and namespace of an object a plugin makes for `job`.
ObjectMeta OwnedBy(const VcJob& job, const std::string& name);
// `ns/name` of an object in the job's namespace.
std::string ObjectKey(const VcJob& job, const std::string& name);
// {volcano.sh/job-name, volcano.sh/job-namespace}: the job's pods.
std::map<std::string, std::string> JobSelector(const VcJob& job);

}  // namespace job_plugin_util

}  // namespace basalt
