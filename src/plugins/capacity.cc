#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 3).
class CapacityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "capacity"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewCapacityPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new CapacityPlugin());
}

}  // namespace basalt
