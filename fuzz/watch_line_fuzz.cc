// Fuzz target: one line of a Kubernetes watch stream (kube/watch_line.h), as
// `basalt serve` reads it from the API server. A server, a proxy or a broken
// connection can send anything; the decoder must answer with an event or an
// error, never crash.
//
// Beyond that it checks a round trip: an event that decodes, written back as
// `{"type": ..., "object": ...}`, decodes to the same type, object and
// resourceVersion (the informer relies on the event being what was sent).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/check.h"
#include "kube/watch_line.h"

namespace {

const char* TypeName(basalt::kube::WatchEventType t) {
  using T = basalt::kube::WatchEventType;
  switch (t) {
    case T::kAdded:
      return "ADDED";
    case T::kModified:
      return "MODIFIED";
    case T::kDeleted:
      return "DELETED";
    case T::kBookmark:
      return "BOOKMARK";
    case T::kError:
      return "ERROR";
  }
  return "?";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  auto decoded = basalt::kube::DecodeWatchLine(line);
  if (!decoded.ok() || !decoded->has_value()) return 0;
  const basalt::kube::WatchEvent& ev = **decoded;
  BASALT_CHECK(ev.object.is_object()) << "decoded an event whose object is not an object";
  // Invalid UTF-8 inside strings cannot be written back; those inputs stop here.
  std::string again;
  try {
    again = nlohmann::json{{"type", TypeName(ev.type)}, {"object", ev.object}}.dump();
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  auto re = basalt::kube::DecodeWatchLine(again);
  BASALT_CHECK(re.ok() && re->has_value())
      << "event does not decode after a round trip: " << again.substr(0, 200);
  BASALT_CHECK((*re)->type == ev.type && (*re)->object == ev.object &&
               (*re)->resource_version == ev.resource_version)
      << "event changed in a round trip: " << again.substr(0, 200);
  return 0;
}
