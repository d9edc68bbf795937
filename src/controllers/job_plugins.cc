#include "controllers/job_plugins.h"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "api/job_plugin_args.h"
#include "api/log.h"
#include "controllers/job_controller.h"

namespace basalt {

bool ContainerAdditions::OpensPort(int64_t port) const {
  for (int32_t p : template_ports) {
    if (p == port) return true;
  }
  for (const ContainerPort& p : ports) {
    if (p.container_port == port) return true;
  }
  return false;
}

std::string ContainerAdditions::EnvValue(const std::string& name) const {
  for (const auto& [n, v] : template_env) {
    if (n == name) return v;
  }
  for (const EnvVar& e : env) {
    if (e.name == name && e.config_map.empty()) return e.value;
  }
  return "";
}

namespace job_plugin_util {

std::string Base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string PodName(const std::string& job, const std::string& task, int index) {
  return job + "-" + task + "-" + std::to_string(index);
}

std::string DomainName(const VcJob& job, const JobTask& task, int index) {
  const std::string host =
      task.hostname.empty() ? PodName(job.meta.name, task.name, index) : task.hostname;
  return host + "." + (task.subdomain.empty() ? job.meta.name : task.subdomain);
}

const JobTask* FindTask(const VcJob& job, const std::string& name) {
  for (const JobTask& t : job.tasks) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string TaskOf(const Pod& pod) {
  auto it = pod.meta.annotations.find(job_internal::kTaskSpec);
  return it == pod.meta.annotations.end() || it->second.empty() ? "default" : it->second;
}

std::string IndexPartOfName(const Pod& pod) {
  const std::string& name = pod.meta.name;
  if (std::count(name.begin(), name.end(), '-') < 2) return "";
  return name.substr(name.rfind('-') + 1);
}

std::optional<int> IndexFromName(const Pod& pod) {
  std::string part = IndexPartOfName(pod);
  const bool sign = !part.empty() && (part[0] == '+' || part[0] == '-');
  const std::string digits = sign ? part.substr(1) : part;
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const int n = std::stoi(digits);
  return part[0] == '-' ? -n : n;
}

ObjectMeta OwnedBy(const VcJob& job, const std::string& name) {
  ObjectMeta m;
  m.name = name;
  m.namespace_ = job.meta.namespace_;
  m.creation_timestamp = job.meta.creation_timestamp;
  m.source = job.meta.source;
  m.owner_references = {{"batch.volcano.sh/v1alpha1", "Job", job.meta.name, job.meta.uid, true}};
  return m;
}

std::string ObjectKey(const VcJob& job, const std::string& name) {
  return job.meta.namespace_.empty() ? name : job.meta.namespace_ + "/" + name;
}

std::map<std::string, std::string> JobSelector(const VcJob& job) {
  return {{job_internal::kJobName, job.meta.name},
          {job_internal::kJobNamespace, job.meta.namespace_}};
}

}  // namespace job_plugin_util

std::unique_ptr<JobPlugin> MakeJobPlugin(const std::string& name,
                                         const std::vector<std::string>& args,
                                         const SshKeySeeds& seeds) {
  if (name == "env") return MakeEnvPlugin(args);
  if (name == "hcclrank") return MakeHcclrankPlugin(args);
  if (name == "mpi") return MakeMpiPlugin(args);
  if (name == "pytorch") return MakePytorchPlugin(args);
  if (name == "ray") return MakeRayPlugin(args);
  if (name == "ssh") return MakeSshPlugin(args, seeds);
  if (name == "svc") return MakeSvcPlugin(args);
  if (name == "tensorflow") return MakeTensorflowPlugin(args);
  return nullptr;
}

std::map<std::string, std::vector<std::string>> JobPluginController::TaskHosts(const VcJob& job) {
  std::map<std::string, std::vector<std::string>> out;
  for (const JobTask& t : job.tasks) {
    std::vector<std::string>& hosts = out[t.name];
    for (int i = 0; i < t.replicas; ++i) {
      hosts.push_back(job_plugin_util::DomainName(job, t, i));
      if (!t.hostname.empty()) break;  // a fixed hostname names the task once
    }
  }
  return out;
}

std::vector<std::unique_ptr<JobPlugin>> JobPluginController::PluginsOf(const VcJob& job) const {
  std::vector<std::unique_ptr<JobPlugin>> out;
  for (const auto& [name, args] : job.plugins) {
    if (name == "hcclrank") continue;
    if (auto p = MakeJobPlugin(name, args, seeds_)) out.push_back(std::move(p));
  }
  // hcclrank reads a RANK the others may have set.
  if (auto it = job.plugins.find("hcclrank"); it != job.plugins.end())
    out.push_back(MakeJobPlugin(it->first, it->second, seeds_));
  return out;
}

void JobPluginController::WarnOnce(const std::string& job_key, const std::string& problem) {
  if (!warned_.insert(job_key + "|" + problem).second) return;
  Log("controllers").warn("msg=\"job plugin\" job={} problem={}", job_key, LogValue(problem));
}

void JobPluginController::DeleteJobObjects(const std::string& job_key) {
  jobs_with_objects_.erase(job_key);
  jobs_added_.erase(job_key);
  const auto slash = job_key.find('/');
  const std::string ns = slash == std::string::npos ? "" : job_key.substr(0, slash);
  const std::string name = slash == std::string::npos ? job_key : job_key.substr(slash + 1);
  auto owned = [&](const ObjectMeta& m) {
    return m.namespace_ == ns && !m.owner_references.empty() &&
           m.owner_references[0].kind == "Job" && m.owner_references[0].name == name;
  };
  auto drop = [&](auto& objects) {
    std::erase_if(objects, [&](const auto& entry) { return owned(entry.second.meta); });
  };
  drop(objects_.services);
  drop(objects_.secrets);
  drop(objects_.config_maps);
  drop(objects_.network_policies);
}

void JobPluginController::SyncJobObjects(const VcJob& job) {
  const std::string key = job.meta.Key();
  if (job.phase.empty() || job.phase == "Pending") {
    if (!jobs_added_.insert(key).second) {
      // Already added: the objects follow the spec while the job waits too
      // (docs/differences.md). Volcano rewrites them at a sync of the running
      // job only; basalt's pass comes once a period, and a job scaled before
      // the pass saw it Running goes on waiting for its new pods.
      for (const auto& plugin : PluginsOf(job)) plugin->OnJobUpdate(job, &objects_);
      return;
    }
    jobs_with_objects_.insert(key);
    // What Volcano logs about the arguments (api/job_plugin_args.h).
    for (const JobPluginArgProblem& p : JobPluginArgumentProblems(job.plugins))
      WarnOnce(key, p.ToString());
    for (const auto& plugin : PluginsOf(job)) {
      Status st = plugin->OnJobAdd(job, &objects_);
      if (!st.ok()) WarnOnce(key, st.message());
    }
  } else if (job.phase == "Running") {
    jobs_with_objects_.insert(key);
    for (const auto& plugin : PluginsOf(job)) plugin->OnJobUpdate(job, &objects_);
  } else if (jobs_with_objects_.count(key)) {
    DeleteJobObjects(key);  // killJob: every plugin's OnJobDelete
  }
}

PodPluginAdditions JobPluginController::PodAdditions(const VcJob& job, const JobTask& task,
                                                     const Pod& pod) {
  PodPluginAdditions out;
  for (bool init : {false, true}) {
    for (const JobTask::TemplateContainer& c : task.containers) {
      if (c.init != init) continue;
      ContainerAdditions add;
      add.name = c.name;
      add.init = c.init;
      add.template_ports = c.ports;
      add.template_env = c.env;
      out.containers.push_back(std::move(add));
    }
  }
  for (const auto& plugin : PluginsOf(job)) {
    PodPluginAdditions attempt = out;
    Status st = plugin->OnPodCreate(job, task, pod, &attempt);
    if (st.ok()) {
      out = std::move(attempt);
    } else {
      WarnOnce(job.meta.Key(), st.message());
    }
  }
  return out;
}

void JobPluginController::Sync(const ClusterState& state) {
  // Jobs that are gone take their objects with them (OnJobDelete).
  std::vector<std::string> gone;
  for (const std::string& key : jobs_with_objects_) {
    if (!state.jobs().count(key)) gone.push_back(key);
  }
  for (const std::string& key : gone) DeleteJobObjects(key);
  std::set<std::string> live_pods;
  for (const auto& [key, job] : state.jobs()) {
    if (job.plugins.empty()) continue;
    SyncJobObjects(job);
    for (const std::string& pod_key : job_internal::JobPodKeys(state, job)) {
      const Pod& pod = state.pods().at(pod_key);
      const JobTask* task = job_plugin_util::FindTask(job, job_internal::PodTask(pod));
      if (!task) continue;
      live_pods.insert(pod_key);
      auto version = pod.meta.annotations.find(job_internal::kJobVersion);
      const std::string v = version == pod.meta.annotations.end() ? "" : version->second;
      auto seen = pod_versions_.find(pod_key);
      if (pods_.count(pod_key) && seen != pod_versions_.end() && seen->second == v) continue;
      pods_[pod_key] = PodAdditions(job, *task, pod);
      pod_versions_[pod_key] = v;
    }
  }
  for (auto it = pods_.begin(); it != pods_.end();) {
    if (live_pods.count(it->first)) {
      ++it;
    } else {
      pod_versions_.erase(it->first);
      it = pods_.erase(it);
    }
  }
}

std::string JobPluginController::ManifestsYaml() const {
  YAML::Emitter out;
  auto meta = [&](const ObjectMeta& m) {
    out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << m.name;
    if (!m.namespace_.empty()) out << YAML::Key << "namespace" << YAML::Value << m.namespace_;
    out << YAML::Key << "ownerReferences" << YAML::Value << YAML::BeginSeq;
    for (const OwnerReference& o : m.owner_references) {
      out << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << o.api_version
          << YAML::Key << "kind" << YAML::Value << o.kind << YAML::Key << "name" << YAML::Value
          << o.name << YAML::Key << "controller" << YAML::Value << o.controller << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  };
  auto labels = [&](const char* key, const std::map<std::string, std::string>& m) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : m) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap;
  };
  for (const auto& [key, cm] : objects_.config_maps) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "ConfigMap";
    meta(cm.meta);
    labels("data", cm.data);
    out << YAML::EndMap;
  }
  for (const auto& [key, np] : objects_.network_policies) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value
        << "networking.k8s.io/v1" << YAML::Key << "kind" << YAML::Value << "NetworkPolicy";
    meta(np.meta);
    out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "podSelector" << YAML::Value << YAML::BeginMap;
    labels("matchLabels", np.pod_selector);
    out << YAML::EndMap << YAML::Key << "ingress" << YAML::Value << YAML::BeginSeq << YAML::BeginMap
        << YAML::Key << "from" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
        << "podSelector" << YAML::Value << YAML::BeginMap;
    labels("matchLabels", np.ingress_from);
    out << YAML::EndMap << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndSeq;
    out << YAML::Key << "policyTypes" << YAML::Value << YAML::Flow << np.policy_types;
    out << YAML::EndMap << YAML::EndMap;
  }
  for (const auto& [key, s] : objects_.secrets) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "Secret";
    meta(s.meta);
    out << YAML::Key << "type" << YAML::Value << s.type;
    std::map<std::string, std::string> encoded;
    for (const auto& [k, v] : s.data) encoded[k] = job_plugin_util::Base64(v);
    labels("data", encoded);
    out << YAML::EndMap;
  }
  for (const auto& [key, svc] : objects_.services) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "Service";
    meta(svc.meta);
    out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    if (!svc.cluster_ip.empty()) out << YAML::Key << "clusterIP" << YAML::Value << svc.cluster_ip;
    labels("selector", svc.selector);
    out << YAML::Key << "publishNotReadyAddresses" << YAML::Value
        << svc.publish_not_ready_addresses;
    if (!svc.ports.empty()) {
      out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq;
      for (const Service::Port& p : svc.ports) {
        out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name << YAML::Key << "port"
            << YAML::Value << p.port << YAML::Key << "targetPort" << YAML::Value << p.target_port
            << YAML::Key << "protocol" << YAML::Value << p.protocol << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace basalt
