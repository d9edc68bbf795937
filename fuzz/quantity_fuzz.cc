// Fuzz target: Kubernetes quantity parsing and `Resource::Parse`.
//
// Beyond "no crash, no sanitizer report", it checks a round trip: a quantity
// that parses in milli-units, printed canonically, must parse back to the same
// value. A canonical string that does not re-read would make `basalt schedule`
// output unusable as input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/check.h"
#include "api/quantity.h"
#include "api/resource.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto milli = basalt::ParseQuantityMilli(text);
  auto units = basalt::ParseQuantityUnits(text);
  if (milli.ok() && *milli >= 0) {
    std::string canonical = basalt::FormatMilliDecimal(*milli);
    auto again = basalt::ParseQuantityMilli(canonical);
    BASALT_CHECK(again.ok() && *again == *milli)
        << "input \"" << text << "\" -> " << *milli << " -> \"" << canonical
        << "\" does not round-trip";
  }
  if (units.ok() && *units >= 0) {
    std::string canonical = basalt::FormatBinaryBytes(*units);
    auto again = basalt::ParseQuantityUnits(canonical);
    BASALT_CHECK(again.ok() && *again == *units)
        << "input \"" << text << "\" -> " << *units << " bytes -> \"" << canonical
        << "\" does not round-trip";
  }
  auto r = basalt::Resource::Parse(text);
  if (r.ok()) (void)r->ToString();
  return 0;
}
