// The API server's own object rules, in one place, for every front end that
// reads objects: `basalt validate`, `basalt schedule`, `basalt simulate` (its
// manifests) and the admission webhook (`basalt webhook`, `serve`).
//
// Two kinds of rule:
//   - document rules, run by the decoder on each document as it is read
//     (`CheckDocument`): unknown fields, a pod without containers, limits below
//     requests, fractional extended resources. They need the document itself,
//     so the decoder keeps what they find in `ClusterObjects::findings`;
//   - object rules, run on everything decoded (`CheckObjectRules`): names
//     (DNS-1123 subdomain or label, by kind), namespaces, duplicate Nodes,
//     PriorityClasses and HyperNodes, a pod's priorityClassName, a pod's
//     nodeName.
//
// Each finding says how each front end treats it: `validate` refuses what the
// API server refuses to store; `schedule` and `simulate` refuse only what could
// never exist in a cluster and warn about the rest; unknown fields always warn,
// as kubectl's field validation does. docs/validate.md lists the rules.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace basalt {

struct ClusterObjects;

enum class RuleSeverity { kError, kWarning };

struct RuleFinding {
  std::string source;  // file:line where the object starts
  std::string object;  // "Pod ns/name", "Node n1", "Namespace Not_Valid"
  std::string field;   // "metadata.name", "spec.containers[0].resources.requests[cpu]"
  std::string message;
  RuleSeverity in_validate = RuleSeverity::kError;  // `basalt validate`, the webhook
  RuleSeverity in_run = RuleSeverity::kWarning;     // `basalt schedule`, `simulate`
  std::string ToString() const { return source + ": " + object + ": " + field + ": " + message; }
};

// Kubernetes' name checks (k8s.io/apimachinery/pkg/util/validation): the
// reasons `name` is not a DNS-1123 subdomain (at most 253 characters of
// dot-separated labels) or label (at most 63 characters of [a-z0-9-], starting
// and ending alphanumeric); empty when it is one.
std::vector<std::string> Dns1123SubdomainErrors(std::string_view name);
std::vector<std::string> Dns1123LabelErrors(std::string_view name);

// "file:12" -> ("file", 12), to order findings by file, then line; any other
// source -> (source, -1), before the numbered lines of a file of that name.
std::pair<std::string, int64_t> SplitSourceLine(const std::string& source);

// The document rules of one decoded document of `kind` (not a List: its items
// are documents of their own). `label` is "Kind ns/name" as messages name it.
void CheckDocument(const YAML::Node& doc, const std::string& kind, const std::string& source,
                   const std::string& label, std::vector<RuleFinding>* out);

// Which rules `CheckObjectRules` runs: the webhook sees one object at a time,
// so the rules that need the rest of the cluster (duplicates, a pod's
// PriorityClass and node) are for whole inputs only.
struct RuleScope {
  bool whole_cluster = true;
  bool duplicates = true;  // Nodes and PriorityClasses named twice
};

// The document findings kept by the decoder, then the object rules, ordered
// by file, then line, then object (stable otherwise).
std::vector<RuleFinding> CheckObjectRules(const ClusterObjects& objects, RuleScope scope = {});

// For `schedule` and `simulate`: the findings that are errors there, one line
// each; the others are logged as warnings (stderr, "basalt: warning: ...").
std::vector<std::string> RunErrorsAfterWarnings(const ClusterObjects& objects);

}  // namespace basalt
