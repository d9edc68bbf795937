// One line of a Kubernetes watch stream, decoded without any I/O.
//
// A watch response (`?watch=true`) is a stream of JSON objects, one per line:
// `{"type":"ADDED","object":{...}}`. `Client::Watch` splits the stream into
// lines and hands each to `DecodeWatchLine`; keeping the decoding pure lets it
// be unit-tested and fuzzed (fuzz/watch_line_fuzz.cc) on bytes a server, a
// proxy or a broken connection might send.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type;
  nlohmann::json object;         // for kError: the server's v1 Status
  std::string resource_version;  // object.metadata.resourceVersion ("" when absent)
};

// Lines longer than this are refused rather than buffered without bound.
inline constexpr size_t kMaxWatchLine = 64u << 20;

// Decodes one line (without its '\n'). Trailing '\r' and spaces are ignored; a
// line that is then empty (a keep-alive) gives nullopt. Errors (InvalidArgument):
//   "malformed watch event: <first 120 bytes>"  not JSON, not an object, or
//                                               no string `type` / object `object`
//   "unknown watch event type \"X\""            a type other than ADDED,
//                                               MODIFIED, DELETED, BOOKMARK, ERROR
//   "watch event larger than 64 MiB"            a line beyond kMaxWatchLine
Result<std::optional<WatchEvent>> DecodeWatchLine(std::string_view line);

}  // namespace basalt::kube
