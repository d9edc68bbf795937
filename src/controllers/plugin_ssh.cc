// Job plugin `ssh` (arguments: --ssh-key-file-path (default /root/.ssh),
// --ssh-private-key / --ssh-public-key (a key pair of the user's own),
// --ssh-port (default 22)):
//
//   OnJobAdd     Secret `<job>-ssh`: id_rsa, id_rsa.pub, authorized_keys (the
//                public key) and config (`StrictHostKeyChecking no`,
//                `UserKnownHostsFile /dev/null`, then per pod `Host <host>`,
//                `  HostName <host>.<subdomain or job>`, `  Port <port>`).
//   OnPodCreate  a secret volume `<job>-ssh` (the four keys under `.ssh/`,
//                mode 0600 at /root/.ssh, else 0644) mounted at the key path
//                with subPath `.ssh` in every container and init container.
//
// The key pair is an Ed25519 key in OpenSSH's format made from 32 bytes the
// injected SshKeySeeds gives (Volcano makes an RSA key; see job_plugins.h).
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

#include "api/job_plugin_args.h"
#include "controllers/job_plugins.h"

namespace basalt {
namespace {

constexpr const char* kRelativePath = ".ssh";

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

std::string SshConfig(const VcJob& job, int64_t port) {
  std::string config = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n";
  for (const JobTask& t : job.tasks) {
    for (int i = 0; i < t.replicas; ++i) {
      const std::string host =
          t.hostname.empty() ? job_plugin_util::PodName(job.meta.name, t.name, i) : t.hostname;
      config += "Host " + host + "\n  HostName " + job_plugin_util::DomainName(job, t, i) +
                "\n  Port " + std::to_string(port) + "\n";
      if (!t.hostname.empty()) break;
    }
  }
  return config;
}

class SshPlugin : public JobPlugin {
 public:
  SshPlugin(SshPluginArgs args, SshKeySeeds seeds)
      : args_(std::move(args)), seeds_(std::move(seeds)) {}

  Status OnJobAdd(const VcJob& job, JobPluginObjects* objects) override {
    SshKeyPair pair;
    if (!args_.private_key.empty()) {
      pair.private_key = args_.private_key;
      pair.public_key = args_.public_key;
    } else {
      BASALT_ASSIGN_OR_RETURN(auto seed, seeds_(job.meta.Key()));
      BASALT_ASSIGN_OR_RETURN(pair, MakeSshKeyPair(seed));
    }
    Secret s;
    s.meta = job_plugin_util::OwnedBy(job, SecretName(job));
    s.data["id_rsa"] = pair.private_key;
    s.data["id_rsa.pub"] = pair.public_key;
    s.data["authorized_keys"] = pair.public_key;
    s.data["config"] = SshConfig(job, args_.port);
    objects->secrets[job_plugin_util::ObjectKey(job, s.meta.name)] = std::move(s);
    return Status::Ok();
  }

  Status OnPodCreate(const VcJob& job, const JobTask& /*task*/, const Pod& /*pod*/,
                     PodPluginAdditions* out) override {
    const std::string name = SecretName(job);
    const std::string rel = kRelativePath;
    PluginVolume v;
    v.name = name;
    v.secret_name = name;
    v.items = {{"id_rsa", rel + "/id_rsa"},
               {"id_rsa.pub", rel + "/id_rsa.pub"},
               {"authorized_keys", rel + "/authorized_keys"},
               {"config", rel + "/config"}};
    v.default_mode = args_.key_file_path == kSshRootKeyPath ? 0600 : 0644;
    out->volumes.push_back(std::move(v));
    for (ContainerAdditions& c : out->containers)
      c.mounts.push_back({name, args_.key_file_path, rel});
    return Status::Ok();
  }

 private:
  static std::string SecretName(const VcJob& job) { return job.meta.name + "-ssh"; }

  SshPluginArgs args_;
  SshKeySeeds seeds_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeSshPlugin(const std::vector<std::string>& args, SshKeySeeds seeds) {
  return std::make_unique<SshPlugin>(ParseSshPluginArgs(args), std::move(seeds));
}

SshKeySeeds SeededSshKeys(uint64_t seed) {
  return [seed](const std::string& job_key) -> Result<std::array<uint8_t, 32>> {
    std::string input;
    PutU32(input, static_cast<uint32_t>(seed >> 32));
    PutU32(input, static_cast<uint32_t>(seed));
    input += job_key;
    std::array<uint8_t, 32> out{};
    unsigned int len = 0;
    if (EVP_Digest(input.data(), input.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
        len != 32) {
      return Status::Internal("ssh key seed: SHA-256 failed (libcrypto without SHA-256)");
    }
    return out;
  };
}

SshKeySeeds RandomSshKeys() {
  return [](const std::string&) -> Result<std::array<uint8_t, 32>> {
    std::array<uint8_t, 32> out{};
    if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
      return Status::Internal("ssh key seed: the system's RNG (RAND_bytes) failed");
    return out;
  };
}

Result<SshKeyPair> MakeSshKeyPair(const std::array<uint8_t, 32>& seed) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()),
      &EVP_PKEY_free);
  std::array<uint8_t, 32> pub{};
  size_t pub_len = pub.size();
  if (!key || EVP_PKEY_get_raw_public_key(key.get(), pub.data(), &pub_len) != 1 || pub_len != 32)
    return Status::Internal("ssh key pair: libcrypto cannot derive an Ed25519 key");
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
  const std::string b64 = job_plugin_util::Base64(blob);
  out.private_key = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
  for (size_t i = 0; i < b64.size(); i += 70) out.private_key += b64.substr(i, 70) + "\n";
  out.private_key += "-----END OPENSSH PRIVATE KEY-----\n";
  out.public_key = type + " " + job_plugin_util::Base64(pub_blob) + "\n";
  return out;
}

}  // namespace basalt
