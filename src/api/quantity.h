// Kubernetes quantity parsing, exact.
//
// Grammar (k8s.io/apimachinery resource.Quantity): an optional sign, a decimal
// number, then one suffix: binary (Ki Mi Gi Ti Pi Ei), decimal (n u m "" k M G T P E)
// or a decimal exponent (e3, E-2). Results are exact integers; a fractional
// result rounds up, as Kubernetes' Value()/MilliValue() do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The quantity in whole units, rounded up ("1.5" -> 2, "100m" -> 1).
Result<int64_t> ParseQuantityUnits(std::string_view text);
// The quantity in thousandths, rounded up ("100m" -> 100, "2" -> 2000, "1Ki" -> 1024000).
Result<int64_t> ParseQuantityMilli(std::string_view text);

// Canonical strings, as Kubernetes prints them.
std::string FormatMilliDecimal(int64_t milli);  // 1500 -> "1500m", 2000 -> "2", 0 -> "0"
std::string FormatBinaryBytes(int64_t bytes);   // 1073741824 -> "1Gi", 1500 -> "1500"

}  // namespace basalt
