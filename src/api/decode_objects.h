// The per-kind decoders that decode.cc (the dispatch by kind, the other core
// kinds), decode_pod.cc (Pods, Nodes, metadata), decode_json.cc (objects from
// the API server) and decode_vcjob.cc (batch.volcano.sh Jobs and
// bus.volcano.sh Commands) share. Private to the api layer: callers use
// api/decode.h and api/decode_json.h.
//
// The templates take a `YAML::Node` or a `JsonField` (api/json_field.h); both
// are compiled in decode_pod.cc.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>

#include "api/decode.h"
#include "api/objects.h"
#include "api/status.h"

namespace basalt::decode_internal {

// metadata: name, namespace (when `namespaced`), labels, annotations, uid,
// creationTimestamp, deletionTimestamp, ownerReferences.
template <typename NodeT>
Status DecodeMeta(const NodeT& doc, bool namespaced, ObjectMeta* meta);
// A pod spec at `path` (containers' requests, selectors, affinity, tolerations,
// ports, priority, scheduler name, ...).
template <typename NodeT>
Status DecodePodSpec(const NodeT& spec, const std::string& path, PodSpec* out);
// "Kind ns/name" of a document for messages.
template <typename NodeT>
std::string DocLabel(const NodeT& doc, const std::string& kind);
// A document's `kind` (required) and `apiVersion`, both strings when given.
template <typename NodeT>
Status ReadTypeMeta(const NodeT& doc, const std::string& source, std::string* kind,
                    std::string* api_version);
// Ok when `api_version` is one of `versions` for `kind`; else an error
// prefixed with `context` ("file:3: Pod default/p").
Status ExpectApiVersion(const std::string& context, const std::string& kind,
                        const std::string& api_version,
                        std::initializer_list<const char*> versions);
// A `kind` "Pod" or "Node" document: decoded and appended to `out`; errors
// are prefixed with `source` and the object's label.
template <typename NodeT>
Status DecodePodOrNode(const NodeT& doc, const std::string& kind, const std::string& api_version,
                       const std::string& source, ClusterObjects* out);
// batch.volcano.sh/v1alpha1 Job (also the spec of a flow.volcano.sh JobTemplate).
Status DecodeVcJob(const YAML::Node& doc, VcJob* job);
// bus.volcano.sh/v1alpha1 Command.
Status DecodeCommand(const YAML::Node& doc, Command* c);

}  // namespace basalt::decode_internal
