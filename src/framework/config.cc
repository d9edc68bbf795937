#include "framework/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include "api/decode.h"
#include "api/log.h"
#include "api/text.h"

namespace basalt {
namespace {

constexpr const char* kSwitchKeys[] = {
    "enableJobOrder",          "enableQueueOrder",   "enableTaskOrder",
    "EnabledClusterOrder",     "enablePredicate",    "enableBestNode",
    "enableNodeOrder",         "enablePreemptable",  "enableReclaimable",
    "enablePreemptive",        "enabledAllocatable", "enabledOverused",
    "enableJobReady",          "enableJobPipelined", "enableJobEnqueued",
    "enableJobStarving",       "enabledVictim",      "enableTargetJob",
    "enableReservedNodes",     "enableHierarchy",    "enabledHyperNodeOrder",
    "enabledHyperNodeGradient"};
static_assert(sizeof(kSwitchKeys) / sizeof(kSwitchKeys[0]) == static_cast<size_t>(Switch::kCount));

std::string JoinNames(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (const auto& n : sorted) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string Where(const std::string& source, const YAML::Node& n) {
  int line = n.Mark().line;
  return line >= 0 ? source + ":" + std::to_string(line + 1) : source;
}

// Flattens an `arguments:` tree into "a.b" keys ("a[i]" for lists), each with
// its location in `source`.
Status Flatten(const YAML::Node& n, const std::string& prefix, Arguments* out,
               const std::string& where, const std::string& source) {
  if (!prefix.empty()) out->SetLocation(prefix, Where(source, n));
  if (n.IsScalar()) {
    out->Set(prefix, n.Scalar());
  } else if (n.IsMap()) {
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        return Status::InvalidArgument(where + ": arguments: keys must be strings");
      std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
      BASALT_RETURN_IF_ERROR(Flatten(kv.second, key, out, where, source));
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      BASALT_RETURN_IF_ERROR(
          Flatten(n[i], prefix + "[" + std::to_string(i) + "]", out, where, source));
    }
  } else if (n.IsNull() && !prefix.empty()) {
    out->Set(prefix, "");
  }
  return Status::Ok();
}

}  // namespace

namespace {
std::atomic<bool> lenient_config{false};
}  // namespace

void SetLenientSchedulerConfig(bool lenient) { lenient_config = lenient; }
bool LenientSchedulerConfig() { return lenient_config; }

namespace {
std::vector<std::string>& AllowedMissingPluginList() {
  static std::vector<std::string> names;
  return names;
}
}  // namespace

void SetAllowedMissingPlugins(std::vector<std::string> names) {
  AllowedMissingPluginList() = std::move(names);
}
const std::vector<std::string>& AllowedMissingPlugins() { return AllowedMissingPluginList(); }

const std::vector<std::string>& VolcanoPluginNames() {
  // pkg/scheduler/plugins/factory.go of v1.15.1, sorted.
  static const std::vector<std::string> names = {"binpack",
                                                 "capacity",
                                                 "cdp",
                                                 "conformance",
                                                 "deviceshare",
                                                 "drf",
                                                 "extender",
                                                 "gang",
                                                 "network-topology-aware",
                                                 "nodegroup",
                                                 "nodeorder",
                                                 "numa-aware",
                                                 "overcommit",
                                                 "pdb",
                                                 "predicates",
                                                 "priority",
                                                 "proportion",
                                                 "rescheduling",
                                                 "resource-strategy-fit",
                                                 "resourcequota",
                                                 "sla",
                                                 "task-topology",
                                                 "tdm",
                                                 "usage"};
  return names;
}

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

namespace {

bool MissingPluginAllowed(const std::string& name) {
  const std::vector<std::string>& allowed = AllowedMissingPlugins();
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

// Why a plugin basalt does not have stops the run, and how to go on without it.
std::string MissingPluginProblem(const std::string& where, const std::string& name,
                                 const std::vector<std::string>& known_plugins) {
  const std::vector<std::string>& volcano = VolcanoPluginNames();
  const bool in_volcano = std::binary_search(volcano.begin(), volcano.end(), name);
  return where + ": unknown plugin \"" + name + "\" (known: " + JoinNames(known_plugins) + "): " +
         (in_volcano ? "a Volcano v1.15.1 plugin that basalt does not implement; running "
                       "without it would silently drop what it does"
                     : "not a Volcano v1.15.1 plugin either (a typo, or a custom plugin basalt "
                       "cannot load)") +
         ". Remove it from the configuration, or pass --allow-missing-plugins=" + name +
         " to run without it";
}

bool Known(const std::vector<std::string>& known, const std::string& name) {
  return known.empty() || std::find(known.begin(), known.end(), name) != known.end();
}

Status Error(const std::string& where, const std::string& field, const std::string& problem) {
  return Status::InvalidArgument(where + ": " + field + ": " + problem);
}

// Fails on any key of the mapping `n` outside `allowed`.
Status OnlyKeys(const std::string& source, const YAML::Node& n, const std::string& path,
                std::initializer_list<const char*> allowed, const std::string& want) {
  for (const auto& kv : n) {
    const std::string& key = kv.first.Scalar();  // CheckYamlTree: keys are scalars
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
      return Error(Where(source, kv.first), path.empty() ? key : path + "." + key,
                   "unknown field (want " + want + ")");
    }
  }
  return Status::Ok();
}

Result<SchedulerConfig> Parse(const YAML::Node& root, const std::string& source,
                              const std::vector<std::string>& known_plugins,
                              const std::vector<std::string>& known_actions) {
  SchedulerConfig conf;
  if (!root || root.IsNull())
    return Status::InvalidArgument(source + ": empty scheduler configuration");
  if (!root.IsMap()) {
    return Status::InvalidArgument(Where(source, root) +
                                   ": expected a mapping with actions and tiers");
  }
  BASALT_RETURN_IF_ERROR(OnlyKeys(source, root, "",
                                  {"actions", "tiers", "configurations", "metrics"},
                                  "actions, tiers, configurations or metrics"));

  // ---- actions: "enqueue, allocate, backfill" ----
  YAML::Node actions = root["actions"];
  if (!actions || actions.IsNull()) {
    return Status::InvalidArgument(
        source + ": actions: missing (e.g. actions: \"enqueue, allocate, backfill\")");
  }
  if (!actions.IsScalar()) {
    return Error(Where(source, actions), "actions",
                 "expected a comma-separated string (e.g. \"enqueue, allocate, backfill\")");
  }
  for (const std::string& piece : Split(actions.Scalar(), ',')) {
    const std::string item(Trim(piece));
    if (item.empty()) continue;
    if (!Known(known_actions, item)) {
      return Error(Where(source, actions), "actions",
                   "unknown action \"" + item + "\" (known: " + JoinNames(known_actions) + ")");
    }
    conf.actions.push_back(item);
  }
  // Volcano runs an empty list as given: nothing is ever scheduled. Allowed,
  // as a configuration that runs on Volcano must run here, but never silently.
  if (conf.actions.empty()) {
    CliLog().warn("warning: {}: actions: no action listed; no pod will be scheduled",
                  Where(source, actions));
  }

  // ---- tiers ----
  YAML::Node tiers = root["tiers"];
  if (tiers && !tiers.IsNull()) {
    if (!tiers.IsSequence())
      return Error(Where(source, tiers), "tiers", "expected a list of tiers");
    bool drf_hierarchy = false, proportion = false;
    std::vector<std::string> missing;  // plugins named that basalt does not have
    size_t t = 0;
    for (const YAML::Node& tier : tiers) {
      std::string tpath = "tiers[" + std::to_string(t++) + "]";
      if (!tier.IsMap())
        return Error(Where(source, tier), tpath, "expected a mapping with plugins");
      BASALT_RETURN_IF_ERROR(OnlyKeys(source, tier, tpath, {"plugins"}, "plugins"));
      YAML::Node plugins = tier["plugins"];
      if (!plugins || plugins.IsNull())
        return Error(Where(source, tier), tpath + ".plugins", "missing");
      if (!plugins.IsSequence())
        return Error(Where(source, plugins), tpath + ".plugins", "expected a list");
      Tier out;
      size_t p = 0;
      for (const YAML::Node& pl : plugins) {
        std::string ppath = tpath + ".plugins[" + std::to_string(p++) + "]";
        if (!pl.IsMap()) return Error(Where(source, pl), ppath, "expected a mapping with a name");
        PluginOption opt;
        YAML::Node name = pl["name"];
        if (!name || name.IsNull() || (name.IsScalar() && name.Scalar().empty())) {
          return Error(Where(source, pl), ppath + ".name", "missing");
        }
        if (!name.IsScalar())
          return Error(Where(source, name), ppath + ".name", "expected a string");
        opt.name = name.Scalar();
        if (!Known(known_plugins, opt.name)) {
          const std::string where = Where(source, name) + ": " + ppath + ".name";
          if (MissingPluginAllowed(opt.name)) {
            CliLog().warn(
                "warning: {}: plugin \"{}\" is not implemented by basalt; skipped, as "
                "--allow-missing-plugins says: nothing it would do is done",
                where, opt.name);
          } else {
            missing.push_back(MissingPluginProblem(where, opt.name, known_plugins));
          }
          continue;
        }
        opt.arguments = Arguments("plugin " + opt.name);
        opt.arguments.SetLenient(LenientSchedulerConfig());
        for (const auto& kv : pl) {
          const std::string& key = kv.first.Scalar();
          if (key == "name") continue;
          std::string fpath = ppath + "." + key;
          if (key == "arguments") {
            if (!kv.second.IsNull() && !kv.second.IsMap()) {
              return Error(Where(source, kv.second), fpath, "expected a mapping");
            }
            BASALT_RETURN_IF_ERROR(Flatten(kv.second, "", &opt.arguments,
                                           Where(source, kv.second) + ": " + fpath, source));
            continue;
          }
          auto sw = std::find_if(std::begin(kSwitchKeys), std::end(kSwitchKeys),
                                 [&](const char* k) { return key == k; });
          if (sw == std::end(kSwitchKeys)) {
            return Error(
                Where(source, kv.first), fpath,
                "unknown field (want name, arguments or a switch such as enablePreemptable; "
                "switch names are case-sensitive)");
          }
          std::optional<bool> b =
              kv.second.IsScalar() ? ParseYamlBool(kv.second.Scalar()) : std::nullopt;
          if (!b) {
            return Error(Where(source, kv.second), fpath,
                         "expected true or false, got " + (kv.second.IsScalar()
                                                               ? "\"" + kv.second.Scalar() + "\""
                                                               : std::string("a non-scalar")));
          }
          opt.switches[sw - std::begin(kSwitchKeys)] = *b;
        }
        if (opt.name == "drf" && opt.Enabled(Switch::kHierarchy)) drf_hierarchy = true;
        if (opt.name == "proportion") proportion = true;
        out.plugins.push_back(std::move(opt));
      }
      conf.tiers.push_back(std::move(out));
    }
    if (!missing.empty()) {
      std::string all;
      for (const std::string& m : missing) all += (all.empty() ? "" : "\n") + m;
      return Status::InvalidArgument(all);
    }
    if (drf_hierarchy && proportion) {
      return Error(
          Where(source, tiers), "tiers",
          "drf with enableHierarchy cannot be used together with proportion (Volcano refuses this "
          "configuration)");
    }
  }

  // ---- configurations: per-action arguments ----
  YAML::Node confs = root["configurations"];
  if (confs && !confs.IsNull()) {
    if (!confs.IsSequence())
      return Error(Where(source, confs), "configurations", "expected a list");
    size_t i = 0;
    for (const YAML::Node& c : confs) {
      std::string cpath = "configurations[" + std::to_string(i++) + "]";
      if (!c.IsMap())
        return Error(Where(source, c), cpath, "expected a mapping with name and arguments");
      BASALT_RETURN_IF_ERROR(
          OnlyKeys(source, c, cpath, {"name", "arguments"}, "name or arguments"));
      YAML::Node name = c["name"];
      if (!name || name.IsNull()) return Error(Where(source, c), cpath + ".name", "missing");
      if (!name.IsScalar()) return Error(Where(source, name), cpath + ".name", "expected a string");
      std::string action = name.Scalar();
      if (!Known(known_actions, action)) {
        return Error(Where(source, name), cpath + ".name",
                     "unknown action \"" + action + "\" (known: " + JoinNames(known_actions) + ")");
      }
      Arguments args("action " + action);
      args.SetLenient(LenientSchedulerConfig());
      YAML::Node a = c["arguments"];
      if (a) {
        if (!a.IsNull() && !a.IsMap())
          return Error(Where(source, a), cpath + ".arguments", "expected a mapping");
        BASALT_RETURN_IF_ERROR(
            Flatten(a, "", &args, Where(source, a) + ": " + cpath + ".arguments", source));
      }
      conf.action_arguments.emplace_back(action, std::move(args));
    }
  }
  return conf;
}

}  // namespace

Result<SchedulerConfig> ParseSchedulerConfig(const std::string& text, const std::string& source,
                                             const std::vector<std::string>& known_plugins,
                                             const std::vector<std::string>& known_actions) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) +
                                   ": malformed YAML: " + e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(source + ": malformed YAML: " + e.what());
  }
  try {
    size_t budget = 4 * text.size() + 1024;
    int line = 0;
    Status shape = CheckYamlTree(root, &budget, &line);
    if (!shape.ok()) return shape.WithContext(source + ":" + std::to_string(line + 1));
    return Parse(root, source, known_plugins, known_actions);
  } catch (const std::exception& e) {
    // Every access above is type-checked first; this only keeps a bug from crashing.
    return Status::InvalidArgument(source + ": malformed scheduler configuration: " + e.what());
  }
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
