#include "api/job_plugin_args.h"

#include <optional>

namespace basalt {
namespace {

struct FlagSpec {
  const char* name;
  bool boolean;
};

// One parsed flag: its name, its value (a boolean's is "true"/"false") and the
// index of the item it came from (for messages).
struct ParsedFlag {
  std::string name;
  std::string value;
  size_t index = 0;
};

std::string Field(const std::string& plugin, size_t i) {
  return "spec.plugins." + plugin + "[" + std::to_string(i) + "]";
}

std::string Known(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const FlagSpec& s : specs) out += std::string(out.empty() ? "--" : ", --") + s.name;
  return out;
}

// Go's strconv.ParseBool, which the flag package uses for boolean flags.
std::optional<bool> GoBool(const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False")
    return false;
  return std::nullopt;
}

Result<std::vector<ParsedFlag>> ParseFlags(const std::string& plugin,
                                           const std::vector<std::string>& args,
                                           const std::vector<FlagSpec>& specs) {
  std::vector<ParsedFlag> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string field = Field(plugin, i);
    if (a.size() < 2 || a[0] != '-' || a == "--") {
      // Go stops at the first non-flag; what follows would be ignored there.
      return Status::InvalidArgument(field + ": \"" + a + "\" is not a flag" +
                                     (specs.empty()
                                          ? " (job plugin " + plugin + " takes no arguments)"
                                          : " (want one of " + Known(specs) + ")"));
    }
    std::string body = a.substr(a[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (!spec) {
      return Status::InvalidArgument(
          field + ": unknown flag \"" + a + "\" for job plugin " + plugin +
          (specs.empty() ? " (it takes no arguments)" : " (want one of " + Known(specs) + ")"));
    }
    ParsedFlag f{name, value, i};
    if (spec->boolean) {
      if (!has_value) {
        f.value = "true";
      } else {
        std::optional<bool> b = GoBool(value);
        if (!b)
          return Status::InvalidArgument(field + ": --" + name + ": invalid boolean \"" + value +
                                         "\"");
        f.value = *b ? "true" : "false";
      }
    } else if (!has_value) {
      if (i + 1 >= args.size())
        return Status::InvalidArgument(field + ": --" + name + " needs a value");
      f.value = args[++i];
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

Result<SshPluginArgs> ParseSshPluginArgs(const std::vector<std::string>& args) {
  const std::vector<FlagSpec> specs = {{"no-root", true},
                                       {"ssh-key-file-path", false},
                                       {"ssh-private-key", false},
                                       {"ssh-public-key", false}};
  BASALT_ASSIGN_OR_RETURN(std::vector<ParsedFlag> flags, ParseFlags("ssh", args, specs));
  SshPluginArgs out;
  bool path_given = false;
  size_t private_at = 0, public_at = 0;
  for (const ParsedFlag& f : flags) {
    if (f.name == "no-root") {
      out.no_root = f.value == "true";
    } else if (f.name == "ssh-key-file-path") {
      if (f.value.empty() || f.value[0] != '/') {
        return Status::InvalidArgument(Field("ssh", f.index) +
                                       ": --ssh-key-file-path: must be an absolute path, got \"" +
                                       f.value + "\"");
      }
      out.key_file_path = f.value;
      path_given = true;
    } else if (f.name == "ssh-private-key") {
      if (f.value.find("PRIVATE KEY-----") == std::string::npos) {
        return Status::InvalidArgument(
            Field("ssh", f.index) +
            ": --ssh-private-key: expected a PEM or OpenSSH private key (\"-----BEGIN ... "
            "PRIVATE KEY-----\")");
      }
      out.private_key = f.value;
      private_at = f.index;
    } else {
      if (f.value.rfind("ssh-", 0) != 0 && f.value.rfind("ecdsa-", 0) != 0) {
        return Status::InvalidArgument(
            Field("ssh", f.index) +
            ": --ssh-public-key: expected an authorized_keys line (\"ssh-rsa AAAA...\")");
      }
      out.public_key = f.value;
      public_at = f.index;
    }
  }
  if (out.private_key.empty() != out.public_key.empty()) {
    const size_t at = out.private_key.empty() ? public_at : private_at;
    return Status::InvalidArgument(
        Field("ssh", at) + ": --ssh-private-key and --ssh-public-key must be given together");
  }
  // As Volcano: --no-root moves only the default path.
  if (out.no_root && !path_given) out.key_file_path = kSshNoRootKeyPath;
  return out;
}

Result<SvcPluginArgs> ParseSvcPluginArgs(const std::vector<std::string>& args) {
  const std::vector<FlagSpec> specs = {{"publish-not-ready-addresses", true},
                                       {"disable-network-policy", true}};
  BASALT_ASSIGN_OR_RETURN(std::vector<ParsedFlag> flags, ParseFlags("svc", args, specs));
  SvcPluginArgs out;
  for (const ParsedFlag& f : flags) {
    (f.name == "publish-not-ready-addresses" ? out.publish_not_ready_addresses
                                             : out.disable_network_policy) = f.value == "true";
  }
  return out;
}

Status CheckJobPlugins(const std::map<std::string, std::vector<std::string>>& plugins) {
  for (const auto& [name, args] : plugins) {
    if (name == "ssh") {
      BASALT_RETURN_IF_ERROR(ParseSshPluginArgs(args).status());
    } else if (name == "svc") {
      BASALT_RETURN_IF_ERROR(ParseSvcPluginArgs(args).status());
    } else if (name == "env") {
      BASALT_RETURN_IF_ERROR(ParseFlags("env", args, {}).status());
    } else {
      std::string known;
      for (const char* n : kJobPluginNames) known += std::string(known.empty() ? "" : ", ") + n;
      return Status::InvalidArgument("spec.plugins." + name + ": unknown job plugin \"" + name +
                                     "\" (supported: " + known + ")");
    }
  }
  return Status::Ok();
}

}  // namespace basalt
