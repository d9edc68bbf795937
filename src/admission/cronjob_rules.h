// The CronJob rules of admission (admission/admission.h), as Volcano v1.15.1's
// CronJob webhook makes them, on CREATE and UPDATE alike:
//
//   spec.schedule   required; no TZ= or CRON_TZ= in it (the zone goes in
//                   spec.timeZone); a valid cron expression (api/cron_schedule.h)
//   spec.timeZone   when given: not empty, each `/`-separated part of 1-14
//                   letters, digits or `.-_+` (not `.`, `..`, nor starting
//                   with `-`), not Local, a zone the machine's database knows
//   metadata.name   at most 52 characters (the jobs add `-<minutes>`)
//
// The messages after the field path are Volcano's.
#pragma once

#include <vector>

#include "admission/admission.h"

namespace basalt {

void ValidateCronJob(const CronJob& cj, std::vector<AdmissionProblem>* out);

}  // namespace basalt
