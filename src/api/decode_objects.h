// The per-kind decoders that decode.cc (the dispatch by kind, core objects)
// and decode_vcjob.cc (batch.volcano.sh Jobs and bus.volcano.sh Commands)
// share. Private to the api layer: callers use api/decode.h.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "api/objects.h"
#include "api/status.h"

namespace basalt::decode_internal {

// metadata: name, namespace (when `namespaced`), labels, annotations, uid,
// creationTimestamp, deletionTimestamp, ownerReferences.
Status DecodeMeta(const YAML::Node& doc, bool namespaced, ObjectMeta* meta);
// A pod spec at `path` (containers' requests, selectors, affinity, tolerations,
// ports, priority, scheduler name, ...).
Status DecodePodSpec(const YAML::Node& spec, const std::string& path, PodSpec* out);
// batch.volcano.sh/v1alpha1 Job (also the spec of a flow.volcano.sh JobTemplate).
Status DecodeVcJob(const YAML::Node& doc, VcJob* job);
// bus.volcano.sh/v1alpha1 Command.
Status DecodeCommand(const YAML::Node& doc, Command* c);

}  // namespace basalt::decode_internal
