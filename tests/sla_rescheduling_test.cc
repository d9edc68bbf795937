// Go durations (the sla and rescheduling arguments), `basalt schedule --now`,
// and the JobPipelined vote of sla. Ordering, enqueue and the shuffle action
// are covered by tests/scenarios/sla and tests/scenarios/shuffle.
#include <gtest/gtest.h>

#include "api/go_duration.h"
#include "cli/schedule.h"
#include "testing.h"

namespace basalt {
namespace {

constexpr int64_t kSecond = kNanosPerSecond;

int64_t Nanos(const std::string& text) {
  auto r = ParseGoDuration(text, "d");
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

// Go's own examples for time.ParseDuration, and the edges of its grammar.
TEST(GoDurationTest, ParsesWhatGoParses) {
  EXPECT_EQ(Nanos("0"), 0);
  EXPECT_EQ(Nanos("90s"), 90 * kSecond);
  EXPECT_EQ(Nanos("1h30m"), 5400 * kSecond);
  EXPECT_EQ(Nanos("300ms"), 300'000'000);
  EXPECT_EQ(Nanos("-1.5h"), -5400 * kSecond);
  EXPECT_EQ(Nanos("2h45m"), 9900 * kSecond);
  EXPECT_EQ(Nanos("1h2m3s4ms5us6ns"), 3723 * kSecond + 4'005'006);
  EXPECT_EQ(Nanos("1.5s"), 1'500'000'000);
  EXPECT_EQ(Nanos(".5m"), 30 * kSecond);
  EXPECT_EQ(Nanos("5.m"), 300 * kSecond);
  EXPECT_EQ(Nanos("1\xC2\xB5s"), 1000);  // micro sign
  EXPECT_EQ(Nanos("1\xCE\xBCs"), 1000);  // Greek mu
  EXPECT_EQ(Nanos("+2m"), 120 * kSecond);
  EXPECT_EQ(Nanos("2562047h47m16.854775807s"), INT64_MAX);
}

TEST(GoDurationTest, RejectsWhatGoRejects) {
  for (const char* bad : {"", "10", "5 m", "1d", "m", ".s", "-", "1h-5m", "3000000h", "1.5", "1e3s",
                          "9223372036854775808ns"}) {
    auto r = ParseGoDuration(bad, "plugin sla: arguments.sla-waiting-time");
    EXPECT_FALSE(r.ok()) << '"' << bad << '"';
    if (!r.ok()) {
      EXPECT_EQ(r.status().message(),
                std::string("plugin sla: arguments.sla-waiting-time: invalid duration \"") + bad +
                    "\" (want a Go duration such as 90s, 5m or 1h30m)");
    }
  }
}

// Whole seconds written as Go's Duration.String() does (Volcano's "Execute
// action X after 5m0s").
TEST(GoDurationTest, TextIsWhatGoPrints) {
  EXPECT_EQ(GoDurationText(0), "0s");
  EXPECT_EQ(GoDurationText(45), "45s");
  EXPECT_EQ(GoDurationText(60), "1m0s");
  EXPECT_EQ(GoDurationText(300), "5m0s");
  EXPECT_EQ(GoDurationText(3600), "1h0m0s");
  EXPECT_EQ(GoDurationText(5405), "1h30m5s");
  EXPECT_EQ(GoDurationText(-125), "-2m5s");
}

// --now must be RFC 3339 with a zone; the error names the flag.
TEST(ScheduleNowTest, InvalidNowIsAnErrorNamingTheFlag) {
  ScheduleRequest req;
  req.cluster_text =
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: "
      "'10'}}\n";
  req.now = "tomorrow";
  auto out = RunSchedule(req);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(ScheduleExitCode(out.status()), kScheduleExitBadInput);
  EXPECT_NE(out.status().message().find("--now: invalid time \"tomorrow\""), std::string::npos)
      << out.status().message();
}

// The same PodGroup is admitted or not depending only on --now: at 10:59 it
// has waited 59m of its 1h, at 11:00 the full hour (waited >= waiting time).
TEST(ScheduleNowTest, SlaPermitsExactlyAtTheWaitingTime) {
  const std::string conf =
      "actions: \"enqueue\"\n"
      "tiers:\n- plugins:\n  - name: sla\n- plugins:\n  - name: overcommit\n";
  const std::string cluster =
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
      "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
      "metadata: {name: big, namespace: default, creationTimestamp: '2024-05-01T10:00:00Z',"
      " annotations: {sla-waiting-time: 1h}}\n"
      "spec: {minMember: 1, minResources: {cpu: '8'}}\n";
  auto phase_at = [&](const std::string& now) -> std::string {
    ScheduleRequest req;
    req.conf_text = conf;
    req.cluster_text = cluster;
    req.now = now;
    auto out = RunSchedule(req);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) return "";
    return (*out)["cycles"][0]["podgroups"][0]["phase"].get<std::string>();
  };
  // 8 cpu never fits 1 cpu x 1.2: only sla's Permit in tier 1 admits the group.
  EXPECT_EQ(phase_at("2024-05-01T10:59:59Z"), "Pending");
  EXPECT_EQ(phase_at("2024-05-01T11:00:00Z"), "Inqueue");
}

}  // namespace
}  // namespace basalt
