// The agent's pure decisions, checked by hand-worked numbers.
#include <gtest/gtest.h>

#include "agent/policy.h"

namespace basalt::agent {
namespace {

TEST(AgentOversold, HandWorkedCases) {
  // Online pods request 8 cores and used at most 3 over the window; a 10 %
  // margin keeps 0.8 core back: 8000 - 3000 - 800 = 4200m to lend.
  EXPECT_EQ(Oversold(8000, 3000, 10), 4200);
  // Memory: 16 GiB requested, 6 GiB used, 20 % margin (3.2 GiB) -> 6.8 GiB.
  const int64_t gib = 1LL << 30;
  EXPECT_EQ(Oversold(16 * gib, 6 * gib, 20), 16 * gib - 6 * gib - 16 * gib / 5);
  // Using more than requested (bursting) or margin eating the rest: never negative.
  EXPECT_EQ(Oversold(2000, 2500, 0), 0);
  EXPECT_EQ(Oversold(1000, 950, 10), 0);
  EXPECT_EQ(Oversold(0, 0, 10), 0);
  // No margin, idle online pods: everything they requested.
  EXPECT_EQ(Oversold(4000, 0, 0), 4000);
}

TEST(AgentReport, OnlyMaterialChangesAndNotTooOften) {
  ReportPolicy p;
  p.min_interval_nanos = 30;
  p.material_percent = 10;
  p.material_absolute = 100;
  EXPECT_TRUE(ShouldReport(p, std::nullopt, 0, 4200, 0));  // first figure
  EXPECT_FALSE(ShouldReport(p, 4200, 0, 4200, 100));       // unchanged
  EXPECT_FALSE(ShouldReport(p, 4200, 0, 3000, 10));        // material but too soon
  EXPECT_FALSE(ShouldReport(p, 4200, 0, 4000, 100));       // 200 < 420 (10 %)
  EXPECT_TRUE(ShouldReport(p, 4200, 0, 3700, 100));        // 500 >= 420
  EXPECT_FALSE(ShouldReport(p, 500, 0, 550, 100));         // 50 < 100 absolute floor
  EXPECT_TRUE(ShouldReport(p, 500, 0, 0, 100));            // to zero always counts
  EXPECT_TRUE(ShouldReport(p, 0, 0, 20, 100));             // from zero too
}

EvictionCandidate Be(const std::string& key, int32_t prio, int64_t start, int64_t usage) {
  return EvictionCandidate{key, QosLevel::kBE, prio, start, usage};
}

TEST(AgentEviction, BelowHighWatermarkNothing) {
  std::vector<EvictionCandidate> c = {Be("ns/a", 0, 100, 500)};
  EXPECT_TRUE(PickEvictionVictims(c, 7999, 10000, Watermarks{80, 30}).empty());
}

TEST(AgentEviction, LowestPriorityThenNewestUntilBelowLow) {
  // Node at 9000 of 10000 (90 % >= 80 %); below 30 % means under 3000.
  std::vector<EvictionCandidate> c = {
      Be("ns/old-low", 1, 100, 2000),  // low priority, started long ago
      Be("ns/new-low", 1, 900, 1000),  // low priority, started recently -> first
      Be("ns/high", 5, 950, 4000),     // higher priority -> after the low ones
      Be("ns/spare", 9, 10, 3000),     // not needed
      EvictionCandidate{"ns/web", QosLevel::kLS, -100, 0, 9000},  // online: never
  };
  auto victims = PickEvictionVictims(c, 9000, 10000, Watermarks{80, 30});
  // 9000 -1000 (new-low) = 8000 -2000 (old-low) = 6000 -4000 (high) = 2000 < 3000.
  EXPECT_EQ(victims, (std::vector<std::string>{"ns/new-low", "ns/old-low", "ns/high"}));
}

TEST(AgentEviction, NeverAnOnlinePodEvenIfStillAbove) {
  std::vector<EvictionCandidate> c = {
      Be("ns/batch", 0, 1, 500),
      EvictionCandidate{"ns/lc", QosLevel::kLC, 0, 1, 5000},
      EvictionCandidate{"ns/hls", QosLevel::kHLS, 0, 1, 5000},
  };
  auto victims = PickEvictionVictims(c, 9500, 10000, Watermarks{80, 30});
  EXPECT_EQ(victims, (std::vector<std::string>{"ns/batch"}));
}

TEST(AgentThrottle, HysteresisAndBudget) {
  ThrottlePolicy p;  // engage at 40 %, release under 20 %, budget 80 %, floor 100m
  // 2 CPUs; online uses 500m (25 %): not engaged yet.
  EXPECT_FALSE(DecideThrottle(p, false, 500, 2000).engaged);
  // Online at 1000m (50 %): engaged, BE gets 1600 - 1000 = 600m.
  auto d = DecideThrottle(p, false, 1000, 2000);
  EXPECT_TRUE(d.engaged);
  EXPECT_EQ(d.be_budget_milli, 600);
  // Online at 1950m: budget floors at 100m.
  EXPECT_EQ(DecideThrottle(p, true, 1950, 2000).be_budget_milli, 100);
  // Falling to 500m (25 %) keeps it engaged (release is under 20 %) ...
  EXPECT_TRUE(DecideThrottle(p, true, 500, 2000).engaged);
  // ... and 300m (15 %) lifts it.
  auto lifted = DecideThrottle(p, true, 300, 2000);
  EXPECT_FALSE(lifted.engaged);
  EXPECT_EQ(lifted.be_budget_milli, -1);
}

TEST(AgentThrottle, QuotaPerPod) {
  // 600m over 3 pods with a 100 ms period: 20 ms each.
  EXPECT_EQ(QuotaPerPod(600, 3, 100000), 20000);
  EXPECT_EQ(QuotaPerPod(1, 1, 100000), 1000);  // the kernel's minimum
}

// The period's report: both figures together, the one not due keeping its
// last value; nothing when neither is due.
TEST(AgentReport, BothFiguresGoTogether) {
  OversoldPolicy p;
  p.cpu_report = {30, 10, 100};
  p.memory_report = {30, 10, 64};
  LastOversoldReport last;
  // 8 cores requested, peak 3 -> 4200m; 16384 bytes requested, peak 6144 -> 8602.
  OnlineDemand d{8000, 3000, 16384, 6144};
  auto first = OversoldReportDue(p, last, d, 0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->cpu_milli, 4200);
  EXPECT_EQ(first->memory_bytes, 16384 - 6144 - 1638);
  last.Record(*first, 0);
  EXPECT_FALSE(OversoldReportDue(p, last, d, 100).has_value());  // nothing moved
  // CPU peak 5 cores -> 2200m (material); memory unchanged keeps its figure.
  d.cpu_peak_milli = 5000;
  EXPECT_FALSE(OversoldReportDue(p, last, d, 10).has_value());  // too soon
  auto second = OversoldReportDue(p, last, d, 100);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->cpu_milli, 2200);
  EXPECT_EQ(second->memory_bytes, first->memory_bytes);
}

// Pods already leaving count as freed before the watermark test and are not
// picked again.
TEST(AgentEviction, LeavingPodsCountAsFreed) {
  EvictionCandidate gone = Be("ns/gone", 0, 300, 3000);
  gone.leaving = true;
  // 9000m of 10000m, but 3000m is leaving: 6000m is below the 80 % watermark.
  EXPECT_TRUE(PickEvictionVictims({gone, Be("ns/a", 0, 100, 2000)}, 9000, 10000, {80, 30}).empty());
  // 9500m - 3000m = 6500m: still above 60 %; "ns/a" goes, "ns/gone" is not picked again.
  auto v = PickEvictionVictims({gone, Be("ns/a", 0, 100, 2000)}, 9500, 10000, {60, 30});
  EXPECT_EQ(v, std::vector<std::string>{"ns/a"});
}

}  // namespace
}  // namespace basalt::agent
