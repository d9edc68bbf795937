#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class OvercommitPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "overcommit"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewOvercommitPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new OvercommitPlugin());
}

}  // namespace basalt
