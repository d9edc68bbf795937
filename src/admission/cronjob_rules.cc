#include "admission/cronjob_rules.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "api/cron_schedule.h"
#include "api/text.h"

namespace basalt {
namespace {

constexpr size_t kMaxTotalName = 63;
constexpr size_t kJobNameSuffix = 11;  // "-" and up to ten digits of minutes
constexpr size_t kMaxPartLength = 14;

bool ValidZonePart(const std::string& part) {
  if (part.empty() || part.size() > kMaxPartLength || part == "." || part == ".." ||
      part[0] == '-') {
    return false;
  }
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
           c == '+';
  });
}

bool EqualsIgnoringCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

void ValidateCronJob(const CronJob& cj, std::vector<AdmissionProblem>* out) {
  auto add = [&](std::string field, std::string message) {
    out->push_back(
        {"CronJob " + cj.meta.Key(), cj.meta.source, std::move(field), std::move(message)});
  };
  if (cj.schedule.empty()) {
    add("spec.schedule", "schedule is required, but got empty");
  } else if (cj.schedule.find("TZ") != std::string::npos) {
    add("spec.schedule",
        "schedule should not contain TZ or CRON_TZ, TZ should only be set in the timeZone field");
  } else if (!ParseCronSchedule(cj.schedule).ok()) {
    add("spec.schedule", "schedule is not a valid cron expression");
  }
  if (cj.time_zone) {
    const std::string& tz = *cj.time_zone;
    if (tz.empty()) {
      add("spec.timeZone", "timeZone must be nil or non-empty string, got empty string");
    } else {
      for (const std::string& part : Split(tz, '/')) {
        if (!ValidZonePart(part)) add("spec.timeZone", "unknown timeZone");
      }
      if (EqualsIgnoringCase(tz, "Local")) {
        add("spec.timeZone",
            "timeZone can't be Local, and must be defined in https://www.iana.org/time-zones");
      } else if (!TimeZone::Load(tz).ok()) {
        add("spec.timeZone", "invalid timeZone");
      }
    }
  }
  if (cj.meta.name.size() > kMaxTotalName - kJobNameSuffix) {
    add("metadata.name", "cronJob name must be no more than " +
                             std::to_string(kMaxTotalName - kJobNameSuffix) +
                             " characters to accommodate job name suffix (max " +
                             std::to_string(kMaxTotalName) + " total)");
  }
}

}  // namespace basalt
