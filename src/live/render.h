// The objects the controllers create, as the JSON the API server takes.
//
// The controllers (controllers/) work on the typed object model, which keeps
// only what scheduling reads. What they create on a live cluster must be the
// whole object: a vcjob's pod is its task's pod template exactly as the user
// wrote it (containers, volumes, everything), with the controller's metadata
// and the job plugins' additions (env, volumes, mounts, hostname) on top.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/jobflow.h"
#include "api/objects.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"

namespace basalt {

using Json = nlohmann::json;

// "ns/name" -> {"ns", "name"}; "name" -> {"", "name"}.
std::pair<std::string, std::string> SplitKey(const std::string& key);

// A Resource as a Kubernetes resource list ({"cpu": "500m", ...}); the
// implicit `pods` dimension and zero scalars are left out.
std::map<std::string, std::string> ResourceListOf(const Resource& r);

// `spec.networkTopology` as Volcano writes it (mode always given).
Json NetworkTopologyJson(const NetworkTopologySpec& topology);

// A PodGroup to create. `owner` fills in an empty ownerReferences (a bare
// pod's group is owned by the pod's controller, else by the pod).
Json PodGroupJson(const PodGroup& pg, const OwnerReference* owner);

// A vcjob pod to create: `job_object` is the vcjob as the API server returned
// it; `pod` the controller's pod (metadata, scheduler name, priority class);
// `additions` what the job plugins add (null: none). Fails when the job has
// no task of the pod's task name.
Result<Json> VcJobPodJson(const Json& job_object, const Pod& pod,
                          const PodPluginAdditions* additions);

// The vcjob a JobFlow's flow creates, as Volcano's JobFlow controller makes
// it: named `<flow>-<template>` in the flow's namespace, the label and
// annotation `volcano.sh/createdByJobTemplate: <ns>.<template>`, the JobFlow
// as controller owner, and the JobTemplate's `spec` exactly as stored
// (`template_object` is the JobTemplate as the API server returned it).
Json FlowJobJson(const JobFlow& flow, const std::string& template_name,
                 const Json& template_object);

// The vcjob plugins' objects.
Json ServiceJson(const Service& svc);
Json SecretJson(const Secret& secret);
Json ConfigMapJson(const ConfigMap& cm);
Json NetworkPolicyJson(const NetworkPolicy& np);

// A core/v1 Event on a vcjob, as the record package of client-go (Volcano's
// job controller) writes it: involvedObject the Job, firstTimestamp =
// lastTimestamp = `timestamp` (RFC 3339), count 1. `name` must be unique.
Json JobActionEventJson(const JobActionEvent& event, const std::string& name,
                        const std::string& timestamp);

// The status a vcjob's controller writes: state.phase, retryCount, version
// and the pod counts.
struct JobPodCounts {
  int pending = 0, running = 0, succeeded = 0, failed = 0, terminating = 0;
};
Json VcJobStatusJson(const VcJob& job, const JobPodCounts& counts);

}  // namespace basalt
