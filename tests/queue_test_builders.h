// Builders shared by the queue-plugin tests (capacity_test, fairness_test):
// a PodGroup manifest and a probe task for "would this request fit the queue?".
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "api/resource.h"
#include "framework/types.h"

namespace basalt::testing {

// `min_resources`: a flow map such as "{cpu: 2}", empty for none; `phase`: empty for Pending.
inline std::string PodGroupYaml(const std::string& name, const std::string& queue, int min_member,
                                const std::string& min_resources = "",
                                const std::string& phase = "") {
  std::string s =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + name +
      ", namespace: default}\nspec:\n  minMember: " + std::to_string(min_member) +
      "\n  queue: " + queue + "\n";
  if (!min_resources.empty()) s += "  minResources: " + min_resources + "\n";
  if (!phase.empty()) s += "status: {phase: " + phase + "}\n";
  return s + "---\n";
}

// A task that exists only to ask "would this request fit the queue?".
inline TaskInfo Probe(const std::string& request) {
  TaskInfo t;
  auto r = Resource::Parse(request);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) t.request = *r;
  return t;
}

}  // namespace basalt::testing
