// The live input of `basalt explain`: one consistent-enough picture of a
// cluster, listed once from the API server (the kinds `basalt serve` watches),
// decoded by the same decoder as a folder of manifests.
#pragma once

#include <string>

#include "api/status.h"
#include "state/cluster_state.h"

namespace basalt {

// Lists Nodes, Pods, PriorityClasses, Queues, PodGroups, vcjobs, Commands,
// Deployments and ReplicaSets into `state`. `kubeconfig` empty: $KUBECONFIG
// (its first file), else ~/.kube/config, else the in-cluster service account
// (vcctl's order). A kind the server
// does not serve (404, e.g. Volcano's CRDs not installed) has no objects. Errors
// name the kubeconfig or the failing request; an object the decoder refuses
// is an error naming it (explain must not reason on a partial cluster).
Status LoadLiveState(const std::string& kubeconfig, const std::string& context,
                     ClusterState* state);

}  // namespace basalt
