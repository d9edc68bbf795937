#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class DrfPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "drf"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewDrfPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new DrfPlugin());
}

}  // namespace basalt
