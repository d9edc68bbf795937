// Where the API server is and how to authenticate: a kubeconfig file or the
// in-cluster service account.
//
// Kubeconfig: the context named by `context` (or `current-context`) selects a
// cluster (server, certificate-authority[-data], insecure-skip-tls-verify) and
// a user (client-certificate[-data], client-key[-data], token, tokenFile).
// Relative file paths are relative to the kubeconfig's folder, as in kubectl.
// Every error names the file and the field ("~/.kube/config: users[0].user:
// client-key-data: invalid base64"); the CLI exits 2 on them.
//
// Not supported (an error naming the field, rather than silently connecting
// unauthenticated): `exec` and `auth-provider` credential plugins, username/
// password.
#pragma once

#include <functional>
#include <string>

#include "api/status.h"
#include "kube/http.h"

namespace basalt::kube {

struct KubeConfig {
  std::string server;  // "https://host:port"
  std::string token;
  TlsConfig tls;
  std::string namespace_;  // context namespace or the service account's; may be empty
  std::string source;      // the file, or "in-cluster"
};

// Parses kubeconfig `text`; `path` names the file in messages and anchors
// relative paths. `context` overrides current-context when non-empty.
Result<KubeConfig> ParseKubeconfig(const std::string& text, const std::string& path,
                                   const std::string& context = "");
// Reads and parses the file at `path`.
Result<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

// In-cluster configuration: KUBERNETES_SERVICE_HOST / _PORT and the service
// account's files. Paths and the environment are injectable for tests.
struct InClusterEnv {
  std::string token_path = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_path = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_path = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  std::function<std::string(const std::string&)> getenv;  // null: the process environment
};
Result<KubeConfig> InClusterConfig(const InClusterEnv& env = {});

// The kubeconfig file vcctl would use: `flag_path` (--kubeconfig) when given,
// else the first file of $KUBECONFIG, else ~/.kube/config when it exists; ""
// when none applies (the caller then falls back to InClusterConfig).
std::string KubeconfigPathAsVcctl(const std::string& flag_path);

// Standard base64 (RFC 4648, padding optional, whitespace ignored).
Result<std::string> Base64Decode(const std::string& text);

}  // namespace basalt::kube
