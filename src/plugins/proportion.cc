#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class ProportionPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "proportion"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewProportionPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new ProportionPlugin());
}

}  // namespace basalt
