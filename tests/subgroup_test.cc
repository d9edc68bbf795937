// SubGroups (api/subgroup.h): decoding of spec.subGroupPolicy and of a vcjob
// task's partitionPolicy with field paths, the webhook's partition checks,
// which SubGroup a pod falls in, and what the vcjob controller writes
// (docs/topology.md).
#include "api/subgroup.h"

#include <gtest/gtest.h>

#include <string>

#include "admission/admission.h"
#include "decode_test_util.h"

namespace basalt {
namespace {

using decode_test::DecodeError;
using decode_test::DecodeOk;

std::string PodGroupWith(const std::string& policies) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
         "metadata: {name: g, namespace: ns}\nspec:\n  minMember: 1\n  subGroupPolicy: " +
         policies + "\n";
}

std::string JobWith(const std::string& task_extra, int replicas = 4) {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: ns}\n"
         "spec:\n  tasks:\n  - name: worker\n    replicas: " +
         std::to_string(replicas) + "\n" + task_extra +
         "    template: {spec: {containers: [{name: c}]}}\n";
}

TEST(SubGroupDecodeTest, ReadsEveryField) {
  ClusterObjects objs =
      DecodeOk(PodGroupWith("[{name: p, subGroupSize: 2, minSubGroups: 1, matchLabelKeys: [part], "
                            "networkTopology: {mode: hard, highestTierAllowed: 1}, labelSelector: "
                            "{matchLabels: {app: a}, "
                            "matchExpressions: [{key: role, operator: In, values: [w]}]}}]"));
  ASSERT_EQ(objs.podgroups.size(), 1u);
  ASSERT_EQ(objs.podgroups[0].sub_group_policy.size(), 1u);
  const SubGroupPolicy& p = objs.podgroups[0].sub_group_policy[0];
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.sub_group_size, 2);
  EXPECT_EQ(p.min_sub_groups, 1);
  ASSERT_TRUE(p.network_topology);
  EXPECT_EQ(p.network_topology->highest_tier_allowed, 1);
  EXPECT_TRUE(p.has_label_selector);
  EXPECT_EQ(p.match_labels.at("app"), "a");
  ASSERT_EQ(p.match_expressions.size(), 1u);
  EXPECT_EQ(p.match_label_keys, std::vector<std::string>{"part"});
}

TEST(SubGroupDecodeTest, ErrorsNameFileObjectAndField) {
  std::string e = DecodeError(PodGroupWith("[{name: p, subGroupSize: 0}]"), "pg.yaml");
  EXPECT_HAS(e, "pg.yaml");
  EXPECT_HAS(e, "PodGroup ns/g: spec.subGroupPolicy[0].subGroupSize: value 0 out of range");
  EXPECT_HAS(DecodeError(PodGroupWith("{name: p}")),
             "spec.subGroupPolicy: expected a list, got an object");
  EXPECT_HAS(DecodeError(PodGroupWith("[{name: p, minSubGroups: -1}]")),
             "spec.subGroupPolicy[0].minSubGroups: value -1 out of range");
  EXPECT_HAS(DecodeError(PodGroupWith("[{name: p}, {name: p}]")),
             "spec.subGroupPolicy[1].name: duplicated policy name \"p\"");
  EXPECT_HAS(DecodeError(PodGroupWith("[{name: p, matchLabelKeys: [a, a]}]")),
             "spec.subGroupPolicy[0].matchLabelKeys[1]: duplicated label key \"a\"");
  EXPECT_HAS(DecodeError(PodGroupWith(
                 "[{name: p, labelSelector: {matchExpressions: [{key: a, operator: Gt}]}}]")),
             "spec.subGroupPolicy[0].labelSelector.matchExpressions[0].operator: unknown operator");
  EXPECT_HAS(DecodeError(PodGroupWith(
                 "[{name: p, labelSelector: {matchExpressions: [{key: a, operator: In}]}}]")),
             "labelSelector.matchExpressions[0].values: must be non-empty for In and NotIn");
  EXPECT_HAS(DecodeError(PodGroupWith("[{name: p, networkTopology: {mode: loose}}]")),
             "spec.subGroupPolicy[0].networkTopology.mode: unknown mode \"loose\"");
}

TEST(SubGroupDecodeTest, PartitionPolicyErrors) {
  ClusterObjects objs = DecodeOk(
      JobWith("    partitionPolicy: {totalPartitions: 2, partitionSize: 2, minPartitions: 1,\n"
              "                      networkTopology: {highestTierAllowed: 1}}\n"));
  ASSERT_EQ(objs.jobs.size(), 1u);
  ASSERT_TRUE(objs.jobs[0].tasks[0].partition_policy);
  EXPECT_EQ(objs.jobs[0].tasks[0].partition_policy->partition_size, 2);
  EXPECT_EQ(objs.jobs[0].tasks[0].partition_policy->min_partitions, 1);
  EXPECT_HAS(DecodeError(JobWith("    partitionPolicy: {totalPartitions: 2}\n")),
             "Job ns/j: spec.tasks[0].partitionPolicy.partitionSize: missing");
  EXPECT_HAS(DecodeError(JobWith("    partitionPolicy: {totalPartitions: 0, partitionSize: 2}\n")),
             "spec.tasks[0].partitionPolicy.totalPartitions: value 0 out of range");
  EXPECT_HAS(
      DecodeError(JobWith(
          "    partitionPolicy: {totalPartitions: 2, partitionSize: 2, minPartitions: 3}\n")),
      "spec.tasks[0].partitionPolicy.minPartitions: must not be greater than "
      "totalPartitions (3 > 2)");
  EXPECT_HAS(DecodeError(JobWith("    partitionPolicy: {totalPartitions: 2, partitionSize: 2,\n"
                                 "      networkTopology: {highestTierAllowed: 1, "
                                 "highestTierName: leaf}}\n")),
             "spec.tasks[0].partitionPolicy.networkTopology.highestTierName");
}

TEST(SubGroupDecodeTest, WebhookChecksPartitionsCoverReplicas) {
  ClusterObjects objs =
      DecodeOk(JobWith("    partitionPolicy: {totalPartitions: 2, partitionSize: 3}\n"
                       "    minAvailable: 2\n"));
  std::vector<AdmissionProblem> ps = ValidateObjects(objs);
  bool replicas = false, min = false;
  for (const AdmissionProblem& p : ps) {
    replicas |= p.field == "spec.tasks[0].partitionPolicy" &&
                p.message.find("'Replicas' are not equal to TotalPartitions*PartitionSize") !=
                    std::string::npos;
    min |= p.field == "spec.tasks[0].minAvailable" &&
           p.message.find("'MinAvailable' is not equal to MinPartitions*PartitionSize") !=
               std::string::npos;
  }
  EXPECT_TRUE(replicas);
  EXPECT_TRUE(min);
}

TEST(SubGroupMatchTest, FirstPolicyAndMatchLabelKeys) {
  SubGroupPolicy by_part;
  by_part.name = "w";
  by_part.has_label_selector = true;
  by_part.match_labels["role"] = "worker";
  by_part.match_label_keys = {"part"};
  SubGroupPolicy rest;
  rest.name = "rest";
  rest.match_label_keys = {"role"};
  std::vector<SubGroupPolicy> policies = {by_part, rest};
  auto w3 = SubGroupOf(policies, {{"role", "worker"}, {"part", "3"}});
  ASSERT_TRUE(w3);
  EXPECT_EQ(w3->policy, 0);
  EXPECT_EQ(w3->name, "w-3");
  // Without the split label (or with an empty value) the first policy does not take it.
  auto no_part = SubGroupOf(policies, {{"role", "worker"}, {"part", ""}});
  ASSERT_TRUE(no_part);
  EXPECT_EQ(no_part->policy, 1);
  EXPECT_EQ(no_part->name, "rest-worker");
  EXPECT_FALSE(SubGroupOf({by_part}, {{"role", "ps"}, {"part", "0"}}));
  SubGroupPolicy expr;
  expr.has_label_selector = true;
  expr.match_expressions.push_back({"zone", "NotIn", {"z1"}});
  expr.match_label_keys = {"app"};
  EXPECT_TRUE(SubGroupOf({expr}, {{"app", "a"}}));
  EXPECT_FALSE(SubGroupOf({expr}, {{"app", "a"}, {"zone", "z1"}}));
  EXPECT_EQ(SubGroupOf({expr}, {{"app", "a"}})->name, "subGroupPolicy[0]-a");
}

// A policy without matchLabelKeys takes no pod, even one its selector matches
// (Volcano v1.15.1's getSubJobMatchValues gives it no value): the pod goes to
// the next policy, or to no SubGroup.
TEST(SubGroupMatchTest, PolicyWithoutMatchLabelKeysTakesNoPod) {
  SubGroupPolicy all;
  all.name = "all";
  SubGroupPolicy by_role;
  by_role.name = "r";
  by_role.match_label_keys = {"role"};
  EXPECT_FALSE(SubGroupOf({all}, {{"role", "worker"}}));
  auto next = SubGroupOf({all, by_role}, {{"role", "worker"}});
  ASSERT_TRUE(next);
  EXPECT_EQ(next->policy, 1);
  EXPECT_EQ(next->name, "r-worker");
}

TEST(SubGroupMatchTest, PartitionsBecomeAPolicy) {
  PartitionPolicy p;
  p.total_partitions = 2;
  p.partition_size = 4;
  p.min_partitions = 1;
  SubGroupPolicy out = PolicyOfPartitions("worker", p);
  EXPECT_EQ(out.name, "worker");
  EXPECT_EQ(out.sub_group_size, 4);
  EXPECT_EQ(out.min_sub_groups, 1);
  EXPECT_EQ(out.match_labels.at("volcano.sh/task-spec"), "worker");
  EXPECT_EQ(out.match_label_keys, std::vector<std::string>{kPartitionIdLabel});
}

}  // namespace
}  // namespace basalt
