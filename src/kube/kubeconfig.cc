#include "kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/decode.h"
#include "api/file_text.h"
#include "api/text.h"

namespace basalt::kube {
namespace {

std::string Resolve(const std::string& base_dir, const std::string& file) {
  if (file.empty() || file[0] == '/' || base_dir.empty()) return file;
  return base_dir + "/" + file;
}

// A string field of a mapping; absent is "", a non-scalar is an error.
Result<std::string> Field(const YAML::Node& map, const std::string& key, const std::string& where) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return std::string();
  if (!n.IsScalar()) return Status::InvalidArgument(where + "." + key + ": expected a string");
  return n.Scalar();
}

// Finds the entry `name` in a list of {name, <inner>: {...}}; returns the inner
// mapping and its index for messages.
Result<YAML::Node> Named(const YAML::Node& root, const std::string& list, const std::string& inner,
                         const std::string& name, std::string* where) {
  YAML::Node items = root[list];
  if (items && !items.IsNull() && !items.IsSequence())
    return Status::InvalidArgument(list + ": expected a list");
  if (items) {
    for (size_t i = 0; i < items.size(); ++i) {
      YAML::Node item = items[i];
      if (!item.IsMap()) continue;
      YAML::Node n = item["name"];
      if (n && n.IsScalar() && n.Scalar() == name) {
        *where = list + "[" + std::to_string(i) + "]." + inner;
        YAML::Node body = item[inner];
        if (!body || body.IsNull()) return YAML::Node(YAML::NodeType::Map);
        if (!body.IsMap()) return Status::InvalidArgument(*where + ": expected a mapping");
        return body;
      }
    }
  }
  return Status::InvalidArgument(list + ": no entry named \"" + name + "\"");
}

Status Pem(const YAML::Node& map, const std::string& where, const std::string& data_key,
           const std::string& file_key, const std::string& base_dir, std::string* pem,
           std::string* file) {
  auto data = Field(map, data_key, where);
  if (!data.ok()) return data.status();
  if (!data->empty()) {
    auto decoded = Base64Decode(*data);
    if (!decoded.ok())
      return Status::InvalidArgument(where + "." + data_key + ": " + decoded.status().message());
    *pem = *decoded;
    return Status::Ok();
  }
  auto f = Field(map, file_key, where);
  if (!f.ok()) return f.status();
  if (!f->empty()) {
    *file = Resolve(base_dir, *f);
    std::ifstream probe(*file);
    if (!probe)
      return Status::InvalidArgument(where + "." + file_key + ": cannot read \"" + *file + "\"");
  }
  return Status::Ok();
}

Result<KubeConfig> ParseTree(const YAML::Node& root, const std::string& path,
                             const std::string& context_override) {
  std::string base_dir;
  auto slash = path.rfind('/');
  if (slash != std::string::npos) base_dir = path.substr(0, slash);
  if (!root.IsMap()) return Status::InvalidArgument("(top level): expected a mapping");
  std::string ctx_name = context_override;
  if (ctx_name.empty()) {
    auto cur = Field(root, "current-context", "");
    if (!cur.ok()) return cur.status();
    ctx_name = *cur;
  }
  if (ctx_name.empty())
    return Status::InvalidArgument("current-context: not set and no context given");
  std::string where;
  auto ctx = Named(root, "contexts", "context", ctx_name, &where);
  if (!ctx.ok()) return ctx.status();
  auto cluster_name = Field(*ctx, "cluster", where);
  auto user_name = Field(*ctx, "user", where);
  auto ns = Field(*ctx, "namespace", where);
  if (!cluster_name.ok()) return cluster_name.status();
  if (!user_name.ok()) return user_name.status();
  if (!ns.ok()) return ns.status();
  if (cluster_name->empty()) return Status::InvalidArgument(where + ".cluster: required");

  KubeConfig cfg;
  cfg.source = path;
  cfg.namespace_ = *ns;
  auto cluster = Named(root, "clusters", "cluster", *cluster_name, &where);
  if (!cluster.ok()) return cluster.status();
  auto server = Field(*cluster, "server", where);
  if (!server.ok()) return server.status();
  if (server->empty()) return Status::InvalidArgument(where + ".server: required");
  if (server->rfind("https://", 0) != 0 && server->rfind("http://", 0) != 0) {
    return Status::InvalidArgument(where + ".server: \"" + *server + "\" is not an http(s) URL");
  }
  cfg.server = *server;
  BASALT_RETURN_IF_ERROR(Pem(*cluster, where, "certificate-authority-data", "certificate-authority",
                             base_dir, &cfg.tls.ca_pem, &cfg.tls.ca_file));
  YAML::Node insecure = (*cluster)["insecure-skip-tls-verify"];
  if (insecure && !insecure.IsNull()) {
    auto b = insecure.IsScalar() ? ParseYamlBool(insecure.Scalar()) : std::nullopt;
    if (!b)
      return Status::InvalidArgument(where + ".insecure-skip-tls-verify: expected true or false");
    cfg.tls.insecure_skip_verify = *b;
  }

  if (!user_name->empty()) {
    auto user = Named(root, "users", "user", *user_name, &where);
    if (!user.ok()) return user.status();
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if ((*user)[unsupported]) {
        return Status::InvalidArgument(
            where + "." + unsupported +
            ": not supported by basalt (use a token or a client certificate)");
      }
    }
    BASALT_RETURN_IF_ERROR(Pem(*user, where, "client-certificate-data", "client-certificate",
                               base_dir, &cfg.tls.client_cert_pem, &cfg.tls.client_cert_file));
    BASALT_RETURN_IF_ERROR(Pem(*user, where, "client-key-data", "client-key", base_dir,
                               &cfg.tls.client_key_pem, &cfg.tls.client_key_file));
    bool has_cert = !cfg.tls.client_cert_pem.empty() || !cfg.tls.client_cert_file.empty();
    bool has_key = !cfg.tls.client_key_pem.empty() || !cfg.tls.client_key_file.empty();
    if (has_cert != has_key) {
      return Status::InvalidArgument(where +
                                     ": client-certificate and client-key must be given together");
    }
    auto token = Field(*user, "token", where);
    if (!token.ok()) return token.status();
    cfg.token = *token;
    auto token_file = Field(*user, "tokenFile", where);
    if (!token_file.ok()) return token_file.status();
    if (cfg.token.empty() && !token_file->empty()) {
      auto t = ReadFileOrError(Resolve(base_dir, *token_file), "file");
      if (!t.ok()) return t.status().WithContext(where + ".tokenFile");
      cfg.token = std::string(Trim(*t));
    }
  }
  return cfg;
}

}  // namespace

Result<std::string> Base64Decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    int v = value(c);
    if (v < 0 || padding) return Status::InvalidArgument("invalid base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bits >= 6) return Status::InvalidArgument("invalid base64 (truncated)");
  return out;
}

Result<KubeConfig> ParseKubeconfig(const std::string& text, const std::string& path,
                                   const std::string& context) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(path + ":" + std::to_string(e.mark.line + 1) +
                                   ": malformed YAML: " + e.msg);
  }
  size_t budget = 1000000;
  int line = 0;
  if (Status s = CheckYamlTree(root, &budget, &line); !s.ok()) return s.WithContext(path);
  try {
    auto cfg = ParseTree(root, path, context);
    if (!cfg.ok()) return cfg.status().WithContext(path);
    return cfg;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(path + ": " + e.what());
  }
}

Result<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  auto text = ReadFileOrError(path, "kubeconfig");
  if (!text.ok()) return text.status();
  return ParseKubeconfig(*text, path, context);
}

Result<KubeConfig> InClusterConfig(const InClusterEnv& env) {
  auto get = [&](const std::string& name) -> std::string {
    if (env.getenv) return env.getenv(name);
    const char* v = std::getenv(name.c_str());
    return v ? v : "";
  };
  std::string host = get("KUBERNETES_SERVICE_HOST"), port = get("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return Status::FailedPrecondition(
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (not running "
        "in a pod?)");
  }
  KubeConfig cfg;
  cfg.source = "in-cluster";
  // An IPv6 service address needs brackets in a URL.
  bool v6 = host.find(':') != std::string::npos;
  cfg.server = "https://" + (v6 ? "[" + host + "]" : host) + ":" + port;
  auto token = ReadFileOrError(env.token_path, "file");
  if (!token.ok()) return token.status().WithContext("in-cluster: service account token");
  cfg.token = std::string(Trim(*token));
  if (cfg.token.empty())
    return Status::FailedPrecondition("in-cluster: service account token " + env.token_path +
                                      " is empty");
  std::ifstream ca(env.ca_path);
  if (!ca) return Status::FailedPrecondition("in-cluster: cannot read CA \"" + env.ca_path + "\"");
  cfg.tls.ca_file = env.ca_path;
  auto ns = ReadFileOrError(env.namespace_path, "in-cluster namespace file");
  if (ns.ok()) cfg.namespace_ = std::string(Trim(*ns));
  return cfg;
}

std::string KubeconfigPathAsVcctl(const std::string& flag_path) {
  if (!flag_path.empty()) return flag_path;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != 0) {
    const std::string list = env;
    return list.substr(0, list.find(':'));
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != 0) {
    std::error_code ec;
    const std::string candidate = std::string(home) + "/.kube/config";
    if (std::filesystem::exists(candidate, ec)) return candidate;
  }
  return "";
}

}  // namespace basalt::kube
