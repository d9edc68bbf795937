// The API server's object rules (api/object_rules.h), one at a time.
#include "api/object_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "api/decode.h"

namespace basalt {
namespace {

std::vector<RuleFinding> FindingsOf(const std::string& yaml) {
  ClusterObjects objects;
  Status st = DecodeText(yaml, "t.yaml", &objects);
  EXPECT_TRUE(st.ok()) << st.message();
  return CheckObjectRules(objects);
}

std::string Lines(const std::vector<RuleFinding>& findings) {
  std::string out;
  for (const RuleFinding& f : findings) out += f.ToString() + "\n";
  return out;
}

TEST(ObjectRulesTest, Dns1123Names) {
  EXPECT_TRUE(Dns1123SubdomainErrors("a.b-c.d").empty());
  EXPECT_FALSE(Dns1123SubdomainErrors("").empty());
  EXPECT_FALSE(Dns1123SubdomainErrors("A").empty());
  EXPECT_FALSE(Dns1123SubdomainErrors("a..b").empty());
  EXPECT_FALSE(Dns1123SubdomainErrors("-a").empty());
  EXPECT_EQ(Dns1123SubdomainErrors(std::string(253, 'a')).size(), 0u);
  EXPECT_EQ(Dns1123SubdomainErrors(std::string(254, 'a')).size(), 1u);
  EXPECT_TRUE(Dns1123LabelErrors("ns-1").empty());
  EXPECT_FALSE(Dns1123LabelErrors("a.b").empty());
  EXPECT_EQ(Dns1123LabelErrors(std::string(63, 'a')).size(), 0u);
  EXPECT_EQ(Dns1123LabelErrors(std::string(64, 'a')).size(), 1u);
  EXPECT_FALSE(Dns1123LabelErrors(std::string("a\0b", 3)).empty());
}

TEST(ObjectRulesTest, SeveritiesPerFrontEnd) {
  auto f = FindingsOf(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spek: {}
spec:
  nodeName: nowhere
  containers: [{name: c, resources: {requests: {example.com/fpga: 1500m}}}]
)");
  ASSERT_EQ(f.size(), 3u) << Lines(f);
  EXPECT_EQ(f[0].field, "spek");
  EXPECT_EQ(f[0].in_validate, RuleSeverity::kWarning);
  EXPECT_EQ(f[1].field, "spec.containers[0].resources.requests[example.com/fpga]");
  EXPECT_EQ(f[1].in_validate, RuleSeverity::kError);
  EXPECT_EQ(f[1].in_run, RuleSeverity::kError);
  EXPECT_EQ(f[2].in_run, RuleSeverity::kWarning);
  EXPECT_EQ(f[2].field, "spec.nodeName");
  EXPECT_EQ(f[2].in_validate, RuleSeverity::kWarning);
}

TEST(ObjectRulesTest, WholeUnitsAndNativeResourcesAreFine) {
  auto f = FindingsOf(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: "2", hugepages-2Mi: 2Mi}
      limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2"}
)");
  EXPECT_TRUE(f.empty()) << Lines(f);
}

TEST(ObjectRulesTest, VcJobTemplatesAreCheckedAsPodTemplates) {
  auto f = FindingsOf(R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default}
spec:
  minAvailable: 1
  tasks:
  - name: t
    replicas: 1
    template:
      spec:
        containers: [{name: c, resources: {requests: {nvidia.com/gpu: "0.5"}}}]
)");
  ASSERT_EQ(f.size(), 1u) << Lines(f);
  EXPECT_EQ(f[0].field,
            "spec.tasks[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]");
}

TEST(ObjectRulesTest, WebhookScopeSkipsClusterRulesAndUnknownFields) {
  ClusterObjects objects;
  ASSERT_TRUE(DecodeText(R"(apiVersion: v1
kind: Pod
metadata: {name: P, namespace: default}
spek: {}
spec:
  priorityClassName: nope
  containers: [{name: c}]
)",
                         "t.yaml", &objects)
                  .ok());
  EXPECT_EQ(CheckObjectRules(objects).size(), 3u);
  EXPECT_TRUE(CheckObjectRules(objects, {.whole_cluster = false, .duplicates = false}).empty());
}

}  // namespace
}  // namespace basalt
