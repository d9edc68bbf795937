// Kubernetes quantity parsing and canonical formatting (api/quantity.h).
//
// Expected values follow k8s.io/apimachinery's resource.Quantity: the grammar,
// suffix table and rounding of Value()/MilliValue() (away from zero), and the
// canonical String() of DecimalSI milli-quantities and BinarySI byte quantities.
#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace basalt {
namespace {

int64_t Units(const std::string& text) {
  Result<int64_t> r = ParseQuantityUnits(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : -424242;
}

int64_t Milli(const std::string& text) {
  Result<int64_t> r = ParseQuantityMilli(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : -424242;
}

std::string UnitsError(const std::string& text) {
  Result<int64_t> r = ParseQuantityUnits(text);
  EXPECT_FALSE(r.ok()) << "\"" << text << "\" parsed as " << (r.ok() ? *r : 0);
  return r.ok() ? "" : r.status().message();
}

// ---- numbers and suffixes ----

// A bare integer is whole units; milli multiplies by 1000.
TEST(QuantityTest, PlainIntegerInUnitsAndMilli) {
  EXPECT_EQ(Units("2"), 2);
  EXPECT_EQ(Milli("2"), 2000);
  EXPECT_EQ(Units("123456789"), 123456789);
}

// Every decimal SI suffix scales by its power of ten (n u m "" k M G T P E).
TEST(QuantityTest, EveryDecimalSuffix) {
  EXPECT_EQ(Milli("7000000n"), 7);  // 7e6 * 1e-9 = 7e-3 units
  EXPECT_EQ(Milli("7000u"), 7);
  EXPECT_EQ(Milli("7m"), 7);
  EXPECT_EQ(Milli("7"), 7000);
  EXPECT_EQ(Units("7k"), 7000);
  EXPECT_EQ(Units("7M"), 7000000);
  EXPECT_EQ(Units("7G"), 7000000000);
  EXPECT_EQ(Units("7T"), 7000000000000);
  EXPECT_EQ(Units("7P"), 7000000000000000);
  EXPECT_EQ(Units("7E"), 7000000000000000000);
}

// Every binary SI suffix scales by its power of 1024 (Ki Mi Gi Ti Pi Ei).
TEST(QuantityTest, EveryBinarySuffix) {
  EXPECT_EQ(Units("3Ki"), 3LL << 10);
  EXPECT_EQ(Units("3Mi"), 3LL << 20);
  EXPECT_EQ(Units("3Gi"), 3LL << 30);
  EXPECT_EQ(Units("3Ti"), 3LL << 40);
  EXPECT_EQ(Units("3Pi"), 3LL << 50);
  EXPECT_EQ(Units("3Ei"), 3LL << 60);
  EXPECT_EQ(Milli("1Ki"), 1024000);
}

// A decimal exponent takes either case and an optional sign; "E" followed by
// digits is an exponent, a lone "E" is exa.
TEST(QuantityTest, DecimalExponents) {
  EXPECT_EQ(Units("1e3"), 1000);
  EXPECT_EQ(Units("1E3"), 1000);
  EXPECT_EQ(Units("1e+3"), 1000);
  EXPECT_EQ(Units("1.5e2"), 150);
  EXPECT_EQ(Milli("12e-1"), 1200);
  EXPECT_EQ(Milli("1E-3"), 1);
  EXPECT_EQ(Units("1E"), 1000000000000000000);
  EXPECT_EQ(Units("1e03"), 1000);
}

// The decimal point may lead or trail (".5", "5." and even "1.G" are Kubernetes
// quantities).
TEST(QuantityTest, DecimalPointForms) {
  EXPECT_EQ(Milli(".5"), 500);
  EXPECT_EQ(Units("5."), 5);
  EXPECT_EQ(Units("1.G"), 1000000000);
  EXPECT_EQ(Milli(".001"), 1);
  EXPECT_EQ(Milli("0.0005k"), 500);
  EXPECT_EQ(Units("100.035k"), 100035);
}

// Leading zeros and trailing fractional zeros change nothing.
TEST(QuantityTest, LeadingAndTrailingZeros) {
  EXPECT_EQ(Units("007"), 7);
  EXPECT_EQ(Milli("0.50000"), 500);
  EXPECT_EQ(Milli("000.00500"), 5);
}

// Every spelling of zero is zero, whatever the suffix or exponent.
TEST(QuantityTest, ZeroForms) {
  for (const char* z : {"0", "0m", "0Ki", "0Ei", "-0", "+0", "0.000", "0e5", "0e-5", "0E"}) {
    EXPECT_EQ(Units(z), 0) << z;
    EXPECT_EQ(Milli(z), 0) << z;
  }
}

// ---- rounding ----

// A fraction of the target unit rounds up, as Value()/MilliValue() do.
TEST(QuantityTest, FractionsRoundUp) {
  EXPECT_EQ(Milli("0.1m"), 1);
  EXPECT_EQ(Units("1.5"), 2);
  EXPECT_EQ(Units("100m"), 1);
  EXPECT_EQ(Milli("1.0001"), 1001);  // 1000.1 milli
  EXPECT_EQ(Units("1n"), 1);
  EXPECT_EQ(Units("0.000000000001Ki"), 1);  // 1.024e-9 units
}

// An exact value is not rounded.
TEST(QuantityTest, ExactValuesAreNotRounded) {
  EXPECT_EQ(Milli("1.5"), 1500);
  EXPECT_EQ(Milli("1.001"), 1001);
  EXPECT_EQ(Units("0.5Mi"), 524288);
  EXPECT_EQ(Units("0.5Ki"), 512);
}

// Fractional binary quantities are exact products rounded up:
// 100.035Ki = 102435.84 bytes -> 102436; 0.05Gi = 53687091.2 -> 53687092.
TEST(QuantityTest, FractionalBinaryQuantities) {
  EXPECT_EQ(Units("100.035Ki"), 102436);
  EXPECT_EQ(Units("0.05Gi"), 53687092);
  EXPECT_EQ(Units("1.5Gi"), 1610612736);
}

// A non-zero digit far behind the point still rounds up: the parser keeps every
// digit (an earlier version dropped digits past the 30th and returned 1 here).
TEST(QuantityTest, LongMantissaStaysExact) {
  EXPECT_EQ(Units("1.000000000000000000000000000000000001"), 2);
  EXPECT_EQ(Units("2.000000000000000000000000000000000000"), 2);
  EXPECT_EQ(Milli("0.00000000000000000000000000000000000000001"), 1);
}

// A long fraction on a binary quantity is not mistaken for an overflow (an
// earlier version multiplied the 30-digit mantissa before dividing).
TEST(QuantityTest, LongFractionWithBinarySuffix) {
  EXPECT_EQ(Units("1.00000000000000000000000000001Ki"), 1025);
  EXPECT_EQ(Units("1.000000000000000000000000000000Ki"), 1024);
}

// Very large negative exponents leave a tiny positive value: 1 unit.
TEST(QuantityTest, HugeNegativeExponent) {
  EXPECT_EQ(Units("1e-100"), 1);
  EXPECT_EQ(Milli("5e-999999999999"), 1);
}

// Negative quantities round away from zero, like Kubernetes' Value().
TEST(QuantityTest, NegativeValues) {
  EXPECT_EQ(Units("-1"), -1);
  EXPECT_EQ(Units("-1.5"), -2);
  EXPECT_EQ(Milli("-100m"), -100);
  EXPECT_EQ(Units("-1Ki"), -1024);
  EXPECT_EQ(Units("+5"), 5);
}

// ---- range ----

// int64's largest value parses; one more does not.
TEST(QuantityTest, Int64BoundaryInUnits) {
  EXPECT_EQ(Units("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Units("-9223372036854775807"), -INT64_MAX);
  EXPECT_NE(UnitsError("9223372036854775808").find("out of range"), std::string::npos);
}

// The milli range is 1000 times smaller: 9223372036854775.807 is the largest.
TEST(QuantityTest, Int64BoundaryInMilli) {
  EXPECT_EQ(Milli("9223372036854775.807"), INT64_MAX);
  Result<int64_t> r = ParseQuantityMilli("9223372036854776");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of range (the value in milli-units"), std::string::npos);
}

// A fraction that rounds up past int64 max is out of range too.
TEST(QuantityTest, RoundingUpPastTheLimit) {
  EXPECT_FALSE(ParseQuantityUnits("9223372036854775807.1").ok());
}

// 8Ei (2^63) is out of range; Kubernetes silently caps it, basalt refuses it.
TEST(QuantityTest, BinaryOverflowIsAnError) {
  EXPECT_EQ(Units("7Ei"), 7LL << 60);
  EXPECT_NE(UnitsError("8Ei").find("invalid quantity \"8Ei\": out of range"), std::string::npos);
  EXPECT_FALSE(ParseQuantityUnits("9223372036854775807Ki").ok());
}

// Decimal exponents past int64 are errors, whatever the mantissa's length.
TEST(QuantityTest, DecimalOverflowIsAnError) {
  EXPECT_EQ(Units("1e18"), 1000000000000000000);
  EXPECT_FALSE(ParseQuantityUnits("1e19").ok());
  EXPECT_FALSE(ParseQuantityUnits("1e999999999999999999999").ok());
  EXPECT_FALSE(ParseQuantityUnits("1" + std::string(40, '0')).ok());
  EXPECT_FALSE(ParseQuantityMilli("10P").ok());  // 1e16 units = 1e19 milli
}

// A thousand digits followed by a large negative exponent is still exact.
TEST(QuantityTest, ManyDigitsWithNegativeExponent) {
  EXPECT_EQ(Units("1" + std::string(1000, '0') + "e-1000"), 1);
  EXPECT_EQ(Units("3" + std::string(999, '0') + "1e-1000"), 4);  // 3.000...01 -> 4
}

// ---- garbage ----

// Malformed quantities are errors that quote the input and say what is wrong.
TEST(QuantityTest, GarbageIsRejectedWithAReason) {
  struct Case {
    const char* text;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"", "empty"},
      {"abc", "expected a number"},
      {"--1", "expected a number"},
      {"+-1", "expected a number"},
      {".", "expected a number"},
      {"-", "expected a number"},
      {"Ki", "expected a number"},
      {"m", "expected a number"},
      {"e3", "expected a number"},
      {"1.2.3", "more than one decimal point"},
      {"1.1.M", "more than one decimal point"},
      {"1 Gi", "whitespace"},
      {" 1", "expected a number"},
      {"1 ", "whitespace"},
      {"1\t", "whitespace"},
      {"1Kb", "unknown suffix \"Kb\""},
      {"1KI", "unknown suffix \"KI\""},
      {"1ki", "unknown suffix \"ki\""},
      {"1K", "unknown suffix \"K\""},
      {"1i", "unknown suffix \"i\""},
      {"0.1mi", "unknown suffix \"mi\""},
      {"0.1am", "unknown suffix \"am\""},
      {"1e", "unknown suffix \"e\""},
      {"1e+", "unknown suffix \"e+\""},
      {"-3.01e-", "unknown suffix \"e-\""},
      {"1e1.5", "unknown suffix \"e1.5\""},
      {"1+1.0M", "unknown suffix \"+1.0M\""},
      {"0x10", "unknown suffix \"x10\""},
      {"1_000", "unknown suffix \"_000\""},
      {"1Kie3", "unknown suffix \"Kie3\""},
      {"\xef\xbc\x91", "expected a number"},  // fullwidth digit one
  };
  for (const Case& c : cases) {
    std::string msg = UnitsError(c.text);
    EXPECT_NE(msg.find("invalid quantity \"" + std::string(c.text) + "\""), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.reason), std::string::npos) << c.text << " -> " << msg;
    EXPECT_FALSE(ParseQuantityMilli(c.text).ok()) << c.text;
  }
}

// The unknown-suffix message lists the suffixes that exist.
TEST(QuantityTest, UnknownSuffixListsTheKnownOnes) {
  EXPECT_NE(UnitsError("5GB").find(
                "(want Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent"),
            std::string::npos);
}

// ---- canonical formatting ----

// Milli values print as Kubernetes prints DecimalSI quantities.
TEST(QuantityTest, FormatMilliDecimalIsCanonical) {
  EXPECT_EQ(FormatMilliDecimal(0), "0");
  EXPECT_EQ(FormatMilliDecimal(1), "1m");
  EXPECT_EQ(FormatMilliDecimal(500), "500m");
  EXPECT_EQ(FormatMilliDecimal(1500), "1500m");
  EXPECT_EQ(FormatMilliDecimal(2000), "2");
  EXPECT_EQ(FormatMilliDecimal(1000000), "1k");    // 1000 units
  EXPECT_EQ(FormatMilliDecimal(1500000), "1500");  // no fractional digits: 1.5k -> 1500
  EXPECT_EQ(FormatMilliDecimal(300000000000), "300M");
  EXPECT_EQ(FormatMilliDecimal(-1500), "-1500m");
  EXPECT_EQ(FormatMilliDecimal(-2000), "-2");
  EXPECT_EQ(FormatMilliDecimal(INT64_MAX), "9223372036854775807m");
}

// Byte values print as Kubernetes prints BinarySI quantities: the largest binary
// suffix leaving an integer, and decimal suffixes strictly between -1024 and 1024.
TEST(QuantityTest, FormatBinaryBytesIsCanonical) {
  EXPECT_EQ(FormatBinaryBytes(0), "0");
  EXPECT_EQ(FormatBinaryBytes(1), "1");
  EXPECT_EQ(FormatBinaryBytes(1000), "1k");
  EXPECT_EQ(FormatBinaryBytes(1023), "1023");
  EXPECT_EQ(FormatBinaryBytes(1024), "1Ki");
  EXPECT_EQ(FormatBinaryBytes(1025), "1025");
  EXPECT_EQ(FormatBinaryBytes(1536), "1536");
  EXPECT_EQ(FormatBinaryBytes(2000), "2000");  // >= 1024: no decimal suffix
  EXPECT_EQ(FormatBinaryBytes(6 * 1024), "6Ki");
  EXPECT_EQ(FormatBinaryBytes(300LL << 20), "300Mi");
  EXPECT_EQ(FormatBinaryBytes(1LL << 30), "1Gi");
  EXPECT_EQ(FormatBinaryBytes(1610612736), "1536Mi");  // 1.5Gi
  EXPECT_EQ(FormatBinaryBytes(1001LL << 30), "1001Gi");
  EXPECT_EQ(FormatBinaryBytes(1LL << 40), "1Ti");
  EXPECT_EQ(FormatBinaryBytes(1LL << 60), "1Ei");
  EXPECT_EQ(FormatBinaryBytes(-1024), "-1Ki");
  EXPECT_EQ(FormatBinaryBytes(-1000), "-1k");
  EXPECT_EQ(FormatBinaryBytes(INT64_MIN), "-8Ei");
}

// Formatting then parsing gives the value back.
TEST(QuantityTest, FormatThenParseRoundTrips) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{1500},
                    int64_t{123456789}, int64_t{1} << 40, INT64_MAX, -int64_t{1500}}) {
    EXPECT_EQ(Milli(FormatMilliDecimal(v)), v) << FormatMilliDecimal(v);
    EXPECT_EQ(Units(FormatBinaryBytes(v)), v) << FormatBinaryBytes(v);
  }
}

}  // namespace
}  // namespace basalt
