// Volcano CronJob (batch.volcano.sh/v1alpha1): cron schedules and time zones,
// the decoder, the controller's rules (one reconcile at a time, on an injected
// clock) and the controller's sync over a store on a simulated clock.
#include <gtest/gtest.h>

#include <set>

#include "api/cron_schedule.h"
#include "api/decode.h"
#include "controllers/cronjob_controller.h"
#include "testing.h"

namespace basalt {
namespace {

// 2026-11-28T00:00:00Z, a Saturday.
constexpr int64_t kSat = 1795824000;
constexpr int64_t kMin = 60, kHour = 3600, kDay = 86400;

int64_t Next(const std::string& spec, int64_t after, const std::string& zone = "UTC") {
  auto s = ParseCronSchedule(spec);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.status().message();
  auto z = TimeZone::Load(zone);
  EXPECT_TRUE(z.ok()) << zone;
  std::optional<int64_t> t = NextCronTime(*s, *z, after);
  return t ? *t : -1;
}

TEST(CronScheduleTest, Fields) {
  EXPECT_EQ(FormatRfc3339(kSat, TimeZone()), "2026-11-28T00:00:00Z");
  EXPECT_EQ(Next("*/15 * * * *", kSat), kSat + 15 * kMin);
  EXPECT_EQ(Next("*/15 * * * *", kSat + 1), kSat + 15 * kMin);
  EXPECT_EQ(Next("0 9 * * *", kSat), kSat + 9 * kHour);
  EXPECT_EQ(Next("30 9-17/4 * * *", kSat + 10 * kHour), kSat + 13 * kHour + 30 * kMin);
  // Saturday: the next weekday is Monday.
  EXPECT_EQ(Next("0 9 * * mon-fri", kSat), kSat + 2 * kDay + 9 * kHour);
  EXPECT_EQ(Next("0 0 1 JAN ?", kSat), 1798761600);  // 2027-01-01
  EXPECT_EQ(Next("@hourly", kSat), kSat + kHour);
  EXPECT_EQ(Next("@weekly", kSat), kSat + kDay);  // Sunday
  EXPECT_EQ(Next("@every 90m", kSat + 7), kSat + 7 + 90 * kMin);
  EXPECT_EQ(Next("0 0 30 2 *", kSat), -1);  // never
}

// Both day fields restricted: either matches; one starred: both must.
TEST(CronScheduleTest, DayOfMonthOrDayOfWeek) {
  EXPECT_EQ(Next("0 0 1 * mon", kSat), kSat + 2 * kDay);  // Monday Nov 30
  EXPECT_EQ(Next("0 0 * * mon", kSat), kSat + 2 * kDay);
  EXPECT_EQ(Next("0 0 */10 * mon", kSat), kSat + 2 * kDay);  // Monday before the 1st
  EXPECT_EQ(Next("0 0 1 * *", kSat), kSat + 3 * kDay);       // December 1
}

TEST(CronScheduleTest, Errors) {
  struct Case {
    std::string spec, message;
  };
  for (const Case& c :
       std::vector<Case>{{"", "empty spec string"},
                         {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
                         {"60 * * * *", "end of range (60) above maximum (59): 60"},
                         {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
                         {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
                         {"*/0 * * * *", "step of range should be a positive number: */0"},
                         {"* * * * 7", "end of range (7) above maximum (6): 7"},
                         {"@fortnightly", "unrecognized descriptor: @fortnightly"},
                         {"x * * * *", "failed to parse int from x"}}) {
    auto s = ParseCronSchedule(c.spec);
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.status().message(), c.message) << c.spec;
  }
}

// A zone's offset, its daylight-saving change, and unknown zones.
TEST(CronScheduleTest, TimeZones) {
  auto berlin = TimeZone::Load("Europe/Berlin");
  ASSERT_TRUE(berlin.ok()) << berlin.status().message();
  EXPECT_EQ(berlin->OffsetAt(kSat), 3600);               // CET in November
  EXPECT_EQ(berlin->OffsetAt(kSat - 150 * kDay), 7200);  // CEST in July
  EXPECT_EQ(Next("0 9 * * *", kSat, "Europe/Berlin"), kSat + 8 * kHour);
  EXPECT_EQ(FormatRfc3339(kSat + 8 * kHour, *berlin), "2026-11-28T09:00:00+01:00");
  auto ny = TimeZone::Load("America/New_York");
  ASSERT_TRUE(ny.ok());
  EXPECT_EQ(FormatRfc3339(kSat, *ny), "2026-11-27T19:00:00-05:00");
  for (const char* bad : {"Mars/Olympus", "../etc/passwd", "Local", "/etc/localtime"}) {
    auto z = TimeZone::Load(bad);
    ASSERT_FALSE(z.ok()) << bad;
    EXPECT_EQ(z.status().message(), std::string("unknown time zone ") + bad);
  }
}

// ---- the controller, one reconcile at a time ----

CronJob MakeCronJob(const std::string& schedule, const std::string& policy = "Allow") {
  CronJob cj;
  cj.meta.name = "cj";
  cj.meta.namespace_ = "ns";
  cj.meta.uid = "u-cj";
  cj.meta.creation_timestamp = kSat;
  cj.schedule = schedule;
  cj.concurrency_policy = policy;
  return cj;
}

CronJobChild Child(const std::string& name, const std::string& phase, int64_t created,
                   int64_t finished = 0) {
  return {name, "u-" + name, phase, created, finished, true};
}

TEST(CronJobReconcileTest, CreatesTheJobDueAndRecordsIt) {
  CronJob cj = MakeCronJob("*/10 * * * *");
  CronJobActions a = ReconcileCronJob(cj, {}, kSat + 5 * kMin);
  EXPECT_FALSE(a.create_for);  // nothing due yet
  a = ReconcileCronJob(cj, {}, kSat + 10 * kMin + 3);
  ASSERT_TRUE(a.create_for);
  EXPECT_EQ(*a.create_for, kSat + 10 * kMin);
  EXPECT_EQ(CronJobJobName(cj, *a.create_for), "cj-" + std::to_string((kSat + 10 * kMin) / 60));
  ASSERT_EQ(cj.active.size(), 1u);
  EXPECT_EQ(cj.active[0].name, CronJobJobName(cj, kSat + 10 * kMin));
  EXPECT_EQ(cj.last_schedule_time, kSat + 10 * kMin);
  EXPECT_TRUE(a.status_changed);
  // The same time is not made twice.
  a = ReconcileCronJob(cj, {Child(cj.active[0].name, "Running", kSat + 10 * kMin)},
                       kSat + 15 * kMin);
  EXPECT_FALSE(a.create_for);
  EXPECT_FALSE(a.status_changed);
}

// Many missed times: only the most recent is made.
TEST(CronJobReconcileTest, OnlyTheMostRecentMissedTime) {
  CronJob cj = MakeCronJob("*/10 * * * *");
  CronJobActions a = ReconcileCronJob(cj, {}, kSat + 5 * kHour + 25 * kMin);
  ASSERT_TRUE(a.create_for);
  EXPECT_EQ(*a.create_for, kSat + 5 * kHour + 20 * kMin);
}

// startingDeadlineSeconds: a time older than the deadline is not made.
TEST(CronJobReconcileTest, StartingDeadline) {
  CronJob cj = MakeCronJob("0 * * * *");
  cj.starting_deadline_seconds = 300;
  EXPECT_FALSE(ReconcileCronJob(cj, {}, kSat + kHour + 10 * kMin).create_for);
  CronJobActions a = ReconcileCronJob(cj, {}, kSat + 2 * kHour + 4 * kMin);
  ASSERT_TRUE(a.create_for);
  EXPECT_EQ(*a.create_for, kSat + 2 * kHour);
}

TEST(CronJobReconcileTest, SuspendMakesNothingButStillCleansUp) {
  CronJob cj = MakeCronJob("* * * * *");
  cj.suspend = true;
  cj.active = {{"cj-1", "ns", "u-cj-1"}};
  CronJobActions a =
      ReconcileCronJob(cj, {Child("cj-1", "Completed", kSat, kSat + 30)}, kSat + kHour);
  EXPECT_FALSE(a.create_for);
  EXPECT_TRUE(cj.active.empty());
  EXPECT_EQ(cj.last_successful_time, kSat + 30);
}

TEST(CronJobReconcileTest, ForbidSkipsWhileAJobRuns) {
  CronJob cj = MakeCronJob("*/10 * * * *", "Forbid");
  cj.active = {{"cj-running", "ns", "u-cj-running"}};
  CronJobActions a = ReconcileCronJob(cj, {Child("cj-running", "Running", kSat)}, kSat + 10 * kMin);
  EXPECT_FALSE(a.create_for);
  ASSERT_FALSE(a.events.empty());
  EXPECT_EQ(a.events.back().reason, "ForbidConcurrent");
  // Allow starts another beside it.
  cj.concurrency_policy = "Allow";
  a = ReconcileCronJob(cj, {Child("cj-running", "Running", kSat)}, kSat + 10 * kMin);
  EXPECT_TRUE(a.create_for);
  EXPECT_EQ(cj.active.size(), 2u);
}

TEST(CronJobReconcileTest, ReplaceDeletesTheActiveJobs) {
  CronJob cj = MakeCronJob("*/10 * * * *", "Replace");
  cj.active = {{"cj-running", "ns", "u-cj-running"}};
  CronJobActions a = ReconcileCronJob(cj, {Child("cj-running", "Running", kSat)}, kSat + 10 * kMin);
  EXPECT_EQ(a.deletes, std::vector<std::string>{"cj-running"});
  ASSERT_TRUE(a.create_for);
  ASSERT_EQ(cj.active.size(), 1u);
  EXPECT_EQ(cj.active[0].name, CronJobJobName(cj, kSat + 10 * kMin));
}

// History limits: the oldest finished jobs beyond each limit are deleted;
// lastSuccessfulTime is the latest Completed job's finish.
TEST(CronJobReconcileTest, HistoryLimits) {
  CronJob cj = MakeCronJob("0 0 1 1 *");
  cj.successful_jobs_history_limit = 2;
  cj.failed_jobs_history_limit = 0;
  std::vector<CronJobChild> children = {Child("cj-3", "Completed", kSat + 3, kSat + 30),
                                        Child("cj-1", "Completed", kSat + 1, kSat + 10),
                                        Child("cj-2", "Completed", kSat + 2, kSat + 20),
                                        Child("cj-f", "Failed", kSat + 4, kSat + 40),
                                        Child("cj-t", "Terminated", kSat + 5, kSat + 50),
                                        Child("cj-r", "Running", kSat + 6)};
  cj.active = {{"cj-3", "ns", "u-cj-3"}, {"cj-r", "ns", "u-cj-r"}, {"cj-gone", "ns", "u-cj-gone"}};
  CronJobActions a = ReconcileCronJob(cj, children, kSat + kHour);
  EXPECT_EQ(a.deletes, (std::vector<std::string>{"cj-1", "cj-f"}));
  EXPECT_EQ(cj.last_successful_time, kSat + 30);
  ASSERT_EQ(cj.active.size(), 1u);  // cj-3 finished, cj-gone no longer exists
  EXPECT_EQ(cj.active[0].name, "cj-r");
  // Unset limits keep everything.
  CronJob keep = MakeCronJob("0 0 1 1 *");
  keep.successful_jobs_history_limit.reset();
  keep.failed_jobs_history_limit.reset();
  EXPECT_TRUE(ReconcileCronJob(keep, children, kSat + kHour).deletes.empty());
}

// A job of the due name that the CronJob does not own is left alone.
TEST(CronJobReconcileTest, ForeignJobIsNotAdopted) {
  CronJob cj = MakeCronJob("*/10 * * * *");
  CronJobChild foreign = Child(CronJobJobName(cj, kSat + 10 * kMin), "Running", kSat);
  foreign.owned = false;
  CronJobActions a = ReconcileCronJob(cj, {foreign}, kSat + 10 * kMin);
  EXPECT_FALSE(a.create_for);
  EXPECT_TRUE(cj.active.empty());
  EXPECT_EQ(a.events.back().reason, "ForeignJob");
}

TEST(CronJobReconcileTest, TimeZoneAndBadSchedule) {
  CronJob cj = MakeCronJob("0 9 * * *");
  cj.time_zone = "Europe/Berlin";
  CronJobActions a = ReconcileCronJob(cj, {}, kSat + 8 * kHour + 1);
  ASSERT_TRUE(a.create_for);
  EXPECT_EQ(*a.create_for, kSat + 8 * kHour);
  VcJob job = JobFromCronJob(cj, *a.create_for, kSat + 8 * kHour + 1);
  EXPECT_EQ(job.meta.annotations.at(kCronJobScheduledTimestamp), "2026-11-28T09:00:00+01:00");
  EXPECT_EQ(job.meta.owner_references.at(0).kind, "CronJob");
  EXPECT_TRUE(job.meta.owner_references.at(0).controller);
  CronJob bad = MakeCronJob("61 * * * *");
  a = ReconcileCronJob(bad, {}, kSat + kDay);
  EXPECT_FALSE(a.create_for);
  EXPECT_EQ(a.events.back().reason, "InvalidSchedule");
}

// ---- decoding and the cycle runner ----

const char* kCronYaml = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: tick, namespace: default}
spec:
  schedule: "*/2 * * * *"
  concurrencyPolicy: Forbid
  successfulJobsHistoryLimit: 1
  jobTemplate:
    metadata: {labels: {team: a}}
    spec:
      schedulerName: volcano
      tasks:
      - name: t
        replicas: 1
        template:
          metadata: {annotations: {basalt.io/finish-after-steps: "1"}}
          spec:
            containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)";

TEST(CronJobDecodeTest, SpecAndDefaults) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(kCronYaml, "c.yaml", &objects));
  ASSERT_EQ(objects.cron_jobs.size(), 1u);
  const CronJob& cj = objects.cron_jobs[0];
  EXPECT_EQ(cj.schedule, "*/2 * * * *");
  EXPECT_EQ(cj.concurrency_policy, "Forbid");
  EXPECT_EQ(cj.successful_jobs_history_limit, 1);
  EXPECT_EQ(cj.failed_jobs_history_limit, 1);  // the CRD's default
  EXPECT_EQ(cj.job_template.meta.labels.at("team"), "a");
  ASSERT_EQ(cj.job_template.tasks.size(), 1u);
  ClusterObjects bad;
  Status st =
      DecodeText(std::string(kCronYaml).replace(std::string(kCronYaml).find("Forbid"), 6, "Queue"),
                 "c.yaml", &bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.concurrencyPolicy: unknown policy \"Queue\""),
            std::string::npos)
      << st.message();
}

// On a simulated clock (0 = the epoch), as the cycle runner drives it: a job
// every two minutes, never two at once (Forbid), one Completed job kept.
TEST(CronJobControllerTest, RunsOnTheSimulatedClock) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(kCronYaml, "c.yaml", &objects));
  objects.cron_jobs[0].meta.creation_timestamp = 0;
  ClusterState state;
  ASSERT_OK(state.AddAll(std::move(objects)));
  CronJobController controller;
  std::set<std::string> seen;
  for (int64_t now = 0; now <= 10 * kMin; now += 30) {
    controller.Sync(state, now);
    int live = 0;
    for (auto& [key, job] : state.mutable_jobs()) {
      seen.insert(job.meta.name);
      if (job.phase != "Completed") ++live;
      // The world: a job completes a minute after it was made.
      if (job.phase != "Completed" && now - job.meta.creation_timestamp >= kMin) {
        job.phase = "Completed";
        job.last_transition_time = now;
      }
    }
    EXPECT_LE(live, 1);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"tick-2", "tick-4", "tick-6", "tick-8", "tick-10"}));
  const CronJob& cj = state.cron_jobs().at("default/tick");
  EXPECT_EQ(cj.last_schedule_time, 10 * kMin);
  EXPECT_EQ(state.jobs().size(), 2u);  // the running one and one Completed
}

}  // namespace
}  // namespace basalt
