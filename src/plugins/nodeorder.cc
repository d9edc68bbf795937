#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class NodeOrderPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "nodeorder"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewNodeOrderPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new NodeOrderPlugin());
}

}  // namespace basalt
