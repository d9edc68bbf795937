#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

// SKELETON: to be implemented (issue 2).
class BinpackPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "binpack"; }
  void OnSessionOpen(Session& ssn) override {}
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewBinpackPlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new BinpackPlugin());
}

}  // namespace basalt
