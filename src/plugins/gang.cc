#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class GangPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "gang"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewGangPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new GangPlugin());
}

}  // namespace basalt
