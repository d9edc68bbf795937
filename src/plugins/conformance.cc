#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class ConformancePlugin : public Plugin {
 public:
  std::string_view Name() const override { return "conformance"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewConformancePlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new ConformancePlugin());
}

}  // namespace basalt
