// Fuzz target: HyperNode trees and their regexMatch patterns, as `basalt
// schedule`, `validate` and `serve` receive them from users.
//
// 1. The whole input as a manifest stream: decoded, stored (the tree rules),
//    and, when it holds HyperNodes, resolved into the session's tree over the
//    nodes it declares, whose shape is then checked: every HyperNode holds
//    its children's nodes, and a node's leaf holds it.
// 2. Its first line as a Go regular expression and the rest as a node name:
//    compiled as Volcano's webhook would (api/go_regex.h) and matched; a
//    pattern that makes matching slow shows up as a libFuzzer timeout.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "api/check.h"
#include "api/decode.h"
#include "api/go_regex.h"
#include "framework/hypernode_tree.h"
#include "framework/snapshot.h"
#include "state/cluster_state.h"

namespace {

void CheckTree(const basalt::ClusterState& state) {
  static const std::set<std::string> kSchedulers = {"volcano"};
  static const std::string kDefaultQueue = "default";
  basalt::Snapshot snap = basalt::Snapshot::Build(state, {kSchedulers, kDefaultQueue});
  basalt::HyperNodeTree tree = basalt::HyperNodeTree::Build(state, snap);
  BASALT_CHECK(tree.size() == state.hypernodes().size()) << "a HyperNode is missing from the tree";
  for (basalt::HyperNodeId id = 0; id < static_cast<basalt::HyperNodeId>(tree.size()); ++id) {
    for (basalt::HyperNodeId child : tree.at(id).children) {
      for (basalt::NodeId n : tree.at(child).nodes) {
        BASALT_CHECK(tree.Holds(id, n)) << tree.at(id).name << " lacks a node of its child";
      }
    }
  }
  for (const basalt::NodeInfo& n : snap.nodes) {
    basalt::HyperNodeId leaf = tree.LeafOf(n.id);
    if (leaf != basalt::kNone) {
      BASALT_CHECK(tree.Holds(leaf, n.id)) << "a leaf lacks its node";
    }
  }
}

void MatchFirstLine(const std::string& input) {
  size_t eol = input.find('\n');
  std::string pattern = input.substr(0, eol);
  std::string name = eol == std::string::npos ? "" : input.substr(eol + 1);
  basalt::Result<basalt::GoRegex> re = basalt::GoRegex::Compile(pattern);
  if (!re.ok()) {
    BASALT_CHECK(!re.status().message().empty()) << "a refusal without a reason";
    return;
  }
  (void)re->Search(name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  MatchFirstLine(input);
  basalt::ClusterObjects objects;
  if (!basalt::DecodeText(input, "fuzz.yaml", &objects).ok()) return 0;
  if (objects.hypernodes.empty()) return 0;
  basalt::ClusterState state;
  if (!state.AddAll(std::move(objects)).ok()) return 0;
  CheckTree(state);
  return 0;
}
