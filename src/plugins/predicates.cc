#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class PredicatesPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "predicates"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewPredicatesPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new PredicatesPlugin());
}

}  // namespace basalt
