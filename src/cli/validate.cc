#include "cli/validate.h"

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include "admission/admission.h"
#include "api/decode.h"
#include "api/limits.h"
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
  std::ifstream in(path);
  if (!in) {
    *unreadable = path + ": cannot read the scheduler configuration";
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  auto conf = ParseSchedulerConfig(text.str(), path, plugins.Names(), actions.Names());
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

// The HyperNodes as one tree: names once each, then the tree's rules
// (api/hypernode.h), as `basalt schedule` checks them when it loads a folder.
Status CheckHyperNodes(const std::vector<HyperNode>& hypernodes) {
  std::map<std::string, HyperNode> by_name;
  for (const HyperNode& h : hypernodes) {
    auto [it, fresh] = by_name.emplace(h.meta.name, h);
    if (!fresh) {
      return Status::InvalidArgument(h.meta.source + ": HyperNode " + h.meta.name +
                                     ": metadata.name: duplicate (also defined at " +
                                     it->second.meta.source + ")");
    }
  }
  return ValidateHyperNodeTree(by_name);
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
      err << "basalt: " << unreadable << "\n";
      return kExitBadInput;
    }
    for (const std::string& p : problems) out << p << "\n";
    if (!problems.empty()) {
      err << "basalt: " << problems.size() << (problems.size() == 1 ? " problem" : " problems")
          << " found in the scheduler configuration\n";
      return kExitBadInput;
    }
    out << "ok: scheduler configuration " << conf_path << " valid\n";
    if (paths.empty()) return 0;
  }
  // Every path is loaded, so one run reports the decode error of each file
  // given; admission needs the whole set, so it only runs when all decoded.
  ClusterObjects objects;
  bool decode_failed = false;
  for (const std::string& path : paths) {
    Status st = LoadPath(path, &objects, limits);
    if (!st.ok()) {
      err << "basalt: " << st.message() << "\n";
      decode_failed = true;
    }
  }
  if (decode_failed) return kExitBadInput;
  if (CountDecodedObjects(objects) == 0) {
    // Most likely a wrong path or extension: saying "ok" would hide it.
    std::string given;
    for (const std::string& path : paths) given += (given.empty() ? "" : ", ") + path;
    err << "basalt: " << given
        << ": no objects found (folders are read for *.yaml, *.yml and *.json files)\n";
    return kExitBadInput;
  }
  // The same caps `basalt schedule` and `simulate` apply (api/limits.h).
  if (Status capped = CheckClusterLimits(objects, limits); !capped.ok()) {
    err << "basalt: " << capped.message() << "\n";
    return kExitBadInput;
  }
  if (Status tree = CheckHyperNodes(objects.hypernodes); !tree.ok()) {
    err << "basalt: " << tree.message() << "\n";
    return kExitBadInput;
  }

  // Warnings (unknown fields, a pod on a node that does not exist) never fail
  // the run, as kubectl's field validation only warns.
  for (const AdmissionProblem& w : ValidationWarnings(objects))
    err << "basalt: warning: " << w.ToString() << "\n";
  std::vector<AdmissionProblem> problems = ValidateObjects(objects);
  for (const AdmissionProblem& p : problems) out << p.ToString() << "\n";
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
