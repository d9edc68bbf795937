#include "framework/action.h"
#include "framework/plugin.h"

namespace basalt {
namespace {
template <typename Map>
std::vector<std::string> SortedNames(const Map& m) {
  std::vector<std::string> out;
  for (const auto& kv : m) out.push_back(kv.first);
  return out;  // std::map is ordered
}
template <typename Map>
std::string NameList(const Map& m) {
  std::string s;
  for (const auto& n : SortedNames(m)) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

Status PluginRegistry::Register(std::string name, PluginFactory factory) {
  if (factories_.count(name))
    return Status::AlreadyExists("plugin \"" + name + "\" registered twice");
  factories_.emplace(std::move(name), std::move(factory));
  return Status::Ok();
}

Result<std::unique_ptr<Plugin>> PluginRegistry::Create(const std::string& name,
                                                       const Arguments& args) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return Status::NotFound("unknown plugin \"" + name + "\" (known: " + NameList(factories_) +
                            ")");
  }
  auto plugin = it->second(args);
  if (plugin.ok()) WarnUnreadArguments(args);
  return plugin;
}

std::vector<std::string> PluginRegistry::Names() const { return SortedNames(factories_); }

Status ActionRegistry::Register(std::string name, ActionFactory factory) {
  if (factories_.count(name))
    return Status::AlreadyExists("action \"" + name + "\" registered twice");
  factories_.emplace(std::move(name), std::move(factory));
  return Status::Ok();
}

Result<std::unique_ptr<Action>> ActionRegistry::Create(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return Status::NotFound("unknown action \"" + name + "\" (known: " + NameList(factories_) +
                            ")");
  }
  return it->second();
}

std::vector<std::string> ActionRegistry::Names() const { return SortedNames(factories_); }

}  // namespace basalt
