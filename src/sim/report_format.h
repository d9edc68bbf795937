// How the reports and the end-of-run tables print numbers people read at a
// glance: ratios as percentages, long durations in hours and minutes,
// simulated instants as day and time of day.
#pragma once

#include <cstdint>
#include <string>

namespace basalt {

// 0.4321 -> "43.2%" (one decimal; "0%" and "100%" without one).
std::string FormatPercent(double ratio);

// A length of time: "42 s" under a minute, "12 min" under an hour,
// "3 h 05 min" beyond (whole minutes, rounded down).
std::string FormatDuration(int64_t seconds);

// A simulated instant (seconds from the start): "d1 00:00" is the start of the
// first day, "d2 14:30" half past two in the afternoon of the second.
std::string FormatSimTime(int64_t seconds);

}  // namespace basalt
