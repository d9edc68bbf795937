// The vcjob job plugins' controller (`spec.plugins`), as Volcano's job
// controller drives them (docs/controllers.md#job-plugins): each plugin is a
// JobPlugin (job_plugin.h, one file plugin_<name>.cc); this controller calls
// them, keeps their cluster objects and what they add to each pod.
//
//   job phase "" or Pending   OnJobAdd once (the objects are made);
//   job phase Running         OnJobUpdate (the svc ConfigMap follows scaling);
//   any other phase, or gone  the job's objects are deleted (Volcano's killJob
//                             runs OnJobDelete), made again once it is Pending;
//   a pod of the job appears  OnPodCreate of every plugin (kept per pod and
//                             job version).
//
// Plugins run in name order, except hcclrank, which runs last so that it
// sees a RANK another plugin (pytorch) set; Volcano walks a Go map (random
// order). A plugin's failure is logged once and leaves its additions out.
//
// Key pairs: Volcano generates an RSA key. basalt generates an Ed25519 key
// (OpenSSH format, libcrypto) from a 32-byte seed given by an injected
// `SshKeySeeds` function, so tests and simulations are reproducible
// (`SeededSshKeys`) while a live use draws from the system's RNG
// (`RandomSshKeys`). The secret keeps Volcano's key names (`id_rsa`...): ssh
// reads the key type from the file, not its name (docs/differences.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controllers/job_plugin.h"
#include "state/cluster_state.h"

namespace basalt {

// SHA-256(seed, job key): the same seed gives the same keys.
SshKeySeeds SeededSshKeys(uint64_t seed);
// The system's cryptographic RNG (OpenSSL RAND_bytes).
SshKeySeeds RandomSshKeys();

struct SshKeyPair {
  std::string private_key;  // "-----BEGIN OPENSSH PRIVATE KEY-----\n..."
  std::string public_key;   // "ssh-ed25519 AAAA...\n" (authorized_keys line)
};
// An Ed25519 key pair from its 32-byte seed, in OpenSSH's formats; fails only
// when libcrypto cannot make Ed25519 keys.
Result<SshKeyPair> MakeSshKeyPair(const std::array<uint8_t, 32>& seed);

class JobPluginController {
 public:
  explicit JobPluginController(SshKeySeeds seeds = SeededSshKeys(0)) : seeds_(std::move(seeds)) {}

  // Brings the plugin objects and pod additions in line with the store (see
  // above): drops the objects of jobs that are gone or finished and the
  // additions of pods that are gone.
  void Sync(const ClusterState& state);

  // The created objects by "ns/name" and the pod additions by pod key.
  const std::map<std::string, Service>& services() const { return objects_.services; }
  const std::map<std::string, Secret>& secrets() const { return objects_.secrets; }
  const std::map<std::string, ConfigMap>& config_maps() const { return objects_.config_maps; }
  const std::map<std::string, NetworkPolicy>& network_policies() const {
    return objects_.network_policies;
  }
  const std::map<std::string, PodPluginAdditions>& pods() const { return pods_; }

  // Every created object as Kubernetes YAML documents (Secret data base64),
  // in kind then key order: what a controller would apply.
  std::string ManifestsYaml() const;

  // The per-task host names `<host>.<subdomain>` of the svc plugin.
  static std::map<std::string, std::vector<std::string>> TaskHosts(const VcJob& job);

  // The job's plugins in the order they run (unknown names left out).
  std::vector<std::unique_ptr<JobPlugin>> PluginsOf(const VcJob& job) const;

 private:
  void DeleteJobObjects(const std::string& job_key);
  void SyncJobObjects(const VcJob& job);
  PodPluginAdditions PodAdditions(const VcJob& job, const JobTask& task, const Pod& pod);
  // Logs `problem` for the job once (what Volcano logs at every sync).
  void WarnOnce(const std::string& job_key, const std::string& problem);

  SshKeySeeds seeds_;
  std::set<std::string> jobs_added_;         // job keys whose OnJobAdd ran
  std::set<std::string> jobs_with_objects_;  // job keys that may own objects
  JobPluginObjects objects_;
  std::map<std::string, PodPluginAdditions> pods_;
  std::map<std::string, std::string> pod_versions_;  // pod key -> job version of its additions
  std::set<std::string> warned_;                     // "job key|problem"
};

}  // namespace basalt
