// Arguments of the vcjob job plugins (`spec.plugins` of a batch.volcano.sh Job):
//
//   plugins:
//     ssh: ["--ssh-key-file-path=/home/user/.ssh", "--ssh-port=2222"]
//     svc: ["--publish-not-ready-addresses=false", "--disable-network-policy=true"]
//     pytorch: ["--master=master", "--worker=worker", "--port=23456"]
//     env: []
//
// Volcano parses each list with Go's `flag` package (ContinueOnError) and only
// logs a parse error: the flags before the bad item keep their values, the
// rest keep their defaults, and the job runs. basalt does the same: a problem
// never refuses the job; it is returned for the caller to warn about (the
// decoder makes it a finding of `basalt validate`, the controller logs it).
// The accepted spellings are Go's: `-name` or `--name`, `=value` attached or
// (for non-boolean flags) the value as the next item; a boolean flag given
// bare means true. Parsing stops quietly at the first item that is not a flag
// and after `--`, as Go's does.
//
// An unknown plugin name is another matter: Volcano's admission webhook
// refuses the job, and so does basalt's decoder (`CheckJobPluginNames`).
//
// Every problem names the field as `spec.plugins.<name>[i]`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

// The job plugins basalt implements, in name order (Volcano v1.15.1's set).
inline constexpr const char* kJobPluginNames[] = {"env", "hcclrank", "mpi", "pytorch",
                                                  "ray", "ssh",      "svc", "tensorflow"};

// One problem with a plugin's arguments: what Volcano would log.
struct JobPluginArgProblem {
  std::string field;    // "spec.plugins.svc[0]"
  std::string message;  // "unknown flag \"--enable-networking\" ..."
  std::string ToString() const { return field + ": " + message; }
};
using JobPluginArgProblems = std::vector<JobPluginArgProblem>;

struct SshPluginArgs {
  // `--ssh-key-file-path`: where the key pair and config are mounted.
  std::string key_file_path = "/root/.ssh";
  // `--ssh-private-key` / `--ssh-public-key`: a key pair supplied by the user
  // instead of a generated one (used when the private key is given).
  std::string private_key;
  std::string public_key;
  // `--ssh-port`: the Port of every host in the ssh config (out of 1..65535:
  // 22, as Volcano falls back).
  int64_t port = 22;
};

struct SvcPluginArgs {
  // `--publish-not-ready-addresses`: the Service's publishNotReadyAddresses.
  bool publish_not_ready_addresses = false;
  // `--disable-network-policy`: no NetworkPolicy for the job.
  bool disable_network_policy = false;
};

struct PytorchPluginArgs {
  std::string master = "master";
  std::string worker = "worker";
  int64_t port = 23456;
  bool wait_master_enabled = false;
  int64_t wait_master_timeout = 300;
  std::string wait_master_image = "busybox:1.36.1";
};

struct MpiPluginArgs {
  std::string master = "master";
  std::string worker = "worker";
  int64_t port = 22;
};

struct TensorflowPluginArgs {
  std::string ps = "ps";
  std::string worker = "worker";
  std::string chief = "chief";
  std::string evaluator = "evaluator";
  int64_t port = 2222;
};

struct RayPluginArgs {
  std::string head = "head";
  std::string head_container = "head";
  std::string worker = "worker";
  std::string worker_container = "worker";
  int64_t port = 6379;
  int64_t dashboard_port = 8265;
  int64_t client_port = 10001;
};

struct HcclrankPluginArgs {
  std::string master = "master";
  std::string worker = "worker";
};

// The default key path (the Secret's files are 0600 there, 0644 elsewhere).
inline constexpr const char* kSshRootKeyPath = "/root/.ssh";

// Each parser returns the arguments as Volcano ends up with them and appends
// what Volcano would log to `problems` (may be null).
SshPluginArgs ParseSshPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems = nullptr);
SvcPluginArgs ParseSvcPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems = nullptr);
PytorchPluginArgs ParsePytorchPluginArgs(const std::vector<std::string>& args,
                                         JobPluginArgProblems* problems = nullptr);
MpiPluginArgs ParseMpiPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems = nullptr);
TensorflowPluginArgs ParseTensorflowPluginArgs(const std::vector<std::string>& args,
                                               JobPluginArgProblems* problems = nullptr);
RayPluginArgs ParseRayPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems = nullptr);
HcclrankPluginArgs ParseHcclrankPluginArgs(const std::vector<std::string>& args,
                                           JobPluginArgProblems* problems = nullptr);

// Refuses a plugin name Volcano does not know (its webhook's rule):
// `spec.plugins.foo: unknown job plugin "foo" (supported: ...)`.
Status CheckJobPluginNames(const std::map<std::string, std::vector<std::string>>& plugins);

// The argument problems of every known plugin of a `spec.plugins` map, in
// plugin name order (unknown names are CheckJobPluginNames' business).
JobPluginArgProblems JobPluginArgumentProblems(
    const std::map<std::string, std::vector<std::string>>& plugins);

}  // namespace basalt
