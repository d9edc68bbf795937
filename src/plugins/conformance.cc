// conformance: never evict system-critical pods or anything in kube-system
// (docs/plugins/conformance.md).
#include "framework/session.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

bool IsProtected(const TaskInfo& t) {
  const std::string& cls = t.pod->spec.priority_class_name;
  return cls == "system-cluster-critical" || cls == "system-node-critical" ||
         t.pod->meta.namespace_ == "kube-system";
}

class ConformancePlugin : public Plugin {
 public:
  std::string_view Name() const override { return "conformance"; }

  void OnSessionOpen(Session& ssn) override {
    auto evictable = [](const TaskInfo&, const std::vector<const TaskInfo*>& cands) {
      std::vector<const TaskInfo*> victims;
      for (const TaskInfo* c : cands) {
        if (!IsProtected(*c)) victims.push_back(c);
      }
      return std::make_pair(victims, Vote::kPermit);
    };
    ssn.AddPreemptableFn(evictable);
    ssn.AddReclaimableFn(evictable);
  }
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewConformancePlugin(const Arguments& args) {
  return std::unique_ptr<Plugin>(new ConformancePlugin());
}

}  // namespace basalt
