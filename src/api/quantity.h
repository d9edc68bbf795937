// Kubernetes quantity parsing, exact.
//
// Grammar (k8s.io/apimachinery resource.Quantity):
//
//   quantity ::= [sign] number [suffix]
//   number   ::= digits | digits "." digits | digits "." | "." digits
//   suffix   ::= binary (Ki Mi Gi Ti Pi Ei)
//              | decimal (n u m k M G T P E)
//              | ("e" | "E") [sign] digits        (a decimal exponent: "1e3", "5E-2")
//
// Results are exact integers computed without floating point, however many
// digits the input has. A fractional result rounds away from zero ("1.5" -> 2
// units, "0.1m" -> 1 milli-unit), as Kubernetes' `Value()` / `MilliValue()` do.
//
// Divergences from Kubernetes, all deliberate:
//  * A number needs at least one digit. Kubernetes' scanner accepts ".", "-",
//    "+" and a bare suffix ("Ki", "m", "e3") as zero; here they are errors, since
//    such a value in a manifest is a typo, not a request for nothing.
//  * A value whose result does not fit a signed 64-bit integer is an error.
//    Kubernetes silently caps binary quantities at 2^63-1 ("8Ei") and lets
//    `Value()` overflow for decimal ones.
// Whitespace anywhere, a second decimal point, a doubled sign and any other
// suffix (including wrong case such as "1KI" or "1ki") are errors, as in Kubernetes.
// Every error message quotes the input: `invalid quantity "1Kb": unknown suffix "Kb" ...`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The quantity in whole units, rounded away from zero ("1.5" -> 2, "100m" -> 1).
Result<int64_t> ParseQuantityUnits(std::string_view text);
// The quantity in thousandths, rounded away from zero ("100m" -> 100, "2" -> 2000,
// "1Ki" -> 1024000, "0.1m" -> 1).
Result<int64_t> ParseQuantityMilli(std::string_view text);

// Canonical strings, as Kubernetes' `Quantity.String()` prints a DecimalSI
// milli-quantity and a BinarySI byte quantity:
//   FormatMilliDecimal: 0 -> "0", 500 -> "500m", 1500 -> "1500m", 2000 -> "2",
//                       1000000 -> "1k".
//   FormatBinaryBytes:  1024 -> "1Ki", 1536 -> "1536", 1000 -> "1k" (below 1024
//                       Kubernetes switches to decimal suffixes), 1610612736 -> "1536Mi".
std::string FormatMilliDecimal(int64_t milli);
std::string FormatBinaryBytes(int64_t bytes);
// A whole number with the largest decimal suffix that keeps it whole:
// 0 -> "0", 1500 -> "1500", 2000 -> "2k", 3000000 -> "3M".
std::string FormatDecimalUnits(int64_t v);

}  // namespace basalt
