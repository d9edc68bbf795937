// Decoding Numatopology objects (api/numatopology.h) and the CPU-pinning inputs
// of pods: the model built from good input, and for bad input a message naming
// the file and line, the object and the field.
#include "api/numatopology.h"

#include <gtest/gtest.h>

#include <string>

#include "api/decode.h"
#include "state/cluster_state.h"

namespace basalt {
namespace {

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

std::string Topo(const std::string& spec) {
  return "apiVersion: nodeinfo.volcano.sh/v1alpha1\nkind: Numatopology\nmetadata: {name: "
         "n1}\nspec:\n" +
         spec;
}

std::string DecodeError(const std::string& text) {
  ClusterObjects objs;
  Status st = DecodeText(text, "t.yaml", &objs);
  EXPECT_FALSE(st.ok()) << "decoded without error:\n" << text;
  return st.message();
}

TEST(NumatopologyDecode, ReadsEveryField) {
  ClusterObjects objs;
  Status st =
      DecodeText(Topo(R"(  policies: {CPUManagerPolicy: static, TopologyManagerPolicy: restricted}
  resReserved: {cpu: 1500m, memory: 1Gi}
  numares:
    cpu: {allocatable: "0-1,3", capacity: 4}
  cpuDetail:
    "0": {numa: 0, socket: 0, core: 0}
    "1": {numa: 0, socket: 0, core: 1}
    "2": {numa: 1, socket: 1}
    "3": {numa: 1, socket: 1, core: 3}
)"),
                 "t.yaml", &objs);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(objs.numatopologies.size(), 1u);
  const Numatopology& t = objs.numatopologies[0];
  EXPECT_EQ(t.meta.name, "n1");
  EXPECT_EQ(t.meta.source, "t.yaml:1");
  EXPECT_EQ(t.Policy(kCpuManagerPolicyKey), "static");
  EXPECT_EQ(t.Policy(kTopologyManagerPolicyKey), "restricted");
  EXPECT_EQ(t.Policy(kMemoryManagerPolicyKey), "");
  EXPECT_EQ(t.reserved_milli_cpu, 1500);
  EXPECT_EQ(t.res_reserved.at("memory"), "1Gi");
  EXPECT_EQ(t.numa_resources.at("cpu").allocatable, (std::vector<int32_t>{0, 1, 3}));
  EXPECT_EQ(t.numa_resources.at("cpu").capacity, 4);
  ASSERT_EQ(t.cpu_detail.size(), 4u);
  EXPECT_EQ(t.cpu_detail.at(2).numa, 1);
  EXPECT_EQ(t.cpu_detail.at(2).socket, 1);
  EXPECT_EQ(t.cpu_detail.at(2).core, 0);  // absent: 0, as Go's omitempty
}

TEST(NumatopologyDecode, ClusterStateKeepsOnePerNodeAndRefusesDuplicates) {
  ClusterObjects objs;
  ASSERT_TRUE(DecodeText(Topo("  policies: {CPUManagerPolicy: static}\n") + "---\n" +
                             Topo("  policies: {CPUManagerPolicy: none}\n"),
                         "t.yaml", &objs)
                  .ok());
  ClusterState state;
  Status st = state.AddAll(std::move(objs));
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.message(), "Numatopology n1: metadata.name: duplicate");
}

TEST(NumatopologyDecode, ErrorsNameFileObjectAndField) {
  EXPECT_HAS(DecodeError(Topo("  policies: {TopologyManagerPolicy: single-numa}\n")),
             "t.yaml:1: Numatopology n1: spec.policies.TopologyManagerPolicy: unknown policy "
             "\"single-numa\"");
  EXPECT_HAS(
      DecodeError(Topo("  policies: {CPUManagerPolicy: dynamic}\n")),
      "spec.policies.CPUManagerPolicy: unknown policy \"dynamic\" (want one of none, static)");
  EXPECT_HAS(DecodeError(Topo("  policies: [static]\n")),
             "Numatopology n1: spec.policies: expected an object");
  EXPECT_HAS(DecodeError(Topo("  resReserved: {cpu: lots}\n")),
             "Numatopology n1: spec.resReserved.cpu:");
  EXPECT_HAS(DecodeError(Topo("  numares: {cpu: {allocatable: \"3-1\"}}\n")),
             "Numatopology n1: spec.numares.cpu.allocatable: invalid cpu-set list \"3-1\"");
  EXPECT_HAS(DecodeError(Topo("  numares: {cpu: {allocatable: [0, 1]}}\n")),
             "spec.numares.cpu.allocatable: expected a cpu-set list");
  EXPECT_HAS(DecodeError(Topo("  numares: {cpu: {capacity: -4}}\n")),
             "spec.numares.cpu.capacity: expected a non-negative integer, got \"-4\"");
  EXPECT_HAS(DecodeError(Topo("  numares: {cpu: {allocatible: \"0\"}}\n")),
             "spec.numares.cpu.allocatible: unknown field");
  EXPECT_HAS(DecodeError(Topo("  cpuDetail: {\"x\": {numa: 0}}\n")),
             "spec.cpuDetail.x: cpu ids must be non-negative integers");
  EXPECT_HAS(DecodeError(Topo("  cpuDetail: {\"0\": {numa: one}}\n")),
             "spec.cpuDetail.0.numa: expected a non-negative integer, got \"one\"");
  EXPECT_HAS(DecodeError(Topo("  cpuDetail: {\"0\": {node: 0}}\n")),
             "spec.cpuDetail.0.node: unknown field");
  EXPECT_HAS(DecodeError(Topo(
                 "  numares: {cpu: {allocatable: \"0-1\"}}\n  cpuDetail: {\"0\": {numa: 0}}\n")),
             "spec.numares.cpu.allocatable: cpu 1 is not described in spec.cpuDetail");
  EXPECT_HAS(DecodeError(Topo("  policy: {}\n")), "Numatopology n1: spec.policy: unknown field");
  EXPECT_HAS(
      DecodeError(
          "apiVersion: nodeinfo.volcano.sh/v1beta1\nkind: Numatopology\nmetadata: {name: n1}\n"),
      "apiVersion: \"nodeinfo.volcano.sh/v1beta1\" is not supported for Numatopology");
  EXPECT_HAS(
      DecodeError("apiVersion: nodeinfo.volcano.sh/v1alpha1\nkind: Numatopology\nmetadata: {}\n"),
      "metadata.name: missing");
}

TEST(NumatopologyDecode, CpuSetLists) {
  EXPECT_EQ(*ParseCpuSetList(""), std::vector<int32_t>{});
  EXPECT_EQ(*ParseCpuSetList("5"), std::vector<int32_t>{5});
  EXPECT_EQ(*ParseCpuSetList("8-9,0-2,1"), (std::vector<int32_t>{0, 1, 2, 8, 9}));
  EXPECT_FALSE(ParseCpuSetList("1,,2").ok());
  EXPECT_FALSE(ParseCpuSetList("a-b").ok());
  EXPECT_FALSE(ParseCpuSetList("0-").ok());
  EXPECT_FALSE(ParseCpuSetList("0-99999").ok());
}

// QoS Guaranteed: every container has cpu and memory limits, and requests, when
// given, equal them; per-container CPU requests default from the limits.
TEST(NumatopologyDecode, PodCpuPinningInputs) {
  auto pod = [](const std::string& containers) {
    ClusterObjects objs;
    Status st = DecodeText(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + containers,
        "p.yaml", &objs);
    EXPECT_TRUE(st.ok()) << st.message();
    return objs.pods.empty() ? PodSpec{} : objs.pods[0].spec;
  };
  PodSpec g =
      pod("  - {name: a, resources: {limits: {cpu: \"2\", memory: 1Gi}}}\n"
          "  - {name: b, resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: 500m, "
          "memory: 1Gi}}}\n");
  EXPECT_TRUE(g.qos_guaranteed);
  EXPECT_EQ(g.container_milli_cpu, (std::vector<int64_t>{2000, 500}));
  PodSpec burstable = pod("  - {name: a, resources: {requests: {cpu: \"2\", memory: 1Gi}}}\n");
  EXPECT_FALSE(burstable.qos_guaranteed);
  EXPECT_EQ(burstable.container_milli_cpu, std::vector<int64_t>{2000});
  PodSpec unequal =
      pod("  - {name: a, resources: {requests: {cpu: \"1\", memory: 1Gi}, limits: {cpu: \"2\", "
          "memory: 1Gi}}}\n");
  EXPECT_FALSE(unequal.qos_guaranteed);
  PodSpec no_memory_limit = pod("  - {name: a, resources: {limits: {cpu: \"2\"}}}\n");
  EXPECT_FALSE(no_memory_limit.qos_guaranteed);
  PodSpec best_effort = pod("  - {name: a}\n");
  EXPECT_FALSE(best_effort.qos_guaranteed);
  EXPECT_EQ(best_effort.container_milli_cpu, std::vector<int64_t>{0});
}

}  // namespace
}  // namespace basalt
