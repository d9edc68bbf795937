// Resource arithmetic and Volcano's comparison modes (api/resource.h).
//
// Notation in comments: {cpu 2, gpu 1} means milli_cpu 2000 and 1000 milli-GPUs;
// "absent" means the scalar is not present at all, which differs from present 0.
#include "api/resource.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace basalt {
namespace {

Resource R(const std::string& text) {
  Result<Resource> r = Resource::Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : Resource();
}

ResourceId Gpu() { return ResourceNames::Intern("nvidia.com/gpu"); }
ResourceId Fpga() { return ResourceNames::Intern("example.com/fpga"); }

// ---- names ----

// cpu, memory and pods have fixed ids; other names are interned once.
TEST(ResourceNamesTest, FixedIdsAndInterning) {
  EXPECT_EQ(ResourceNames::Intern("cpu"), ResourceNames::kCpu);
  EXPECT_EQ(ResourceNames::Intern("memory"), ResourceNames::kMemory);
  EXPECT_EQ(ResourceNames::Intern("pods"), ResourceNames::kPods);
  ResourceId a = ResourceNames::Intern("example.com/interned");
  EXPECT_EQ(ResourceNames::Intern("example.com/interned"), a);
  EXPECT_EQ(ResourceNames::Name(a), "example.com/interned");
  ResourceId found = 0;
  EXPECT_TRUE(ResourceNames::Lookup("example.com/interned", &found));
  EXPECT_EQ(found, a);
  EXPECT_FALSE(ResourceNames::Lookup("example.com/never-interned", &found));
}

// ---- Parse ----

// cpu and scalars are stored in milli-units, memory and pods in units.
TEST(ResourceTest, ParseUsesBasaltUnits) {
  Resource r = R("cpu=2,memory=4Gi,nvidia.com/gpu=1,pods=3");
  EXPECT_EQ(r.milli_cpu(), 2000);
  EXPECT_EQ(r.memory(), 4LL << 30);
  EXPECT_EQ(r.Get(Gpu()), 1000);
  EXPECT_EQ(r.Get(ResourceNames::kPods), 3);
}

// Spaces around items, names and quantities are ignored.
TEST(ResourceTest, ParseIgnoresSpaces) {
  EXPECT_EQ(R(" cpu = 500m , memory=1Gi "), R("cpu=500m,memory=1Gi"));
}

// The empty text is the empty resource.
TEST(ResourceTest, ParseEmpty) {
  Resource r = R("");
  EXPECT_TRUE(r.IsZero());
  EXPECT_TRUE(r.scalars().empty());
}

// Malformed items are errors naming the problem.
TEST(ResourceTest, ParseErrors) {
  auto error = [](const std::string& text) {
    Result<Resource> r = Resource::Parse(text);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(error("cpu").find("lacks '='"), std::string::npos);
  EXPECT_NE(error("cpu=1,,memory=1").find("lacks '='"), std::string::npos);
  EXPECT_NE(error("=1").find("has no name"), std::string::npos);
  EXPECT_NE(error("cpu=1,cpu=2").find("\"cpu\" given twice"), std::string::npos);
  EXPECT_NE(error("cpu=abc").find("cpu: invalid quantity \"abc\""), std::string::npos);
  EXPECT_NE(error("memory=5Ei").find("memory: quantity \"5Ei\" is too large (the limit is 4Ei)"),
            std::string::npos);
}

// ---- presence ----

// cpu and memory always exist; a scalar is present or absent, and present-0
// differs from absent for equality.
TEST(ResourceTest, PresenceOfScalars) {
  Resource r;
  EXPECT_TRUE(r.Has(ResourceNames::kCpu));
  EXPECT_FALSE(r.Has(Gpu()));
  EXPECT_EQ(r.Get(Gpu()), 0);
  r.Set(Gpu(), 0);
  EXPECT_TRUE(r.Has(Gpu()));
  EXPECT_NE(r, Resource());
  r.Erase(Gpu());
  EXPECT_EQ(r, Resource());
}

// Scalars stay sorted by id whatever the insertion order.
TEST(ResourceTest, ScalarsSortedById) {
  Resource a, b;
  a.Set(Fpga(), 1);
  a.Set(Gpu(), 2);
  b.Set(Gpu(), 2);
  b.Set(Fpga(), 1);
  EXPECT_EQ(a, b);
}

// ---- + and - ----

// Addition is per dimension over the union of scalars.
TEST(ResourceTest, AddUnionOfScalars) {
  Resource sum = R("cpu=1,nvidia.com/gpu=1") + R("cpu=500m,memory=1Gi,example.com/fpga=2");
  EXPECT_EQ(sum, R("cpu=1500m,memory=1Gi,nvidia.com/gpu=1,example.com/fpga=2"));
}

// Adding resources with the same dimensions (the fast path) adds values.
TEST(ResourceTest, AddSameDimensions) {
  Resource a = R("cpu=1,nvidia.com/gpu=1,pods=1");
  a += R("cpu=1,nvidia.com/gpu=2,pods=1");
  EXPECT_EQ(a, R("cpu=2,nvidia.com/gpu=3,pods=2"));
}

// Subtraction makes a scalar absent on the left present, and negative.
TEST(ResourceTest, SubtractMakesAbsentScalarNegative) {
  Resource d = R("cpu=2") - R("cpu=500m,nvidia.com/gpu=1");
  EXPECT_EQ(d.milli_cpu(), 1500);
  EXPECT_TRUE(d.Has(Gpu()));
  EXPECT_EQ(d.Get(Gpu()), -1000);
}

// a + b - b == a whenever b's scalars are already present in a.
TEST(ResourceTest, AddThenSubtractRestores) {
  Resource a = R("cpu=3,memory=2Gi,nvidia.com/gpu=2,pods=4");
  Resource b = R("cpu=1,memory=1Gi,nvidia.com/gpu=1,pods=1");
  EXPECT_EQ(a + b - b, a);
}

// Sums saturate at the int64 limits instead of wrapping (overflow policy).
TEST(ResourceTest, ArithmeticSaturates) {
  Resource big;
  big.set_memory(std::numeric_limits<int64_t>::max() - 1);
  big.Set(Gpu(), std::numeric_limits<int64_t>::max());
  Resource sum = big + R("memory=10,nvidia.com/gpu=1");
  EXPECT_EQ(sum.memory(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(sum.Get(Gpu()), std::numeric_limits<int64_t>::max());
  Resource low;
  low.set_milli_cpu(std::numeric_limits<int64_t>::min() + 1);
  EXPECT_EQ((low - R("cpu=1")).milli_cpu(), std::numeric_limits<int64_t>::min());
  // 0 - INT64_MIN does not fit: it saturates to max.
  Resource min_gpu;
  min_gpu.Set(Gpu(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ((Resource() - min_gpu).Get(Gpu()), std::numeric_limits<int64_t>::max());
}

// Three nodes at the per-quantity limit (4Ei each) saturate rather than going negative.
TEST(ResourceTest, SumOfMaximalQuantitiesStaysPositive) {
  Resource node;
  node.set_memory(kMaxResourceValue);
  Resource total = node + node + node;
  EXPECT_EQ(total.memory(), std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(LessEqual(node, total));
}

// ---- LessEqual (absent = 0 on both sides) ----

// cpu and memory compare directly; equal is <=.
TEST(ResourceTest, LessEqualCpuMemory) {
  EXPECT_TRUE(LessEqual(R("cpu=2,memory=1Gi"), R("cpu=2,memory=1Gi")));
  EXPECT_FALSE(LessEqual(R("cpu=2001m"), R("cpu=2,memory=1Gi")));
  EXPECT_FALSE(LessEqual(R("memory=1025Mi"), R("cpu=2,memory=1Gi")));
}

// A scalar absent on the right counts as 0 there.
TEST(ResourceTest, LessEqualAbsentRightIsZero) {
  EXPECT_FALSE(LessEqual(R("nvidia.com/gpu=1"), R("cpu=8")));
  EXPECT_TRUE(LessEqual(R("nvidia.com/gpu=0"), R("cpu=8")));
}

// A scalar absent on the left is not compared, even when negative on the right
// (an over-committed device does not refuse a pod that does not ask for it).
TEST(ResourceTest, LessEqualAbsentLeftNotCompared) {
  EXPECT_TRUE(LessEqual(R("cpu=1"), R("cpu=1,nvidia.com/gpu=4")));
  EXPECT_TRUE(LessEqual(R("cpu=1"), R("cpu=1,nvidia.com/gpu=-1")));
  EXPECT_FALSE(LessEqual(R("nvidia.com/gpu=0"), R("cpu=1,nvidia.com/gpu=-1")));
}

// cpu and memory are always compared: an empty request does not fit a node
// whose idle cpu is negative.
TEST(ResourceTest, LessEqualCpuMemoryAlwaysCompared) {
  EXPECT_FALSE(LessEqual(Resource(), R("cpu=-1,memory=1Gi")));
  EXPECT_FALSE(LessEqual(Resource(), R("cpu=1,memory=-1")));
}

// Every scalar must fit, not just one.
TEST(ResourceTest, LessEqualEveryScalar) {
  EXPECT_TRUE(LessEqual(R("nvidia.com/gpu=1,pods=1"), R("nvidia.com/gpu=1,pods=110")));
  EXPECT_FALSE(LessEqual(R("nvidia.com/gpu=1,pods=1"), R("nvidia.com/gpu=1,pods=0")));
}

// ---- LessEqualUnlimited (absent on the right = unlimited) ----

// A scalar absent on the right never limits.
TEST(ResourceTest, LessEqualUnlimitedAbsentRightPasses) {
  EXPECT_TRUE(LessEqualUnlimited(R("cpu=1,nvidia.com/gpu=100"), R("cpu=1")));
}

// Volcano's oddity: a scalar present on the right but absent on the left fails.
TEST(ResourceTest, LessEqualUnlimitedAbsentLeftFails) {
  EXPECT_FALSE(LessEqualUnlimited(R("cpu=1"), R("cpu=4,nvidia.com/gpu=8")));
  EXPECT_TRUE(LessEqualUnlimited(R("cpu=1,nvidia.com/gpu=0"), R("cpu=4,nvidia.com/gpu=8")));
}

// Scalars present on both sides compare; cpu and memory are never unlimited.
TEST(ResourceTest, LessEqualUnlimitedComparesPresentDimensions) {
  EXPECT_FALSE(LessEqualUnlimited(R("nvidia.com/gpu=9"), R("nvidia.com/gpu=8")));
  EXPECT_FALSE(LessEqualUnlimited(R("cpu=2"), R("cpu=1")));
  EXPECT_FALSE(LessEqualUnlimited(R("memory=1"), R("cpu=8")));  // memory 0 on the right is a limit
}

// ---- LessEqualOnRequested ----

// Only the request's positive dimensions are compared: a cpu-only request is not
// blocked by memory.
TEST(ResourceTest, LessEqualOnRequestedIgnoresUnrequested) {
  Resource used = R("cpu=1,memory=9Gi");
  Resource cap = R("cpu=4,memory=1Gi");
  EXPECT_TRUE(LessEqualOnRequested(used, cap, R("cpu=1")));
  EXPECT_FALSE(LessEqualOnRequested(used, cap, R("cpu=1,memory=1")));
}

// `pods` is never compared, even when requested.
TEST(ResourceTest, LessEqualOnRequestedSkipsPods) {
  EXPECT_TRUE(LessEqualOnRequested(R("pods=50"), R("pods=10"), R("pods=1")));
}

// A requested scalar compares with absent = 0 on either side.
TEST(ResourceTest, LessEqualOnRequestedScalars) {
  Resource req = R("nvidia.com/gpu=1");
  EXPECT_FALSE(LessEqualOnRequested(R("nvidia.com/gpu=1"), R("cpu=100"), req));
  EXPECT_TRUE(LessEqualOnRequested(R("cpu=1"), R("nvidia.com/gpu=2"), req));
  // A zero-valued scalar in the request is not "requested".
  EXPECT_TRUE(
      LessEqualOnRequested(R("nvidia.com/gpu=5"), R("nvidia.com/gpu=1"), R("nvidia.com/gpu=0")));
}

// ---- LessEqualAnyUnlimited ----

// cpu alone fitting is enough.
TEST(ResourceTest, LessEqualAnyCpuSuffices) {
  EXPECT_TRUE(LessEqualAnyUnlimited(R("cpu=1,memory=9Gi"), R("cpu=2,memory=1Gi")));
}

// A scalar absent on the right is unlimited, so it fits.
TEST(ResourceTest, LessEqualAnyAbsentRightScalarFits) {
  EXPECT_TRUE(LessEqualAnyUnlimited(R("cpu=9,memory=9Gi,nvidia.com/gpu=1"), R("cpu=1,memory=1Gi")));
}

// When cpu, memory and every left scalar exceed, the answer is false; a scalar
// only the right has does not help.
TEST(ResourceTest, LessEqualAnyAllExceed) {
  EXPECT_FALSE(LessEqualAnyUnlimited(R("cpu=9,memory=9Gi,nvidia.com/gpu=2"),
                                     R("cpu=1,memory=1Gi,nvidia.com/gpu=1,example.com/fpga=5")));
}

// A present scalar that fits is enough.
TEST(ResourceTest, LessEqualAnyScalarFits) {
  EXPECT_TRUE(LessEqualAnyUnlimited(R("cpu=9,memory=9Gi,nvidia.com/gpu=1"),
                                    R("cpu=1,memory=1Gi,nvidia.com/gpu=1")));
}

// ---- ExceededPart, Min, Max ----

// Per-dimension max(a - b, 0); scalars of `a` absent in `b` count against 0.
TEST(ResourceTest, ExceededPartValues) {
  Resource e = ExceededPart(R("cpu=3,memory=1Gi,nvidia.com/gpu=2,example.com/fpga=1"),
                            R("cpu=1,memory=2Gi,nvidia.com/gpu=1"));
  EXPECT_EQ(e.milli_cpu(), 2000);
  EXPECT_EQ(e.memory(), 0);
  EXPECT_EQ(e.Get(Gpu()), 1000);
  EXPECT_EQ(e.Get(Fpga()), 1000);
}

// A scalar that does not exceed is absent from the result, as in Volcano (an
// earlier version kept it as present 0, which changes a later Unlimited compare).
TEST(ResourceTest, ExceededPartOmitsScalarsThatFit) {
  Resource e = ExceededPart(R("nvidia.com/gpu=1"), R("nvidia.com/gpu=4"));
  EXPECT_FALSE(e.Has(Gpu()));
  // Absent on the left, present on the right: Volcano's Infinity mode fails.
  EXPECT_FALSE(LessEqualUnlimited(e, R("nvidia.com/gpu=4")));
}

// MinUnlimited keeps a scalar `b` lacks and takes the min elsewhere.
TEST(ResourceTest, MinUnlimitedKeepsScalarsAbsentInB) {
  Resource m = MinUnlimited(R("cpu=3,memory=1Gi,nvidia.com/gpu=4,example.com/fpga=2"),
                            R("cpu=1,memory=2Gi,nvidia.com/gpu=1"));
  EXPECT_EQ(m, R("cpu=1,memory=1Gi,nvidia.com/gpu=1,example.com/fpga=2"));
}

// MinZero zeroes a scalar `b` lacks (even a negative one, which an earlier
// version kept) and never adds scalars only `b` has.
TEST(ResourceTest, MinZeroZeroesScalarsAbsentInB) {
  Resource m =
      MinZero(R("cpu=3,nvidia.com/gpu=4,example.com/fpga=-2"), R("cpu=1,memory=2Gi,pods=5"));
  EXPECT_EQ(m.milli_cpu(), 1000);
  EXPECT_EQ(m.memory(), 0);
  EXPECT_TRUE(m.Has(Gpu()));
  EXPECT_EQ(m.Get(Gpu()), 0);
  EXPECT_EQ(m.Get(Fpga()), 0);
  EXPECT_FALSE(m.Has(ResourceNames::kPods));
}

// Max is per dimension over the union of scalars.
TEST(ResourceTest, MaxOverUnion) {
  EXPECT_EQ(Max(R("cpu=3,memory=1Gi,nvidia.com/gpu=1"), R("cpu=1,memory=2Gi,example.com/fpga=2")),
            R("cpu=3,memory=2Gi,nvidia.com/gpu=1,example.com/fpga=2"));
}

// ClampedAtZero raises negatives to 0 and keeps presence.
TEST(ResourceTest, ClampedAtZero) {
  Resource c = (R("cpu=1") - R("cpu=2,nvidia.com/gpu=1")).ClampedAtZero();
  EXPECT_EQ(c.milli_cpu(), 0);
  EXPECT_TRUE(c.Has(Gpu()));
  EXPECT_EQ(c.Get(Gpu()), 0);
}

// ---- Scaled ----

// Each dimension is multiplied and rounded down: 1001m * 1.5 = 1501.5m -> 1501m.
TEST(ResourceTest, ScaledRoundsDown) {
  Resource s = R("cpu=1001m,memory=3,nvidia.com/gpu=1").Scaled(1.5);
  EXPECT_EQ(s.milli_cpu(), 1501);
  EXPECT_EQ(s.memory(), 4);
  EXPECT_EQ(s.Get(Gpu()), 1500);
}

// Scaling past int64 saturates instead of overflowing; NaN gives zeros.
TEST(ResourceTest, ScaledSaturates) {
  Resource big;
  big.set_memory(kMaxResourceValue);
  big.set_milli_cpu(-kMaxResourceValue);
  Resource s = big.Scaled(10.0);
  EXPECT_EQ(s.memory(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(s.milli_cpu(), std::numeric_limits<int64_t>::min());
  Resource n = R("cpu=1,nvidia.com/gpu=1").Scaled(std::nan(""));
  EXPECT_EQ(n.milli_cpu(), 0);
  EXPECT_TRUE(n.Has(Gpu()));
  EXPECT_EQ(n.Get(Gpu()), 0);
}

// ---- emptiness ----

// BestEffort: nothing positive except possibly `pods`.
TEST(ResourceTest, IsEmptyIgnoringPods) {
  EXPECT_TRUE(R("pods=1").IsEmptyIgnoringPods());
  EXPECT_TRUE(R("nvidia.com/gpu=0,pods=1").IsEmptyIgnoringPods());
  EXPECT_TRUE((R("") - R("cpu=1")).IsEmptyIgnoringPods());
  EXPECT_FALSE(R("cpu=1m,pods=1").IsEmptyIgnoringPods());
  EXPECT_FALSE(R("memory=1").IsEmptyIgnoringPods());
  EXPECT_FALSE(R("nvidia.com/gpu=1m").IsEmptyIgnoringPods());
}

// IsZero: every dimension 0 (negatives are not zero).
TEST(ResourceTest, IsZero) {
  EXPECT_TRUE(R("nvidia.com/gpu=0").IsZero());
  EXPECT_FALSE(R("pods=1").IsZero());
  EXPECT_FALSE((R("") - R("cpu=1")).IsZero());
}

// ---- text ----

// cpu and memory always, then scalars in id order, each canonical.
TEST(ResourceTest, ToStringIsCanonical) {
  Gpu();  // interned after pods (id 2)
  EXPECT_EQ(R("cpu=2,memory=1Gi,nvidia.com/gpu=500m,pods=1").ToString(),
            "cpu 2, memory 1Gi, pods 1, nvidia.com/gpu 500m");
  EXPECT_EQ(Resource().ToString(), "cpu 0, memory 0");
  std::ostringstream os;
  os << R("cpu=1500m");
  EXPECT_EQ(os.str(), "cpu 1500m, memory 0");
}

// Each dimension prints in its own unit.
TEST(ResourceTest, FormatDimension) {
  EXPECT_EQ(FormatDimension(ResourceNames::kCpu, 500), "500m");
  EXPECT_EQ(FormatDimension(ResourceNames::kCpu, 3000), "3");
  EXPECT_EQ(FormatDimension(ResourceNames::kMemory, 1536), "1536");
  EXPECT_EQ(FormatDimension(ResourceNames::kMemory, 1LL << 30), "1Gi");
  EXPECT_EQ(FormatDimension(ResourceNames::kPods, 110), "110");
  EXPECT_EQ(FormatDimension(ResourceNames::kPods, 1000), "1000");
  EXPECT_EQ(FormatDimension(Gpu(), 2000), "2");
  EXPECT_EQ(FormatDimension(Gpu(), 250), "250m");
}

}  // namespace
}  // namespace basalt

namespace basalt {
namespace {
// A decimal factor scales to the decimal answer: 10 cpu x 1.2 = 12 cpu, not 11999m.
TEST(ResourceScaledDecimal, DecimalFactorIsExact) {
  Resource r;
  r.set_milli_cpu(10000);
  r.set_memory(1000);
  Resource s = r.Scaled(1.2);
  EXPECT_EQ(s.milli_cpu(), 12000);
  EXPECT_EQ(s.memory(), 1200);
  r.set_milli_cpu(1);
  EXPECT_EQ(r.Scaled(1.5).milli_cpu(), 1);  // real fractions still round down
}
}  // namespace
}  // namespace basalt
