#include "framework/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace basalt {
namespace {

constexpr const char* kSwitchKeys[] = {
    "enableJobOrder",      "enableQueueOrder",   "enableTaskOrder",       "EnabledClusterOrder",
    "enablePredicate",     "enableBestNode",     "enableNodeOrder",       "enablePreemptable",
    "enableReclaimable",   "enablePreemptive",   "enabledAllocatable",    "enabledOverused",
    "enableJobReady",      "enableJobPipelined", "enableJobEnqueued",     "enableJobStarving",
    "enabledVictim",       "enableTargetJob",    "enableReservedNodes",   "enableHierarchy",
    "enabledHyperNodeOrder"};
static_assert(sizeof(kSwitchKeys) / sizeof(kSwitchKeys[0]) == static_cast<size_t>(Switch::kCount));

std::string JoinNames(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (const auto& n : sorted) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string Where(const std::string& source, const YAML::Node& n) {
  return source + ":" + std::to_string(n.Mark().line + 1);
}

// Flattens an `arguments:` tree into "a.b" keys ("a[i]" for lists).
Status Flatten(const YAML::Node& n, const std::string& prefix, Arguments* out, const std::string& where) {
  if (n.IsScalar()) {
    out->Set(prefix, n.Scalar());
  } else if (n.IsMap()) {
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) return Status::InvalidArgument(where + ": arguments: keys must be strings");
      std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
      BASALT_RETURN_IF_ERROR(Flatten(kv.second, key, out, where));
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      BASALT_RETURN_IF_ERROR(Flatten(n[i], prefix + "[" + std::to_string(i) + "]", out, where));
    }
  } else if (n.IsNull() && !prefix.empty()) {
    out->Set(prefix, "");
  }
  return Status::Ok();
}

}  // namespace

const char* SwitchKey(Switch s) { return kSwitchKeys[static_cast<size_t>(s)]; }

bool PluginOption::Enabled(Switch s) const {
  const auto& v = switches[static_cast<size_t>(s)];
  if (v.has_value()) return *v;
  return s != Switch::kHierarchy && s != Switch::kClusterOrder;
}

const Arguments* SchedulerConfig::ActionArguments(const std::string& action) const {
  for (const auto& [name, args] : action_arguments) {
    if (name == action) return &args;
  }
  return nullptr;
}

bool SchedulerConfig::HasAction(const std::string& name) const {
  return std::find(actions.begin(), actions.end(), name) != actions.end();
}

Result<SchedulerConfig> ParseSchedulerConfig(const std::string& text, const std::string& source,
                                             const std::vector<std::string>& known_plugins,
                                             const std::vector<std::string>& known_actions) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(source + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
  SchedulerConfig conf;
  if (!root || root.IsNull()) return Status::InvalidArgument(source + ": empty scheduler configuration");
  if (!root.IsMap()) return Status::InvalidArgument(source + ": expected a mapping with actions and tiers");
  for (const auto& kv : root) {
    std::string key = kv.first.Scalar();
    if (key != "actions" && key != "tiers" && key != "configurations" && key != "metrics") {
      return Status::InvalidArgument(Where(source, kv.first) + ": " + key +
                                     ": unknown field (want actions, tiers, configurations or metrics)");
    }
  }
  YAML::Node actions = root["actions"];
  if (!actions || !actions.IsScalar()) {
    return Status::InvalidArgument(source + ": actions: missing or not a string (e.g. \"enqueue, allocate, backfill\")");
  }
  std::string list = actions.Scalar();
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    item.erase(0, item.find_first_not_of(" \t\n"));
    item.erase(item.find_last_not_of(" \t\n") + 1);
    if (!item.empty()) {
      if (!known_actions.empty() &&
          std::find(known_actions.begin(), known_actions.end(), item) == known_actions.end()) {
        return Status::InvalidArgument(Where(source, actions) + ": actions: unknown action \"" + item +
                                       "\" (known: " + JoinNames(known_actions) + ")");
      }
      conf.actions.push_back(item);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  YAML::Node tiers = root["tiers"];
  if (tiers && !tiers.IsNull()) {
    if (!tiers.IsSequence()) return Status::InvalidArgument(Where(source, tiers) + ": tiers: expected a list");
    bool drf_hierarchy = false, proportion = false;
    for (size_t t = 0; t < tiers.size(); ++t) {
      std::string tpath = "tiers[" + std::to_string(t) + "]";
      const YAML::Node& tier = tiers[t];
      if (!tier.IsMap()) return Status::InvalidArgument(Where(source, tier) + ": " + tpath + ": expected a mapping");
      YAML::Node plugins = tier["plugins"];
      if (!plugins || !plugins.IsSequence()) {
        return Status::InvalidArgument(Where(source, tier) + ": " + tpath + ".plugins: missing or not a list");
      }
      Tier out;
      for (size_t p = 0; p < plugins.size(); ++p) {
        std::string ppath = tpath + ".plugins[" + std::to_string(p) + "]";
        const YAML::Node& pl = plugins[p];
        if (!pl.IsMap()) return Status::InvalidArgument(Where(source, pl) + ": " + ppath + ": expected a mapping");
        PluginOption opt;
        if (!pl["name"] || !pl["name"].IsScalar() || pl["name"].Scalar().empty()) {
          return Status::InvalidArgument(Where(source, pl) + ": " + ppath + ".name: missing");
        }
        opt.name = pl["name"].Scalar();
        if (!known_plugins.empty() &&
            std::find(known_plugins.begin(), known_plugins.end(), opt.name) == known_plugins.end()) {
          return Status::InvalidArgument(Where(source, pl["name"]) + ": " + ppath + ".name: unknown plugin \"" +
                                         opt.name + "\" (known: " + JoinNames(known_plugins) + ")");
        }
        opt.arguments = Arguments("plugin " + opt.name);
        for (const auto& kv : pl) {
          std::string key = kv.first.Scalar();
          if (key == "name") continue;
          std::string fpath = ppath + "." + key;
          if (key == "arguments") {
            if (!kv.second.IsNull() && !kv.second.IsMap()) {
              return Status::InvalidArgument(Where(source, kv.second) + ": " + fpath + ": expected a mapping");
            }
            BASALT_RETURN_IF_ERROR(Flatten(kv.second, "", &opt.arguments, Where(source, kv.second) + ": " + fpath));
            continue;
          }
          auto sw = std::find_if(std::begin(kSwitchKeys), std::end(kSwitchKeys),
                                 [&](const char* k) { return key == k; });
          if (sw == std::end(kSwitchKeys)) {
            return Status::InvalidArgument(Where(source, kv.first) + ": " + fpath +
                                           ": unknown field (want name, arguments or an enable* switch)");
          }
          const std::string& v = kv.second.IsScalar() ? kv.second.Scalar() : "";
          bool b;
          if (v == "true" || v == "True") {
            b = true;
          } else if (v == "false" || v == "False") {
            b = false;
          } else {
            return Status::InvalidArgument(Where(source, kv.second) + ": " + fpath + ": expected true or false");
          }
          opt.switches[sw - std::begin(kSwitchKeys)] = b;
        }
        if (opt.name == "drf" && opt.Enabled(Switch::kHierarchy)) drf_hierarchy = true;
        if (opt.name == "proportion") proportion = true;
        out.plugins.push_back(std::move(opt));
      }
      conf.tiers.push_back(std::move(out));
    }
    if (drf_hierarchy && proportion) {
      return Status::InvalidArgument(source + ": tiers: proportion and drf with hierarchy enabled conflict");
    }
  }
  YAML::Node confs = root["configurations"];
  if (confs && !confs.IsNull()) {
    if (!confs.IsSequence()) {
      return Status::InvalidArgument(Where(source, confs) + ": configurations: expected a list");
    }
    for (size_t i = 0; i < confs.size(); ++i) {
      std::string cpath = "configurations[" + std::to_string(i) + "]";
      const YAML::Node& c = confs[i];
      if (!c.IsMap() || !c["name"] || !c["name"].IsScalar()) {
        return Status::InvalidArgument(Where(source, c) + ": " + cpath + ".name: missing");
      }
      std::string name = c["name"].Scalar();
      if (!known_actions.empty() && std::find(known_actions.begin(), known_actions.end(), name) == known_actions.end()) {
        return Status::InvalidArgument(Where(source, c) + ": " + cpath + ".name: unknown action \"" + name +
                                       "\" (known: " + JoinNames(known_actions) + ")");
      }
      Arguments args("action " + name);
      if (c["arguments"]) {
        if (!c["arguments"].IsNull() && !c["arguments"].IsMap()) {
          return Status::InvalidArgument(Where(source, c) + ": " + cpath + ".arguments: expected a mapping");
        }
        BASALT_RETURN_IF_ERROR(Flatten(c["arguments"], "", &args, Where(source, c) + ": " + cpath + ".arguments"));
      }
      conf.action_arguments.emplace_back(name, std::move(args));
    }
  }
  return conf;
}

const char* DefaultSchedulerConfigText() {
  return R"(actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
)";
}

}  // namespace basalt
