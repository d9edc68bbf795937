#include "plugins/card_discovery.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <utility>

#include "api/card_annotations.h"

namespace basalt {
namespace {

constexpr std::string_view kProductSuffix = ".product";
constexpr std::string_view kMigInfix = "/mig-";
constexpr std::string_view kMixedSuffix = "-mixed";

// A card family announced by a `<domain>/<type>.product` label.
struct Family {
  std::string domain;  // "nvidia.com"
  std::string base;    // "nvidia.com/gpu"
  std::string product;
};

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// `<domain>/<type>.product` with a non-empty domain and a word-character type.
bool ParseProductLabel(const std::string& key, const std::string& value, Family* out) {
  if (key.size() <= kProductSuffix.size() || !key.ends_with(kProductSuffix)) return false;
  const std::string base = key.substr(0, key.size() - kProductSuffix.size());
  const size_t slash = base.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == base.size()) return false;
  if (!std::all_of(base.begin() + static_cast<std::ptrdiff_t>(slash) + 1, base.end(), IsWordChar))
    return false;
  if (!CheckCardModel(value).ok()) return false;
  *out = {base.substr(0, slash), base, value};
  return true;
}

// A label holding a positive decimal integer.
bool PositiveLabel(const Node& node, const std::string& key, int64_t* out) {
  auto it = node.meta.labels.find(key);
  if (it == node.meta.labels.end()) return false;
  const std::string& v = it->second;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n <= 0) return false;
  *out = n;
  return true;
}

// The model one allocatable resource stands for under `f`, or "" when it is not a card of `f`.
std::string ModelFor(const Node& node, const Family& f, const std::string& resource) {
  if (resource == f.base + ".shared") {
    int64_t mem_mib = 0, replicas = 0;
    if (!PositiveLabel(node, f.base + ".memory", &mem_mib) ||
        !PositiveLabel(node, f.base + ".replicas", &replicas)) {
      return "";
    }
    const int64_t gib = (mem_mib + 512) / 1024;  // rounded to the nearest GiB
    return f.product + "/mps-" + std::to_string(gib) + "g*1/" + std::to_string(replicas);
  }
  const std::string mig_prefix = f.domain + std::string(kMigInfix);
  if (StartsWith(resource, mig_prefix) && resource.size() > mig_prefix.size()) {
    return f.product + "/mig-" + resource.substr(mig_prefix.size()) + std::string(kMixedSuffix);
  }
  if (StartsWith(resource, f.base)) return f.product;
  return "";
}

}  // namespace

std::vector<NodeCard> DiscoverNodeCards(const Node& node) {
  std::vector<Family> families;
  for (const auto& [key, value] : node.meta.labels) {  // label order: deterministic
    Family f;
    if (ParseProductLabel(key, value, &f)) families.push_back(std::move(f));
  }
  std::vector<NodeCard> cards;
  if (families.empty()) return cards;
  std::vector<std::pair<std::string, int64_t>> resources;
  for (const auto& [id, milli] : node.allocatable.scalars()) {
    if (id == ResourceNames::kPods || milli <= 0) continue;
    resources.emplace_back(ResourceNames::Name(id), milli);
  }
  std::sort(resources.begin(), resources.end());
  for (const auto& [name, milli] : resources) {
    for (const Family& f : families) {
      std::string model = ModelFor(node, f, name);
      if (model.empty() || !CheckCardModel(model).ok()) continue;
      cards.push_back({std::move(model), name, milli});
      break;
    }
  }
  return cards;
}

std::map<std::string, int64_t> ClusterCardTotals(const std::vector<const Node*>& nodes) {
  std::map<std::string, int64_t> totals;
  for (const Node* n : nodes) {
    for (const NodeCard& c : DiscoverNodeCards(*n)) totals[c.model] += c.milli_count;
  }
  return totals;
}

}  // namespace basalt
