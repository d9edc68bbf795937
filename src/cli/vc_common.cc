#include "cli/vc_common.h"

#include <ctime>
#include <iostream>

#include "api/decode.h"
#include "api/log.h"
#include "api/yaml_json.h"

namespace basalt {

void AddBackendFlags(CLI::App* cmd, BackendFlags* flags) {
  cmd->add_option("--cluster", flags->store.cluster_dir,
                  "Folder of manifests to work on instead of a cluster (docs/cli.md)");
  cmd->add_option("--kubeconfig,-k", flags->store.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else in-cluster)");
  cmd->add_option("--context", flags->store.context,
                  "kubeconfig context (default: current-context)");
  cmd->add_option(
         "--seed", flags->store.seed,
         "With --cluster: seed of generated name suffixes (the API server draws them at random)")
      ->capture_default_str();
  // Hidden (empty group): tests and reproducible docs fix "now" for ages.
  cmd->add_option("--now", flags->now, "Current time for ages, RFC 3339")->group("");
}

Result<int64_t> NowSeconds(const BackendFlags& flags) {
  if (flags.now.empty()) return static_cast<int64_t>(std::time(nullptr));
  auto t = ParseTimestamp(flags.now);
  if (!t.ok()) return t.status().WithContext("--now");
  return *t;
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case Status::Code::kOk:
      return 0;
    case Status::Code::kUnavailable:
    case Status::Code::kInternal:
      return 1;
    default:
      return 2;
  }
}

void SetAction(CLI::App* cmd, CliOutcome* outcome, std::function<Status()> body) {
  cmd->callback([outcome, body = std::move(body)] {
    outcome->ran = true;
    Status st;
    try {
      st = body();
    } catch (const std::exception& e) {
      // Nothing below throws on user input; this keeps a bug from aborting.
      st = Status::Internal(std::string("internal error: ") + e.what());
    }
    if (!st.ok()) CliLog().error("{}", st.message());
    outcome->exit_code = ExitCodeFor(st);
  });
}

Status CheckOutputFormat(const std::string& format) {
  if (format.empty() || format == "json" || format == "yaml") return Status::Ok();
  return Status::InvalidArgument("--output: unknown format \"" + format + "\" (want json or yaml)");
}

void PrintObject(const Json& obj, const std::string& format, std::ostream& out) {
  if (format == "yaml") {
    out << JsonToYaml(obj);
  } else {
    out << obj.dump(2) << "\n";
  }
}

Json MakeVcctlCommand(const Json& target, const std::string& action) {
  Json ref = {{"apiVersion", StrAt(target, "/apiVersion")},
              {"kind", StrAt(target, "/kind")},
              {"name", Meta(target, "name")},
              {"uid", Meta(target, "uid")},
              {"controller", true},
              {"blockOwnerDeletion", true}};
  std::string lower = action;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Json meta = {{"generateName", Meta(target, "name") + "-" + lower + "-"},
               {"ownerReferences", Json::array({ref})}};
  if (!Meta(target, "namespace").empty()) meta["namespace"] = Meta(target, "namespace");
  return Json{{"apiVersion", "bus.volcano.sh/v1alpha1"},
              {"kind", "Command"},
              {"metadata", meta},
              {"target", ref},
              {"action", action}};
}

std::string Meta(const Json& obj, const char* field) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  auto it = meta->find(field);
  return it != meta->end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t IntAt(const Json& obj, const char* pointer) {
  Json::json_pointer p(pointer);
  if (!obj.contains(p)) return 0;
  const Json& v = obj.at(p);
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

std::string StrAt(const Json& obj, const char* pointer) {
  Json::json_pointer p(pointer);
  if (!obj.contains(p)) return "";
  const Json& v = obj.at(p);
  return v.is_string() ? v.get<std::string>() : "";
}

std::string HumanDuration(int64_t seconds) {
  // kubectl's rounding (apimachinery duration.HumanDuration), which vcctl uses.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  int64_t minutes = seconds / 60;
  if (minutes < 10) {
    int64_t s = seconds % 60;
    return std::to_string(minutes) + "m" + (s == 0 ? "" : std::to_string(s) + "s");
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  int64_t hours = seconds / 3600;
  if (hours < 8) {
    int64_t m = minutes % 60;
    return std::to_string(hours) + "h" + (m == 0 ? "" : std::to_string(m) + "m");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    int64_t h = hours % 24;
    return std::to_string(hours / 24) + "d" + (h == 0 ? "" : std::to_string(h) + "h");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8)
    return std::to_string(hours / 24 / 365) + "y" + std::to_string((hours / 24) % 365) + "d";
  return std::to_string(hours / 24 / 365) + "y";
}

std::string Examples(std::initializer_list<const char*> lines) {
  std::string out = "Examples:";
  for (const char* l : lines) out += std::string("\n  ") + l;
  return out;
}

}  // namespace basalt
