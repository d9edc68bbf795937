// Cron schedules and time zones for the Volcano CronJob
// (batch.volcano.sh/v1alpha1, api/cronjob.h), read as Volcano reads them: the
// standard five-field syntax of its cron library, with its descriptors.
//
//   "*/15 9-17 * * mon-fri"   minute hour day-of-month month day-of-week
//   "0 0 1 jan,jul ?"         names (jan..dec, sun..sat) in any case; ? = *
//   "@hourly" "@daily" "@midnight" "@weekly" "@monthly" "@yearly" "@annually"
//   "@every 90m"              a fixed delay (a Go duration, whole seconds)
//
// Day matching as Volcano's library does it: when both day fields are
// restricted (neither starts with * or ?), a day matches either; otherwise
// both. A step on a star ("*/2") counts as a restriction.
//
// Times are seconds since the Unix epoch (basalt's simulated clock starts
// there). A time zone is read from the machine's IANA database
// (/usr/share/zoneinfo, the files' transition lists); after the last listed
// transition (2037 in Debian's files) its last offset holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace basalt {

struct CronSchedule {
  uint64_t minutes = 0, hours = 0, days_of_month = 0, months = 0, days_of_week = 0;
  bool dom_star = false, dow_star = false;
  int64_t every_seconds = 0;  // "@every": a fixed delay instead of the fields
};

// The library's error text ("expected exactly 5 fields, found 4: [* * * *]",
// "end of range (60) above maximum (59): 60", ...).
Result<CronSchedule> ParseCronSchedule(std::string_view text);

class TimeZone {
 public:
  // "UTC" (or "") needs no file; anything else is a zone file of
  // /usr/share/zoneinfo (or $ZONEINFO). Error: "unknown time zone NAME".
  static Result<TimeZone> Load(const std::string& name);
  // Seconds east of UTC in effect at `utc`.
  int64_t OffsetAt(int64_t utc) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;   // sorted UTC times
  std::vector<int32_t> offset_after_;  // offset from transitions_[i] on
  int32_t offset_before_ = 0;          // before the first transition
};

// The first time after `after` (strictly) that the schedule names, in `zone`;
// nullopt when none comes within five years (e.g. "0 0 30 2 *").
std::optional<int64_t> NextCronTime(const CronSchedule& schedule, const TimeZone& zone,
                                    int64_t after);

// RFC 3339 form of `utc` in `zone` ("2026-11-28T09:00:00+01:00", "...Z" for UTC).
std::string FormatRfc3339(int64_t utc, const TimeZone& zone);

}  // namespace basalt
