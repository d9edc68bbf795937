// Metadata keys with a meaning across the scheduler, controllers and front
// ends, named once. std::string, not const char*: annotation maps are looked
// up by std::string, and a literal would build a temporary key per lookup.
#pragma once

#include <string>

namespace basalt {

// A pod's PodGroup (in the pod's namespace): the gang it is scheduled with.
inline const std::string kGroupNameAnnotation = "scheduling.k8s.io/group-name";

}  // namespace basalt
