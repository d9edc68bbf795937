// Fuzz target: a LIST reply's body as the informers read it
// (kube/list_body.h). An API server, a proxy or a cut connection can send
// any bytes. The fast path (simdjson) must give exactly what nlohmann's
// parser gives, but for the managedFields of PodList/NodeList items and
// "-0"; what nlohmann refuses stays refused.
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/check.h"
#include "kube/list_body.h"

namespace {

using Json = nlohmann::json;

// What ParseListBody promises to return for `want` (nlohmann's value).
void DropManagedFields(Json* want) {
  if (!want->is_object() || !want->contains("kind") || !want->contains("items")) return;
  const Json& kind = (*want)["kind"];
  if (kind != "PodList" && kind != "NodeList") return;
  Json& items = (*want)["items"];
  if (!items.is_array()) return;
  for (Json& item : items) {
    if (item.is_object() && item.contains("metadata") && item["metadata"].is_object()) {
      item["metadata"].erase("managedFields");
    }
  }
}

// Equal values of the same JSON types (== alone calls 1 and 1u equal); "-0"
// may read as the double -0.0 where nlohmann reads the integer 0.
bool Identical(const Json& got, const Json& want) {
  if (got.is_number() && want.is_number() && got == 0 && want == 0) return true;
  if (got.type() != want.type()) return false;
  if (got.is_object()) {
    if (got.size() != want.size()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key()) || !Identical(got[it.key()], it.value())) return false;
    }
    return true;
  }
  if (got.is_array()) {
    if (got.size() != want.size()) return false;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!Identical(got[i], want[i])) return false;
    }
    return true;
  }
  return got == want;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  Json got = basalt::kube::ParseListBody(body);
  Json want = Json::parse(body, nullptr, false);
  BASALT_CHECK(got.is_discarded() == want.is_discarded())
      << (want.is_discarded() ? "accepted what nlohmann refuses: "
                              : "refused what nlohmann reads: ")
      << body.substr(0, 200);
  if (want.is_discarded()) return 0;
  DropManagedFields(&want);
  BASALT_CHECK(Identical(got, want)) << "read differently from nlohmann: " << body.substr(0, 200);
  return 0;
}
