// Kubernetes matching rules shared by the `predicates` and `nodeorder` plugins:
// taint tolerations, node selectors and node affinity terms.
//
// Each function reproduces the behaviour of the Kubernetes helper Volcano calls
// (k8s.io/api core/v1 Toleration.ToleratesTaint, component-helpers
// scheduling/corev1/nodeaffinity, apimachinery labels/fields selectors). The
// rules a re-implementation most often gets wrong are written down here:
//
//   * A toleration with an empty key and operator Exists tolerates every taint;
//     an empty effect matches every effect; an empty operator means Equal.
//   * A node selector term with neither matchExpressions nor matchFields matches
//     nothing. Terms are ORed; the requirements inside a term are ANDed.
//   * `NotIn` and `DoesNotExist` match a node that lacks the label.
//   * `Gt`/`Lt` need the label to exist and parse as a base-10 int64
//     (Go's strconv.ParseInt); otherwise the requirement does not match.
//   * A requirement Kubernetes would fail to parse (In/NotIn without values,
//     Exists/DoesNotExist with values, Gt/Lt without exactly one integer,
//     matchFields other than In/NotIn with exactly one value) makes its whole
//     term match nothing. The API server rejects such pods, so this only matters
//     for hand-written manifests.
//   * matchFields only knows `metadata.name`; any other field reads as "".
//   * Label key and value syntax is not validated (the API server does that).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"

namespace basalt::k8s {

inline constexpr const char* kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr const char* kTaintNodeNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintNodeUnreachable = "node.kubernetes.io/unreachable";

// Go's strconv.ParseInt(s, 10, 64): optional sign, at least one digit, nothing
// else, within int64.
inline std::optional<int64_t> ParseInt64(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return std::nullopt;
  // Accumulate as a negative number so INT64_MIN is representable.
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    int d = c - '0';
    if (v < (INT64_MIN + d) / 10) return std::nullopt;
    v = v * 10 - d;
  }
  if (!negative) {
    if (v == INT64_MIN) return std::nullopt;
    v = -v;
  }
  return v;
}

// Toleration.ToleratesTaint.
inline bool ToleratesTaint(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
  return t.op == "Exists";
}

inline bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations,
                                     const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

// The first taint with effect NoSchedule or NoExecute (in the node's order) that
// no toleration tolerates; nullptr when every such taint is tolerated.
inline const Taint* FirstUntoleratedScheduleTaint(const std::vector<Taint>& taints,
                                                  const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

// Number of PreferNoSchedule taints the pod does not tolerate (the raw score of
// the TaintToleration score plugin; fewer is better).
inline int64_t CountIntolerablePreferNoSchedule(const std::vector<Taint>& taints,
                                                const std::vector<Toleration>& tolerations) {
  int64_t n = 0;
  for (const Taint& taint : taints) {
    if (taint.effect != "PreferNoSchedule") continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) ++n;
  }
  return n;
}

namespace internal {

enum class Match { kYes, kNo, kInvalid };

inline bool Contains(const std::vector<std::string>& values, const std::string& v) {
  for (const std::string& x : values) {
    if (x == v) return true;
  }
  return false;
}

// One label requirement (labels.NewRequirement + Requirement.Matches).
inline Match MatchLabelRequirement(const NodeSelectorRequirement& r,
                                   const std::map<std::string, std::string>& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) return Match::kInvalid;
    const bool in = has && Contains(r.values, it->second);
    if (r.op == "In") return in ? Match::kYes : Match::kNo;
    return in ? Match::kNo : Match::kYes;
  }
  if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) return Match::kInvalid;
    return has == (r.op == "Exists") ? Match::kYes : Match::kNo;
  }
  if (r.op == "Gt" || r.op == "Lt") {
    if (r.values.size() != 1) return Match::kInvalid;
    std::optional<int64_t> bound = ParseInt64(r.values[0]);
    if (!bound) return Match::kInvalid;
    if (!has) return Match::kNo;
    std::optional<int64_t> v = ParseInt64(it->second);
    if (!v) return Match::kNo;
    const bool ok = r.op == "Gt" ? *v > *bound : *v < *bound;
    return ok ? Match::kYes : Match::kNo;
  }
  return Match::kInvalid;
}

// One field requirement: only In/NotIn with exactly one value parse.
inline Match MatchFieldRequirement(const NodeSelectorRequirement& r, const std::string& node_name) {
  if ((r.op != "In" && r.op != "NotIn") || r.values.size() != 1) return Match::kInvalid;
  // The node's field set holds only metadata.name (when the name is non-empty);
  // any other key reads as the empty string.
  const std::string value = r.key == "metadata.name" ? node_name : std::string();
  const bool equal = value == r.values[0];
  return (r.op == "In") == equal ? Match::kYes : Match::kNo;
}

}  // namespace internal

inline bool IsEmptyTerm(const NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

// Whether a (non-empty) term matches the node. Parse errors anywhere in the term
// make it match nothing, whether or not the other requirements match.
inline bool MatchesTerm(const NodeSelectorTerm& term, const Node& node) {
  if (IsEmptyTerm(term)) return false;
  bool all = true;
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    internal::Match m = internal::MatchLabelRequirement(r, node.meta.labels);
    if (m == internal::Match::kInvalid) return false;
    if (m == internal::Match::kNo) all = false;
  }
  for (const NodeSelectorRequirement& r : term.match_fields) {
    internal::Match m = internal::MatchFieldRequirement(r, node.meta.name);
    if (m == internal::Match::kInvalid) return false;
    if (m == internal::Match::kNo) all = false;
  }
  return all;
}

// nodeSelector (every key present with an equal value) AND, when the pod has
// required node affinity terms, at least one of them.
inline bool MatchesRequiredNodeAffinity(const PodSpec& spec, const Node& node) {
  for (const auto& [key, value] : spec.node_selector) {
    auto it = node.meta.labels.find(key);
    if (it == node.meta.labels.end() || it->second != value) return false;
  }
  if (spec.required_node_affinity.empty()) return true;
  for (const NodeSelectorTerm& term : spec.required_node_affinity) {
    if (MatchesTerm(term, node)) return true;
  }
  return false;
}

// Sum of the weights of the preferred node affinity terms that match the node
// (the raw NodeAffinity score). Terms with weight 0 or no requirements are
// skipped, as Kubernetes does.
inline int64_t PreferredNodeAffinityScore(const PodSpec& spec, const Node& node) {
  int64_t score = 0;
  for (const PreferredSchedulingTerm& p : spec.preferred_node_affinity) {
    if (p.weight == 0 || IsEmptyTerm(p.preference)) continue;
    if (MatchesTerm(p.preference, node)) score += p.weight;
  }
  return score;
}

}  // namespace basalt::k8s
