#include "cli/validate.h"

#include <cctype>
#include <iostream>

#include "admission/admission.h"
#include "api/log.h"
#include "api/terminal_text.h"
#include "cli/cluster_input.h"
#include "cli/schedule.h"
#include "framework/action.h"
#include "framework/config.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

// "file:line: entry: problem" when `message` starts with the line of the
// argument it is about ("file:line: plugin ..."), else "file: entry: problem".
std::string LocatedProblem(const std::string& path, const std::string& entry,
                           const std::string& message) {
  const std::string prefix = path + ":";
  size_t digits = prefix.size();
  while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits])))
    ++digits;
  if (message.compare(0, prefix.size(), prefix) != 0 || digits == prefix.size() ||
      message.compare(digits, 2, ": ") != 0)
    return path + ": " + entry + ": " + message;
  return message.substr(0, digits) + ": " + entry + ": " + message.substr(digits + 2);
}

// The configuration's problems, one line each ("" when it cannot be read: then
// `*unreadable` says why).
std::vector<std::string> ConfProblems(const std::string& path, std::string* unreadable) {
  // The reader `basalt schedule --conf` uses: the same refusals, the same words.
  Result<std::string> text = ReadSchedulerConfFile(path);
  if (!text.ok()) {
    *unreadable = text.status().message();
    return {};
  }
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  auto conf = ParseSchedulerConfig(*text, path, plugins.Names(), actions.Names());
  if (!conf.ok()) return {conf.status().message()};
  // Every plugin is built once, as `basalt schedule` does before its first
  // cycle, so each argument error surfaces with the entry it belongs to.
  std::vector<std::string> problems;
  for (size_t t = 0; t < conf->tiers.size(); ++t) {
    const auto& entries = conf->tiers[t].plugins;
    for (size_t i = 0; i < entries.size(); ++i) {
      auto plugin = plugins.Create(entries[i].name, entries[i].arguments);
      if (!plugin.ok()) {
        problems.push_back(LocatedProblem(
            path, "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(i) + "]",
            plugin.status().message()));
      }
    }
  }
  return problems;
}

}  // namespace

int RunValidate(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err) {
  return RunValidate(paths, "", out, err);
}

int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                std::ostream& out, std::ostream& err) {
  return RunValidate(paths, conf_path, InputLimits(), out, err);
}

int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                const InputLimits& limits, std::ostream& out, std::ostream& err) {
  if (paths.empty() && conf_path.empty()) {
    err << "basalt: validate: no file or folder given\n";
    return kExitBadInput;
  }
  if (!conf_path.empty()) {
    std::string unreadable;
    std::vector<std::string> problems = ConfProblems(conf_path, &unreadable);
    if (!unreadable.empty()) {
      err << "basalt: " << TerminalSafe(unreadable) << "\n";
      return kExitBadInput;
    }
    for (const std::string& p : problems) out << TerminalSafe(p) << "\n";
    if (!problems.empty()) {
      err << "basalt: " << problems.size() << (problems.size() == 1 ? " problem" : " problems")
          << " found in the scheduler configuration\n";
      return kExitBadInput;
    }
    out << "ok: scheduler configuration " << TerminalSafe(conf_path) << " valid\n";
    if (paths.empty()) return 0;
  }
  // The loader `basalt schedule` and `explain` use (cli/cluster_input.h):
  // every file's decode error, an input without objects, the limits and the
  // store's rules refuse alike. Admission needs the whole set, so it only
  // runs when everything loaded.
  LoadedCluster loaded = LoadClusterInput(ClusterInput{paths, "", "(inline)", limits});
  for (const std::string& e : loaded.errors) err << "basalt: " << TerminalSafe(e) << "\n";
  if (!loaded.errors.empty()) return kExitBadInput;
  const ClusterObjects& objects = loaded.objects;
  for (const std::string& w : loaded.warnings)
    err << "basalt: warning: " << TerminalSafe(w) << "\n";

  // Warnings (unknown fields, a pod on a node that does not exist) never fail
  // the run, as kubectl's field validation only warns.
  for (const AdmissionProblem& w : ValidationWarnings(objects))
    err << "basalt: warning: " << TerminalSafe(w.ToString()) << "\n";
  std::vector<AdmissionProblem> problems = ValidateObjects(objects);
  for (const AdmissionProblem& p : problems) out << TerminalSafe(p.ToString()) << "\n";
  if (!problems.empty()) {
    err << "basalt: " << problems.size() << (problems.size() == 1 ? " problem" : " problems")
        << " found\n";
    return kExitBadInput;
  }
  // Always "objects": scripts match this line literally.
  out << "ok: " << CountDecodedObjects(objects) << " objects valid\n";
  return 0;
}

int RunValidate(const std::vector<std::string>& paths, const std::string& conf_path,
                const InputLimits& limits) {
  return RunValidate(paths, conf_path, limits, std::cout, std::cerr);
}

}  // namespace basalt
