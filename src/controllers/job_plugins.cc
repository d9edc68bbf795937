#include "controllers/job_plugins.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "api/job_plugin_args.h"
#include "controllers/job_controller.h"

namespace basalt {
namespace {

constexpr const char* kSshRelativePath = ".ssh";
constexpr const char* kSvcMountPath = "/etc/volcano";

std::string Base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// SSH wire format: uint32 big-endian and length-prefixed strings.
void PutU32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}
void PutString(std::string& out, const std::string& s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out += s;
}

std::string Bytes(const uint8_t* p, size_t n) {
  return std::string(reinterpret_cast<const char*>(p), n);
}

// "my-task" -> "my_task" (config map keys) and "MY_TASK" (env names), as Volcano.
std::string Underscored(const std::string& task) {
  std::string s = task;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string PodIndex(const Pod& pod) {
  auto it = pod.meta.annotations.find(job_internal::kTaskIndex);
  return it == pod.meta.annotations.end() ? "" : it->second;
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

std::map<std::string, std::string> JobSelector(const VcJob& job) {
  return {{job_internal::kJobName, job.meta.name},
          {job_internal::kJobNamespace, job.meta.namespace_}};
}

std::string SshConfig(const VcJob& job) {
  std::string config = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n";
  for (const JobTask& t : job.tasks) {
    for (int i = 0; i < t.replicas; ++i) {
      const std::string host =
          t.hostname.empty() ? job.meta.name + "-" + t.name + "-" + std::to_string(i) : t.hostname;
      const std::string sub = t.subdomain.empty() ? job.meta.name : t.subdomain;
      config += "Host " + host + "\n  HostName " + host + "." + sub + "\n";
      if (!t.hostname.empty()) break;
    }
  }
  return config;
}

}  // namespace

SshKeySeeds SeededSshKeys(uint64_t seed) {
  return [seed](const std::string& job_key) {
    std::string input;
    PutU32(input, static_cast<uint32_t>(seed >> 32));
    PutU32(input, static_cast<uint32_t>(seed));
    input += job_key;
    std::array<uint8_t, 32> out{};
    unsigned int len = 0;
    if (EVP_Digest(input.data(), input.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
        len != 32) {
      throw std::runtime_error(
          "SHA-256 failed");  // libcrypto without SHA-256: a broken installation
    }
    return out;
  };
}

SshKeySeeds RandomSshKeys() {
  return [](const std::string&) {
    std::array<uint8_t, 32> out{};
    if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
      throw std::runtime_error("RAND_bytes failed");
    return out;
  };
}

SshKeyPair MakeSshKeyPair(const std::array<uint8_t, 32>& seed) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()),
      &EVP_PKEY_free);
  std::array<uint8_t, 32> pub{};
  size_t pub_len = pub.size();
  if (!key || EVP_PKEY_get_raw_public_key(key.get(), pub.data(), &pub_len) != 1 || pub_len != 32) {
    throw std::runtime_error("Ed25519 key derivation failed");
  }
  const std::string type = "ssh-ed25519";
  std::string pub_blob;
  PutString(pub_blob, type);
  PutString(pub_blob, Bytes(pub.data(), pub.size()));

  // openssh-key-v1, unencrypted: one key, its private section padded to the
  // cipher block size (8) with 1, 2, 3, ...; the check integers come from the
  // seed so the output is a function of it.
  std::string priv;
  const uint32_t check =
      (uint32_t{seed[0]} << 24) | (uint32_t{seed[1]} << 16) | (uint32_t{seed[2]} << 8) | seed[3];
  PutU32(priv, check);
  PutU32(priv, check);
  PutString(priv, type);
  PutString(priv, Bytes(pub.data(), pub.size()));
  PutString(priv, Bytes(seed.data(), seed.size()) + Bytes(pub.data(), pub.size()));
  PutString(priv, "");  // comment
  for (char pad = 1; priv.size() % 8 != 0; ++pad) priv.push_back(pad);
  std::string blob("openssh-key-v1", 14);
  blob.push_back('\0');
  PutString(blob, "none");
  PutString(blob, "none");
  PutString(blob, "");
  PutU32(blob, 1);
  PutString(blob, pub_blob);
  PutString(blob, priv);

  SshKeyPair out;
  const std::string b64 = Base64(blob);
  out.private_key = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
  for (size_t i = 0; i < b64.size(); i += 70) out.private_key += b64.substr(i, 70) + "\n";
  out.private_key += "-----END OPENSSH PRIVATE KEY-----\n";
  out.public_key = type + " " + Base64(pub_blob) + "\n";
  return out;
}

std::map<std::string, std::vector<std::string>> JobPluginController::TaskHosts(const VcJob& job) {
  std::map<std::string, std::vector<std::string>> out;
  for (const JobTask& t : job.tasks) {
    std::vector<std::string>& hosts = out[t.name];
    for (int i = 0; i < t.replicas; ++i) {
      const std::string host =
          t.hostname.empty() ? job.meta.name + "-" + t.name + "-" + std::to_string(i) : t.hostname;
      hosts.push_back(host + "." + (t.subdomain.empty() ? job.meta.name : t.subdomain));
      if (!t.hostname.empty()) break;  // a fixed hostname names the task once
    }
  }
  return out;
}

void JobPluginController::AddJobObjects(const VcJob& job) {
  const std::string key = job.meta.Key();
  const std::string ns_prefix = job.meta.namespace_.empty() ? "" : job.meta.namespace_ + "/";
  const bool first = jobs_with_objects_.insert(key).second;
  if (auto it = job.plugins.find("ssh"); it != job.plugins.end() && first) {
    auto args = ParseSshPluginArgs(it->second);
    if (args.ok()) {
      Secret s;
      s.meta = OwnedBy(job, job.meta.name + "-ssh");
      SshKeyPair pair;
      if (!args->private_key.empty()) {
        pair.private_key = args->private_key;
        pair.public_key = args->public_key;
      } else {
        pair = MakeSshKeyPair(seeds_(key));
      }
      s.data["id_rsa"] = pair.private_key;
      s.data["id_rsa.pub"] = pair.public_key;
      s.data["config"] = SshConfig(job);
      secrets_[ns_prefix + s.meta.name] = std::move(s);
    }
  }
  if (auto it = job.plugins.find("svc"); it != job.plugins.end()) {
    auto args = ParseSvcPluginArgs(it->second);
    if (!args.ok()) return;
    // The host ConfigMap follows the job's replicas (OnJobUpdate on scaling).
    ConfigMap cm;
    cm.meta = OwnedBy(job, job.meta.name + "-svc");
    const auto hosts = TaskHosts(job);
    for (const JobTask& t : job.tasks) {
      const std::vector<std::string>& h = hosts.at(t.name);
      std::string lines, commas;
      for (size_t i = 0; i < h.size(); ++i) {
        lines += (i ? "\n" : "") + h[i];
        commas += (i ? "," : "") + h[i];
      }
      const std::string env_key = Upper(Underscored(t.name));
      cm.data[Underscored(t.name) + ".host"] = lines;
      cm.data["VC_" + env_key + "_HOSTS"] = commas;
      cm.data["VC_" + env_key + "_NUM"] = std::to_string(h.size());
    }
    config_maps_[ns_prefix + cm.meta.name] = std::move(cm);
    if (!first) return;
    Service svc;
    svc.meta = OwnedBy(job, job.meta.name);
    svc.selector = JobSelector(job);
    svc.publish_not_ready_addresses = args->publish_not_ready_addresses;
    services_[key] = std::move(svc);
    if (!args->disable_network_policy) {
      NetworkPolicy np;
      np.meta = OwnedBy(job, job.meta.name);
      np.pod_selector = JobSelector(job);
      np.ingress_from = JobSelector(job);
      network_policies_[key] = std::move(np);
    }
  }
}

void JobPluginController::DeleteJobObjects(const std::string& job_key) {
  jobs_with_objects_.erase(job_key);
  secrets_.erase(job_key + "-ssh");
  config_maps_.erase(job_key + "-svc");
  services_.erase(job_key);
  network_policies_.erase(job_key);
}

PodPluginAdditions JobPluginController::PodAdditions(const VcJob& job, const JobTask& task,
                                                     const Pod& pod) const {
  PodPluginAdditions out;
  for (const std::string& c : task.container_names) out.containers.push_back({c, false, {}, {}});
  for (const std::string& c : task.init_container_names)
    out.containers.push_back({c, true, {}, {}});
  // env
  if (job.plugins.count("env")) {
    const std::string index = PodIndex(pod);
    for (ContainerAdditions& c : out.containers) {
      c.env.push_back({"VK_TASK_INDEX", index, "", ""});
      c.env.push_back({"VC_TASK_INDEX", index, "", ""});
    }
  }
  // ssh
  if (auto it = job.plugins.find("ssh"); it != job.plugins.end()) {
    auto args = ParseSshPluginArgs(it->second);
    if (args.ok()) {
      const std::string name = job.meta.name + "-ssh";
      const std::string rel = kSshRelativePath;
      PluginVolume v;
      v.name = name;
      v.secret_name = name;
      v.items = {{"id_rsa", rel + "/id_rsa"},
                 {"id_rsa.pub", rel + "/id_rsa.pub"},
                 {"id_rsa.pub", rel + "/authorized_keys"},
                 {"config", rel + "/config"}};
      // 0600 for root; readable by the pod's user elsewhere (Volcano's 0755).
      v.default_mode = args->key_file_path == kSshRootKeyPath ? 0600 : 0755;
      out.volumes.push_back(std::move(v));
      for (ContainerAdditions& c : out.containers) {
        if (!c.init) c.mounts.push_back({name, args->key_file_path, rel});
      }
    }
  }
  // svc
  if (auto it = job.plugins.find("svc");
      it != job.plugins.end() && ParseSvcPluginArgs(it->second).ok()) {
    out.hostname = task.hostname.empty() ? pod.meta.name : task.hostname;
    out.subdomain = task.subdomain.empty() ? job.meta.name : task.subdomain;
    const std::string cm = job.meta.name + "-svc";
    std::vector<EnvVar> env;
    for (const JobTask& t : job.tasks) {
      const std::string k = Upper(Underscored(t.name));
      env.push_back({"VC_" + k + "_HOSTS", "", cm, "VC_" + k + "_HOSTS"});
      env.push_back({"VC_" + k + "_NUM", "", cm, "VC_" + k + "_NUM"});
    }
    PluginVolume v;
    v.name = cm;
    v.config_map_name = cm;
    out.volumes.push_back(std::move(v));
    for (ContainerAdditions& c : out.containers) {
      c.env.insert(c.env.end(), env.begin(), env.end());
      c.mounts.push_back({cm, kSvcMountPath, ""});
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
    AddJobObjects(job);
    for (const std::string& pod_key : job_internal::JobPodKeys(state, job)) {
      const Pod& pod = state.pods().at(pod_key);
      const std::string task_name = job_internal::PodTask(pod);
      const JobTask* task = nullptr;
      for (const JobTask& t : job.tasks) {
        if (t.name == task_name) task = &t;
      }
      if (!task) continue;
      live_pods.insert(pod_key);
      if (!pods_.count(pod_key)) pods_[pod_key] = PodAdditions(job, *task, pod);
    }
  }
  for (auto it = pods_.begin(); it != pods_.end();) {
    it = live_pods.count(it->first) ? std::next(it) : pods_.erase(it);
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
  for (const auto& [key, cm] : config_maps_) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "ConfigMap";
    meta(cm.meta);
    labels("data", cm.data);
    out << YAML::EndMap;
  }
  for (const auto& [key, np] : network_policies_) {
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
  for (const auto& [key, s] : secrets_) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "Secret";
    meta(s.meta);
    out << YAML::Key << "type" << YAML::Value << s.type;
    std::map<std::string, std::string> encoded;
    for (const auto& [k, v] : s.data) encoded[k] = Base64(v);
    labels("data", encoded);
    out << YAML::EndMap;
  }
  for (const auto& [key, svc] : services_) {
    out << YAML::BeginDoc << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1"
        << YAML::Key << "kind" << YAML::Value << "Service";
    meta(svc.meta);
    out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "clusterIP" << YAML::Value << svc.cluster_ip;
    labels("selector", svc.selector);
    out << YAML::Key << "publishNotReadyAddresses" << YAML::Value
        << svc.publish_not_ready_addresses;
    out << YAML::EndMap << YAML::EndMap;
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace basalt
