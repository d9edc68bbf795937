// Decoding Kubernetes and Volcano manifests (YAML or JSON, multi-document) into
// the object model. Every failure names the file and line, the object and the
// field:
//
//   cluster/a.yaml:12: Pod default/p1: spec.containers[0].resources.requests.cpu:
//   invalid quantity "x": unknown suffix "x" (...)
//
// The line is where the object starts (the document, or the item of a List),
// the same "file:line" stored in `meta.source` and used by duplicate reports;
// the field path locates the problem inside it. A shape error (duplicate key,
// non-string key, ...) also appends the offending node's own line ("(line 9)").
// Malformed YAML/JSON reports the parser's line and column instead
// ("a.yaml:7:3: malformed YAML/JSON: ...").
//
// Nothing user-supplied can crash or throw out of `DecodeText` / `LoadPath`:
// before decoding, every document passes `CheckYamlTree` (scalar, unique map
// keys; bounded depth; no alias cycles; bounded alias expansion), every field is
// type-checked before it is read, and any exception that still escapes yaml-cpp
// becomes an error status.
//
// Resource lists follow Volcano's `NewResource`: cpu (milli), memory (bytes),
// pods (count) and scalar resources (milli) — extended resources ("nvidia.com/gpu"),
// "hugepages-*", "attachable-volumes-*" and "*kubernetes.io/*" names. Kubernetes
// names Volcano does not track ("ephemeral-storage", "storage", quota names such as
// "requests.cpu" or "count/pods") are dropped. Any other name is an error: Kubernetes
// itself rejects an unprefixed non-standard name, and a typo ("gpu" for
// "nvidia.com/gpu") must not silently disable a request or a quota. Negative
// quantities and quantities above `kMaxResourceValue` are errors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cronjob.h"
#include "api/hypernode.h"
#include "api/jobflow.h"
#include "api/numatopology.h"
#include "api/object_rules.h"
#include "api/objects.h"
#include "api/pod_disruption_budget.h"
#include "api/resource_quota.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

class JsonField;     // api/json_field.h
struct InputLimits;  // api/limits.h

// Everything read from a set of manifests, in input order.
struct ClusterObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PriorityClass> priority_classes;
  std::vector<Queue> queues;
  std::vector<PodGroup> podgroups;
  std::vector<VcJob> jobs;
  std::vector<OwnerObject> owners;
  std::vector<Command> commands;
  // flow.volcano.sh/v1alpha1: JobTemplates (vcjob specs) and JobFlows.
  std::vector<VcJob> job_templates;
  std::vector<JobFlow> job_flows;
  // batch.volcano.sh/v1alpha1 CronJobs (controllers/cronjob_controller.h).
  std::vector<CronJob> cron_jobs;
  // Namespace name -> annotations (for scheduling.volcano.sh/queue-name).
  std::vector<ObjectMeta> namespaces;
  // nodeinfo.volcano.sh Numatopology objects, one per node (numa-aware).
  std::vector<Numatopology> numatopologies;
  // topology.volcano.sh/v1alpha1 HyperNodes (network topology tree).
  std::vector<HyperNode> hypernodes;
  // policy/v1 PodDisruptionBudgets (pdb) and v1 ResourceQuotas (resourcequota).
  std::vector<PodDisruptionBudget> disruption_budgets;
  std::vector<ResourceQuota> resource_quotas;
  // What the document rules (api/object_rules.h) found while decoding.
  std::vector<RuleFinding> findings;
};

// Decodes one document. `source` ("file:line") prefixes every message verbatim and
// is stored in each object's `meta.source`. A `List` document decodes its items
// (a List inside a List is an error). Does not run `CheckYamlTree`; `DecodeText`
// does, and should be preferred.
Status DecodeObject(const YAML::Node& doc, const std::string& source, ClusterObjects* out);

// Decodes every document of a YAML or JSON text. `file` names the input in
// messages and in `meta.source` ("file:line", the line the document starts on).
// Empty documents are skipped. On error, objects decoded before the failing one
// stay in `out`. Documents are parsed one at a time, so only one document's
// YAML tree is in memory (a List is one document). More objects in `out` than
// `limits.max_objects` is an error naming the first object over (api/limits.h);
// without `limits`, the default limits apply.
Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out);
Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out,
                  const InputLimits& limits);

// Loads a file, or every *.yaml, *.yml and *.json file below a folder (recursively,
// in byte order of the full path), as `DecodeText`.
Status LoadPath(const std::string& path, ClusterObjects* out);
Status LoadPath(const std::string& path, ClusterObjects* out, const InputLimits& limits);

// `DecodeText` with every document of the text parsed at once, as it falls back
// to for texts it cannot cut into documents safely (directives, byte-order
// marks). Tests compare the two.
Status DecodeTextInOnePieceForTesting(const std::string& text, const std::string& file,
                                      ClusterObjects* out);

// Decodes a Kubernetes resource list ({cpu: "2", memory: 1Gi, nvidia.com/gpu: 1}) with
// basalt's units and Volcano's name filter (see above). `field` is the path used in
// messages. A null or absent node is the empty resource.
Result<Resource> DecodeResourceList(const YAML::Node& node, const std::string& field);
// The same, read from an object the API server returned.
Result<Resource> DecodeResourceList(const JsonField& node, const std::string& field);

// Parses an RFC 3339 time ("2024-05-01T10:00:00Z", "2024-05-01T12:00:00.5+02:00")
// into seconds since the epoch (fractions truncated). The zone (Z or an offset) is
// required; calendar fields are range-checked (no February 30th, no second 60).
Result<int64_t> ParseTimestamp(const std::string& text);

// A YAML 1.1 boolean as Kubernetes' YAML reader resolves it: true/True/TRUE,
// yes/Yes/YES, y/Y, on/On/ON and their false counterparts; anything else is nullopt.
std::optional<bool> ParseYamlBool(std::string_view text);

// The deepest nesting `CheckYamlTree` accepts (manifests need about 15 levels).
inline constexpr int kMaxYamlDepth = 100;

// Shape checks for a parsed YAML tree, run before decoding it: every mapping key
// is a scalar and appears once in its mapping, nesting is at most `kMaxYamlDepth`
// levels, and no alias refers to one of its own ancestors. `*budget` is how many
// nodes the walk may still visit (decremented per node); aliases that expand the
// tree beyond it are refused, so a "billion laughs" document is never walked.
// On failure returns "path: problem" (the path in the dotted form of decode
// messages, e.g. "spec.containers[0]", or "(top level)") and sets `*line` to the
// 0-based line of the offending node.
Status CheckYamlTree(const YAML::Node& root, size_t* budget, int* line);

}  // namespace basalt
