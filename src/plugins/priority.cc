#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class PriorityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "priority"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewPriorityPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new PriorityPlugin());
}

}  // namespace basalt
