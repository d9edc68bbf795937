#include "live/podgroup_status.h"

#include <gtest/gtest.h>

namespace basalt {
namespace {

using Json = nlohmann::json;

TEST(PodGroupStatusTest, RunningGroupIsScheduled) {
  Json s = DesiredPodGroupStatus(PodGroupPhase::kRunning, {2, 0, 0}, "");
  EXPECT_EQ(s["phase"], "Running");
  EXPECT_EQ(s["running"], 2);
  ASSERT_EQ(s["conditions"].size(), 1u);
  EXPECT_EQ(s["conditions"][0]["type"], "Scheduled");
  EXPECT_EQ(s["conditions"][0]["status"], "True");
  EXPECT_EQ(s["conditions"][0]["reason"], "tasks in gang are ready to be scheduled");
}

TEST(PodGroupStatusTest, GroupTheSessionCouldNotPlaceIsUnschedulableWithItsReason) {
  const std::string why = "1/4 tasks in gang unschedulable: pod group is not ready, 4 minAvailable";
  Json s = DesiredPodGroupStatus(PodGroupPhase::kInqueue, {}, why);
  ASSERT_EQ(s["conditions"].size(), 1u);
  EXPECT_EQ(s["conditions"][0]["type"], "Unschedulable");
  EXPECT_EQ(s["conditions"][0]["reason"], "NotEnoughResources");
  EXPECT_EQ(s["conditions"][0]["message"], why);
  EXPECT_FALSE(DesiredPodGroupStatus(PodGroupPhase::kPending, {}, "").contains("conditions"));
}

// What the server returns after our patch (with timestamps, a transitionID
// another writer added, counts omitted when zero) reads as what we wrote, so
// a restarted basalt writes nothing; a different message does not.
TEST(PodGroupStatusTest, ServerCopyOfOurWriteReadsTheSame) {
  Json desired = DesiredPodGroupStatus(PodGroupPhase::kInqueue, {}, "not enough cpu");
  Json patch = PodGroupStatusPatch(desired, "2026-11-25T22:00:00Z");
  EXPECT_EQ(patch["status"]["conditions"][0]["lastTransitionTime"], "2026-11-25T22:00:00Z");
  Json on_server = patch["status"];
  on_server.erase("running");
  on_server.erase("succeeded");
  on_server.erase("failed");
  on_server["conditions"][0]["transitionID"] = "3f0c";
  EXPECT_EQ(PodGroupStatusText(on_server), PodGroupStatusText(desired));
  on_server["conditions"][0]["message"] = "not enough memory";
  EXPECT_NE(PodGroupStatusText(on_server), PodGroupStatusText(desired));
  EXPECT_NE(PodGroupStatusText(Json::object()), PodGroupStatusText(desired));
}

}  // namespace
}  // namespace basalt
