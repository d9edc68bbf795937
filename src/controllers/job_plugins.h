// The vcjob job plugins (`spec.plugins`: ssh, svc, env), as Volcano's job
// controller runs them (pkg/controllers/job/plugins): on job add each plugin
// creates its cluster objects, on pod creation it adds to the pod, on job
// delete its objects go.
//
//   ssh  Secret `<job>-ssh` {id_rsa, id_rsa.pub, config}; every pod gets a
//        secret volume `<job>-ssh` (items id_rsa, id_rsa.pub, authorized_keys
//        (= the public key), config under `.ssh/`, mode 0600, or 0755 when the
//        path is not /root/.ssh) mounted into every container at the key path
//        (`--ssh-key-file-path`, default /root/.ssh; `--no-root`:
//        /etc/volcano/.ssh) with subPath `.ssh`.
//   svc  headless Service `<job>` (clusterIP None, selector
//        volcano.sh/job-name + volcano.sh/job-namespace,
//        publishNotReadyAddresses from the argument); ConfigMap `<job>-svc`
//        with, per task T (T_ = T with '-' -> '_'), `T_.host` (host names, one
//        a line), `VC_<T_ upper>_HOSTS` (comma-joined) and `VC_<T_ upper>_NUM`;
//        NetworkPolicy `<job>` (ingress only from the job's pods) unless
//        `--disable-network-policy`; every pod gets hostname = its name (unless
//        the template sets one), subdomain = the job name, a configMap volume
//        mounted at /etc/volcano in every container and init container, and the
//        env vars VC_<T>_HOSTS / VC_<T>_NUM of every task (from the ConfigMap).
//   env  VK_TASK_INDEX and VC_TASK_INDEX = the pod's index in its task, in
//        every container and init container.
//
// A host name is `<pod>.<job>` (`<template hostname>.<template subdomain or
// job>` when the template sets a hostname: then one per task, as Volcano).
//
// Plugins run in name order (env, ssh, svc), so env vars and mounts come in
// that order; Volcano walks a Go map (random order).
//
// Key pairs: Volcano generates a 1024-bit RSA key. basalt generates an
// Ed25519 key (OpenSSH format, libcrypto) from a 32-byte seed given by an
// injected `SshKeySeeds` function, so tests and simulations are reproducible
// (`SeededSshKeys`) while a live use draws from the system's RNG
// (`RandomSshKeys`). The secret keeps Volcano's key names (`id_rsa`...): ssh
// reads the key type from the file, not its name (docs/differences.md).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "state/cluster_state.h"

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

// What the plugins add to one container of a pod.
struct ContainerAdditions {
  std::string name;
  bool init = false;
  std::vector<EnvVar> env;
  std::vector<VolumeMount> mounts;
};

// What the plugins add to one pod (OnPodCreate).
struct PodPluginAdditions {
  std::string hostname;   // svc: empty when svc is off
  std::string subdomain;  // svc
  std::vector<PluginVolume> volumes;
  std::vector<ContainerAdditions>
      containers;  // containers, then init containers, in template order
};

struct Service {
  ObjectMeta meta;
  std::string cluster_ip = "None";
  std::map<std::string, std::string> selector;
  bool publish_not_ready_addresses = false;
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

// 32 bytes of key material for the job `ns/name`.
using SshKeySeeds = std::function<std::array<uint8_t, 32>(const std::string& job_key)>;
// SHA-256(seed, job key): the same seed gives the same keys.
SshKeySeeds SeededSshKeys(uint64_t seed);
// The system's cryptographic RNG (OpenSSL RAND_bytes).
SshKeySeeds RandomSshKeys();

struct SshKeyPair {
  std::string private_key;  // "-----BEGIN OPENSSH PRIVATE KEY-----\n..."
  std::string public_key;   // "ssh-ed25519 AAAA...\n" (authorized_keys line)
};
// An Ed25519 key pair from its 32-byte seed, in OpenSSH's formats.
SshKeyPair MakeSshKeyPair(const std::array<uint8_t, 32>& seed);

class JobPluginController {
 public:
  explicit JobPluginController(SshKeySeeds seeds = SeededSshKeys(0)) : seeds_(std::move(seeds)) {}

  // Brings the plugin objects in line with the store: for every job with
  // plugins, creates its objects once (the svc ConfigMap is refreshed every
  // time, as Volcano's OnJobUpdate does on scaling) and computes the additions
  // of each of its pods; drops the objects of jobs that are gone and the
  // additions of pods that are gone. Arguments were checked when the job was
  // decoded; a job whose arguments still fail to parse is skipped.
  void Sync(const ClusterState& state);

  // The created objects by "ns/name" and the pod additions by pod key.
  const std::map<std::string, Service>& services() const { return services_; }
  const std::map<std::string, Secret>& secrets() const { return secrets_; }
  const std::map<std::string, ConfigMap>& config_maps() const { return config_maps_; }
  const std::map<std::string, NetworkPolicy>& network_policies() const { return network_policies_; }
  const std::map<std::string, PodPluginAdditions>& pods() const { return pods_; }

  // Every created object as Kubernetes YAML documents (Secret data base64),
  // in kind then key order: what a controller would apply.
  std::string ManifestsYaml() const;

  // The per-task host names `<host>.<subdomain>` of the svc plugin.
  static std::map<std::string, std::vector<std::string>> TaskHosts(const VcJob& job);

 private:
  void AddJobObjects(const VcJob& job);
  void DeleteJobObjects(const std::string& job_key);
  PodPluginAdditions PodAdditions(const VcJob& job, const JobTask& task, const Pod& pod) const;

  SshKeySeeds seeds_;
  std::set<std::string> jobs_with_objects_;  // job keys whose OnJobAdd ran
  std::map<std::string, Service> services_;
  std::map<std::string, Secret> secrets_;
  std::map<std::string, ConfigMap> config_maps_;
  std::map<std::string, NetworkPolicy> network_policies_;
  std::map<std::string, PodPluginAdditions> pods_;
};

}  // namespace basalt
