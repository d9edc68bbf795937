// Go's `time.ParseDuration`, which Volcano uses for every duration it reads
// (plugin arguments and annotations such as `sla-waiting-time` and the
// rescheduling `interval`, vcjob policy timeouts) and which `basalt serve
// --period` takes: "300ms", "-1.5h", "2h45m", "1h2m3s4ms5us6ns". Units ns, us, µs,
// μs, ms, s, m, h; a sign and decimal fractions are allowed; "0" alone needs
// no unit. The result is in nanoseconds, as Go's Duration; a value beyond
// int64 nanoseconds (about 292 years) is an error, as in Go.
#pragma once

#include <cstdint>
#include <string>

#include "api/status.h"

namespace basalt {

// `what` names the value in the message, e.g. "plugin sla: arguments.sla-waiting-time":
//   "<what>: invalid duration \"5 minutes\" (want a Go duration such as 90s, 5m or 1h30m)".
Result<int64_t> ParseGoDuration(const std::string& text, const std::string& what);

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;

// Whole seconds as Go's Duration.String() writes them: "0s", "45s", "5m0s",
// "1h30m0s", "-2m5s" (Volcano's messages quote durations so).
std::string GoDurationText(int64_t seconds);

}  // namespace basalt
