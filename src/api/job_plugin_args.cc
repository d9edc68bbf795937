#include "api/job_plugin_args.h"

#include <cctype>
#include <functional>
#include <optional>

namespace basalt {
namespace {

// One flag a plugin defines: a boolean, an integer or a string, bound to the
// field of the plugin's argument struct it sets.
struct FlagSpec {
  const char* name;
  bool* boolean = nullptr;
  int64_t* integer = nullptr;
  std::string* text = nullptr;
};

std::string Field(const std::string& plugin, size_t i) {
  return "spec.plugins." + plugin + "[" + std::to_string(i) + "]";
}

std::string Known(const std::vector<FlagSpec>& specs) {
  if (specs.empty()) return "it takes no arguments";
  std::string out = "it knows ";
  for (size_t i = 0; i < specs.size(); ++i) out += (i ? ", --" : "--") + std::string(specs[i].name);
  return out;
}

// Go's strconv.ParseBool, which the flag package uses for boolean flags.
std::optional<bool> GoBool(const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False")
    return false;
  return std::nullopt;
}

// Go's strconv.ParseInt(v, 0, 64), which the flag package uses for int flags:
// an optional sign, then 0x / 0o / 0b / a leading 0 (octal) or decimal digits.
std::optional<int64_t> GoInt(const std::string& v) {
  size_t i = 0;
  bool negative = false;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) negative = v[i++] == '-';
  int base = 10;
  if (v.size() - i > 1 && v[i] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(v[i + 1])));
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    i += (p == 'x' || p == 'o' || p == 'b') ? 2 : 1;
  }
  if (i >= v.size()) return std::nullopt;
  unsigned __int128 value = 0;
  for (; i < v.size(); ++i) {
    const int c = std::tolower(static_cast<unsigned char>(v[i]));
    const int digit = std::isdigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
    if (digit >= base) return std::nullopt;
    value = value * base + digit;
    if (value > (static_cast<unsigned __int128>(1) << 63)) return std::nullopt;
  }
  if (!negative && value == (static_cast<unsigned __int128>(1) << 63)) return std::nullopt;
  return negative ? static_cast<int64_t>(-static_cast<__int128>(value))
                  : static_cast<int64_t>(value);
}

// Sets one flag from its text; false when the text is not of the flag's type.
bool SetFlag(const FlagSpec& spec, const std::string& value) {
  if (spec.boolean) {
    std::optional<bool> b = GoBool(value);
    if (b) *spec.boolean = *b;
    return b.has_value();
  }
  if (spec.integer) {
    std::optional<int64_t> n = GoInt(value);
    if (n) *spec.integer = *n;
    return n.has_value();
  }
  *spec.text = value;
  return true;
}

// Go's FlagSet.Parse with ContinueOnError: the flags are set in order; the
// first error stops the parse (what was set stays set) and is reported.
void ParseFlags(const std::string& plugin, const std::vector<std::string>& args,
                const std::vector<FlagSpec>& specs, JobPluginArgProblems* problems) {
  auto fail = [&](size_t i, const std::string& message) {
    if (problems) {
      problems->push_back({Field(plugin, i), message + "; Volcano logs this and ignores the " +
                                                 "arguments from here on"});
    }
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') return;  // the first non-flag ends the flags
    if (a == "--") return;
    const std::string body = a.substr(a[1] == '-' ? 2 : 1);
    if (body.empty() || body[0] == '-' || body[0] == '=') return fail(i, "bad flag syntax: " + a);
    const size_t eq = body.find('=');
    const std::string name = body.substr(0, eq);
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (!spec) {
      return fail(
          i, "unknown flag \"" + a + "\" for job plugin " + plugin + " (" + Known(specs) + ")");
    }
    std::string value;
    if (eq != std::string::npos) {
      value = body.substr(eq + 1);
    } else if (spec->boolean) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return fail(i, "--" + name + " needs a value");
    }
    if (!SetFlag(*spec, value)) {
      return fail(i, "--" + name + ": invalid " +
                         (spec->boolean   ? "boolean"
                          : spec->integer ? "integer"
                                          : "value") +
                         " \"" + value + "\"");
    }
  }
}

}  // namespace

SshPluginArgs ParseSshPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems) {
  SshPluginArgs out;
  ParseFlags("ssh", args,
             {{"ssh-key-file-path", nullptr, nullptr, &out.key_file_path},
              {"ssh-private-key", nullptr, nullptr, &out.private_key},
              {"ssh-public-key", nullptr, nullptr, &out.public_key},
              {"ssh-port", nullptr, &out.port, nullptr}},
             problems);
  if (out.port <= 0 || out.port > 65535) {
    if (problems) {
      problems->push_back({"spec.plugins.ssh", "--ssh-port=" + std::to_string(out.port) +
                                                   " is not a port; Volcano falls back to 22"});
    }
    out.port = 22;
  }
  return out;
}

SvcPluginArgs ParseSvcPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems) {
  SvcPluginArgs out;
  ParseFlags("svc", args,
             {{"publish-not-ready-addresses", &out.publish_not_ready_addresses},
              {"disable-network-policy", &out.disable_network_policy}},
             problems);
  return out;
}

PytorchPluginArgs ParsePytorchPluginArgs(const std::vector<std::string>& args,
                                         JobPluginArgProblems* problems) {
  PytorchPluginArgs out;
  ParseFlags("pytorch", args,
             {{"master", nullptr, nullptr, &out.master},
              {"worker", nullptr, nullptr, &out.worker},
              {"port", nullptr, &out.port, nullptr},
              {"wait-master-enabled", &out.wait_master_enabled},
              {"wait-master-timeout", nullptr, &out.wait_master_timeout, nullptr},
              {"wait-master-image", nullptr, nullptr, &out.wait_master_image}},
             problems);
  return out;
}

MpiPluginArgs ParseMpiPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems) {
  MpiPluginArgs out;
  ParseFlags("mpi", args,
             {{"master", nullptr, nullptr, &out.master},
              {"worker", nullptr, nullptr, &out.worker},
              {"port", nullptr, &out.port, nullptr}},
             problems);
  return out;
}

TensorflowPluginArgs ParseTensorflowPluginArgs(const std::vector<std::string>& args,
                                               JobPluginArgProblems* problems) {
  TensorflowPluginArgs out;
  ParseFlags("tensorflow", args,
             {{"ps", nullptr, nullptr, &out.ps},
              {"worker", nullptr, nullptr, &out.worker},
              {"chief", nullptr, nullptr, &out.chief},
              {"evaluator", nullptr, nullptr, &out.evaluator},
              {"port", nullptr, &out.port, nullptr}},
             problems);
  return out;
}

RayPluginArgs ParseRayPluginArgs(const std::vector<std::string>& args,
                                 JobPluginArgProblems* problems) {
  RayPluginArgs out;
  ParseFlags("ray", args,
             {{"head", nullptr, nullptr, &out.head},
              {"headContainer", nullptr, nullptr, &out.head_container},
              {"worker", nullptr, nullptr, &out.worker},
              {"workerContainer", nullptr, nullptr, &out.worker_container},
              {"port", nullptr, &out.port, nullptr},
              {"dashboardPort", nullptr, &out.dashboard_port, nullptr},
              {"clientPort", nullptr, &out.client_port, nullptr}},
             problems);
  return out;
}

HcclrankPluginArgs ParseHcclrankPluginArgs(const std::vector<std::string>& args,
                                           JobPluginArgProblems* problems) {
  HcclrankPluginArgs out;
  ParseFlags("hcclrank", args,
             {{"master", nullptr, nullptr, &out.master}, {"worker", nullptr, nullptr, &out.worker}},
             problems);
  return out;
}

Status CheckJobPluginNames(const std::map<std::string, std::vector<std::string>>& plugins) {
  for (const auto& [name, args] : plugins) {
    bool known = false;
    for (const char* n : kJobPluginNames) known |= name == n;
    if (known) continue;
    std::string list;
    for (const char* n : kJobPluginNames) list += std::string(list.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("spec.plugins." + name + ": unknown job plugin \"" + name +
                                   "\" (supported: " + list + ")");
  }
  return Status::Ok();
}

JobPluginArgProblems JobPluginArgumentProblems(
    const std::map<std::string, std::vector<std::string>>& plugins) {
  using Parser = std::function<void(const std::vector<std::string>&, JobPluginArgProblems*)>;
  const std::map<std::string, Parser> parsers = {
      {"env",
       [](const auto& a, auto* p) {
         if (!a.empty())
           p->push_back(
               {"spec.plugins.env", "job plugin env takes no arguments; Volcano ignores them"});
       }},
      {"hcclrank", [](const auto& a, auto* p) { ParseHcclrankPluginArgs(a, p); }},
      {"mpi", [](const auto& a, auto* p) { ParseMpiPluginArgs(a, p); }},
      {"pytorch", [](const auto& a, auto* p) { ParsePytorchPluginArgs(a, p); }},
      {"ray", [](const auto& a, auto* p) { ParseRayPluginArgs(a, p); }},
      {"ssh", [](const auto& a, auto* p) { ParseSshPluginArgs(a, p); }},
      {"svc", [](const auto& a, auto* p) { ParseSvcPluginArgs(a, p); }},
      {"tensorflow", [](const auto& a, auto* p) { ParseTensorflowPluginArgs(a, p); }},
  };
  JobPluginArgProblems out;
  for (const auto& [name, args] : plugins) {
    auto it = parsers.find(name);
    if (it != parsers.end()) it->second(args, &out);
  }
  return out;
}

}  // namespace basalt
