#include "admission/admission.h"

namespace basalt {

// SKELETON: to be implemented (issue 5).
std::vector<AdmissionProblem> ValidateObjects(const ClusterObjects& objects) { return {}; }

}  // namespace basalt
