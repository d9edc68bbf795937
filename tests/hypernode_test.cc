// HyperNodes (api/hypernode.h): decoding with field paths, the tree's rules,
// the session's tree over its nodes (framework/hypernode_tree.h) and how a
// job's networkTopology reads (docs/topology.md).
#include "api/hypernode.h"

#include <gtest/gtest.h>

#include <string>

#include "decode_test_util.h"
#include "framework/hypernode_tree.h"
#include "testing.h"

namespace basalt {
namespace {

using decode_test::DecodeError;
using decode_test::DecodeOk;
using testing::SessionFixture;

std::string Node(const std::string& name, const std::string& labels = "") {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         (labels.empty() ? "" : ", labels: {" + labels + "}") +
         "}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n";
}

std::string HyperNodeDoc(const std::string& name, int tier, const std::string& members,
                         const std::string& tier_name = "") {
  return "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: " + name +
         "}\nspec:\n  tier: " + std::to_string(tier) +
         (tier_name.empty() ? "" : "\n  tierName: " + tier_name) + "\n  members: " + members +
         "\n---\n";
}

std::string Exact(const std::string& type, const std::string& name) {
  return "{type: " + type + ", selector: {exactMatch: {name: " + name + "}}}";
}

TEST(HyperNodeTest, DecodesEverySelector) {
  ClusterObjects objs =
      DecodeOk(HyperNodeDoc("s0", 1,
                            "[" + Exact("Node", "n0") +
                                ", {type: Node, selector: {regexMatch: {pattern: \"^r1-\"}}}, "
                                "{type: Node, selector: {labelMatch: {matchLabels: {rack: r2}}}}]",
                            "leaf"));
  ASSERT_EQ(objs.hypernodes.size(), 1u);
  const HyperNode& h = objs.hypernodes[0];
  EXPECT_EQ(h.tier, 1);
  EXPECT_EQ(h.tier_name, "leaf");
  ASSERT_EQ(h.members.size(), 3u);
  EXPECT_EQ(h.members[0].exact_name, "n0");
  EXPECT_EQ(h.members[1].regex, "^r1-");
  EXPECT_EQ(h.members[2].match_labels.at("rack"), "r2");
}

TEST(HyperNodeTest, ErrorsNameTheField) {
  EXPECT_NE(DecodeError(HyperNodeDoc("a", 1, "[{type: Rack, selector: {exactMatch: {name: x}}}]"))
                .find("spec.members[0].type: unknown member type \"Rack\""),
            std::string::npos);
  EXPECT_NE(DecodeError(HyperNodeDoc("a", 1,
                                     "[{type: HyperNode, selector: {regexMatch: "
                                     "{pattern: x}}}]"))
                .find("a member of type HyperNode is selected by exactMatch only"),
            std::string::npos);
  EXPECT_NE(DecodeError("apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\n"
                        "metadata: {name: a}\nspec: {members: []}\n")
                .find("spec.tier: missing"),
            std::string::npos);
  EXPECT_NE(DecodeError("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                        "metadata: {name: g}\nspec: {networkTopology: {mode: strict}}\n")
                .find("spec.networkTopology.mode: unknown mode \"strict\""),
            std::string::npos);
}

Status TreeStatus(const std::string& text) {
  ClusterObjects objs = DecodeOk(text);
  ClusterState state;
  return state.AddAll(std::move(objs));
}

TEST(HyperNodeTest, TreeRules) {
  EXPECT_OK(TreeStatus(HyperNodeDoc("a", 2, "[" + Exact("HyperNode", "b") + "]") +
                       HyperNodeDoc("b", 1, "[" + Exact("HyperNode", "missing") + "]")));
  Status two_parents = TreeStatus(HyperNodeDoc("a", 2, "[" + Exact("HyperNode", "c") + "]") +
                                  HyperNodeDoc("b", 2, "[" + Exact("HyperNode", "c") + "]") +
                                  HyperNodeDoc("c", 1, "[]"));
  EXPECT_NE(two_parents.message().find("at most one parent"), std::string::npos);
  Status tier = TreeStatus(HyperNodeDoc("a", 1, "[" + Exact("HyperNode", "b") + "]") +
                           HyperNodeDoc("b", 1, "[]"));
  EXPECT_NE(tier.message().find("not below this HyperNode's tier 1"), std::string::npos);
  Status self = TreeStatus(HyperNodeDoc("a", 1, "[" + Exact("HyperNode", "a") + "]"));
  EXPECT_NE(self.message().find("its own member"), std::string::npos);
}

// A store refuses an upsert that would break the tree and keeps what it had.
TEST(HyperNodeTest, UpsertKeepsTheTreeValid) {
  ClusterState state;
  ClusterObjects objs = DecodeOk(HyperNodeDoc("a", 2, "[" + Exact("HyperNode", "b") + "]") +
                                 HyperNodeDoc("b", 1, "[]"));
  ASSERT_OK(state.AddAll(std::move(objs)));
  HyperNode cyclic = state.hypernodes().at("b");
  HyperNodeMember back;
  back.type = HyperNodeMember::Type::kHyperNode;
  back.exact_name = "a";
  cyclic.members.push_back(back);
  EXPECT_FALSE(state.UpsertHyperNode(cyclic).ok());
  EXPECT_TRUE(state.hypernodes().at("b").members.empty());
}

const char* kConf = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n";
// With the plugin that makes network topology constrain placement.
const char* kTopologyConf =
    "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
    "  - name: network-topology-aware\n";

TEST(HyperNodeTreeTest, ResolvesMembersAndAncestors) {
  SessionFixture f(
      Node("r1-a") + Node("r1-b") + Node("x", "rack: r2") + Node("y", "rack: r2") +
          HyperNodeDoc("rack1", 1, "[{type: Node, selector: {regexMatch: {pattern: \"^r1-\"}}}]",
                       "leaf") +
          HyperNodeDoc("rack2", 1,
                       "[{type: Node, selector: {labelMatch: {matchLabels: "
                       "{rack: r2}}}}]",
                       "leaf") +
          HyperNodeDoc("spine", 2,
                       "[" + Exact("HyperNode", "rack1") + ", " + Exact("HyperNode", "rack2") + "]",
                       "spine"),
      kConf);
  const HyperNodeTree& tree = f.ssn().hypernodes();
  ASSERT_EQ(tree.size(), 3u);
  const HyperNodeId rack1 = *tree.Find("rack1"), rack2 = *tree.Find("rack2");
  const HyperNodeId spine = *tree.Find("spine");
  EXPECT_EQ(tree.at(rack1).nodes.size(), 2u);
  EXPECT_EQ(tree.at(rack2).nodes.size(), 2u);
  EXPECT_EQ(tree.at(spine).nodes.size(), 4u);
  EXPECT_EQ(tree.LeafOf(f.NodeNamed("x").id), rack2);
  EXPECT_EQ(tree.Lca(rack1, rack2), spine);
  EXPECT_EQ(tree.Lca(rack1, kNone), rack1);
  EXPECT_EQ(tree.tiers(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(*tree.TierNamed("spine"), 2);
  EXPECT_FALSE(tree.TierNamed("core").has_value());
}

TEST(HyperNodeTreeTest, ConstraintReadsAsVolcano) {
  SessionFixture f(Node("n0") + HyperNodeDoc("s0", 1, "[" + Exact("Node", "n0") + "]", "leaf") +
                       "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                       "metadata: {name: hard-no-tier}\nspec: {networkTopology: {mode: hard}}\n"
                       "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                       "metadata: {name: by-name}\nspec: {networkTopology: {highestTierName: "
                       "leaf}}\n---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                       "metadata: {name: soft}\nspec: {networkTopology: {mode: soft}}\n",
                   kTopologyConf);
  const HyperNodeTree& tree = f.ssn().hypernodes();
  EXPECT_EQ(ConstraintOf(f.Job("default/hard-no-tier"), tree).kind,
            TopologyConstraint::Kind::kNone);
  TopologyConstraint by_name = ConstraintOf(f.Job("default/by-name"), tree);
  EXPECT_EQ(by_name.kind, TopologyConstraint::Kind::kHard);
  EXPECT_EQ(*by_name.highest_tier, 1);
  EXPECT_EQ(ConstraintOf(f.Job("default/soft"), tree).kind, TopologyConstraint::Kind::kSoft);
}

// Without network-topology-aware (or with its enabledHyperNodeGradient off)
// no networkTopology constrains anything, as in Volcano v1.15.1.
TEST(HyperNodeTreeTest, ConstraintNeedsThePlugin) {
  const std::string cluster = Node("n0") +
                              HyperNodeDoc("s0", 1, "[" + Exact("Node", "n0") + "]", "leaf") +
                              "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                              "metadata: {name: hard}\nspec: {networkTopology: {mode: hard, "
                              "highestTierAllowed: 1}}\n";
  for (const std::string& conf :
       {std::string(kConf), std::string(kTopologyConf) + "    enabledHyperNodeGradient: false\n"}) {
    SessionFixture f(cluster, conf);
    EXPECT_FALSE(f.ssn().hypernodes().constraining()) << conf;
    EXPECT_EQ(ConstraintOf(f.Job("default/hard"), f.ssn().hypernodes()).kind,
              TopologyConstraint::Kind::kNone)
        << conf;
  }
  SessionFixture with(cluster, kTopologyConf);
  EXPECT_EQ(ConstraintOf(with.Job("default/hard"), with.ssn().hypernodes()).kind,
            TopologyConstraint::Kind::kHard);
}

}  // namespace
}  // namespace basalt
