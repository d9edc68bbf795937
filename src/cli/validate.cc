#include "cli/validate.h"

#include <iostream>

#include "admission/admission.h"
#include "api/decode.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

size_t CountObjects(const ClusterObjects& o) {
  return o.nodes.size() + o.pods.size() + o.priority_classes.size() + o.queues.size() +
         o.podgroups.size() + o.jobs.size() + o.owners.size() + o.namespaces.size();
}

}  // namespace

int RunValidate(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err) {
  if (paths.empty()) {
    err << "basalt: validate: no file or folder given\n";
    return kExitBadInput;
  }
  // Every path is loaded, so one run reports the decode error of each file
  // given; admission needs the whole set, so it only runs when all decoded.
  ClusterObjects objects;
  bool decode_failed = false;
  for (const std::string& path : paths) {
    Status st = LoadPath(path, &objects);
    if (!st.ok()) {
      err << "basalt: " << st.message() << "\n";
      decode_failed = true;
    }
  }
  if (decode_failed) return kExitBadInput;

  std::vector<AdmissionProblem> problems = ValidateObjects(objects);
  for (const AdmissionProblem& p : problems) out << p.ToString() << "\n";
  if (!problems.empty()) {
    err << "basalt: " << problems.size() << (problems.size() == 1 ? " problem" : " problems")
        << " found\n";
    return kExitBadInput;
  }
  // Always "objects": scripts match this line literally.
  out << "ok: " << CountObjects(objects) << " objects valid\n";
  return 0;
}

int RunValidate(const std::vector<std::string>& paths) {
  return RunValidate(paths, std::cout, std::cerr);
}

}  // namespace basalt
