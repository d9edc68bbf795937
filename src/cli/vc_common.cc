#include "cli/vc_common.h"

#include <algorithm>
#include <cstdio>
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
  cmd->add_option("--now", flags->now,
                  "Current time, RFC 3339 (default: the clock): ages, and with --cluster the "
                  "creationTimestamp of new objects");
}

bool FolderMode(const BackendFlags& flags) { return !flags.store.cluster_dir.empty(); }

std::string SeededUid(uint64_t seed, const std::string& key) {
  uint64_t x = 1469598103934665603ull;  // FNV-1a of the key, mixed with the seed
  for (unsigned char c : key) x = (x ^ c) * 1099511628211ull;
  x ^= seed * 0x9e3779b97f4a7c15ull;
  auto next = [&x] {  // splitmix64, as GeneratedSuffix draws name suffixes
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  uint64_t hi = (next() & ~0xf000ull) | 0x4000ull;                         // version 4
  uint64_t lo = (next() & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffull));
  return buf;
}

Status StampNewObject(const BackendFlags& flags, Json* obj) {
  if (!FolderMode(flags)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(int64_t now, NowSeconds(flags));
  std::time_t secs = static_cast<std::time_t>(now);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  Json& meta = (*obj)["metadata"];
  meta["creationTimestamp"] = stamp;
  meta["uid"] = SeededUid(flags.store.seed, StrAt(*obj, "/kind") + "/" + Meta(*obj, "namespace") +
                                                "/" + Meta(*obj, "name"));
  return Status::Ok();
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

const std::vector<std::string>& ObjectOutputFormats() {
  static const std::vector<std::string> formats = {"json", "yaml", "name"};
  return formats;
}

const std::vector<std::string>& ListOutputFormats() {
  static const std::vector<std::string> formats = {"json", "yaml", "name", "wide"};
  return formats;
}

namespace {

Status CheckFormatIn(const std::string& format, const std::vector<std::string>& valid) {
  if (format.empty() || std::find(valid.begin(), valid.end(), format) != valid.end())
    return Status::Ok();
  std::string list;
  for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
  return Status::InvalidArgument("--output: unknown format \"" + format + "\" (valid: " + list +
                                 ")");
}

}  // namespace

Status CheckOutputFormat(const std::string& format) {
  return CheckFormatIn(format, ObjectOutputFormats());
}

Status CheckListOutputFormat(const std::string& format) {
  return CheckFormatIn(format, ListOutputFormats());
}

void PrintNames(const std::vector<Json>& objs, std::ostream& out) {
  for (const Json& obj : objs) {
    std::string kind = StrAt(obj, "/kind");
    for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string api = StrAt(obj, "/apiVersion");
    std::string group = api.substr(0, api.find('/'));
    out << kind << (api.find('/') == std::string::npos ? "" : "." + group) << "/"
        << Meta(obj, "name") << "\n";
  }
}

void PrintObject(const Json& obj, const std::string& format, std::ostream& out) {
  if (format == "yaml") {
    out << JsonToYaml(obj);
  } else if (format == "name") {
    PrintNames({obj}, out);
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
