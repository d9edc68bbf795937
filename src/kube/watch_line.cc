#include "kube/watch_line.h"

namespace basalt::kube {
namespace {

Status Malformed(std::string_view line) {
  // The excerpt is cut at 120 bytes: a malformed line can be megabytes long.
  return Status::InvalidArgument("malformed watch event: " + std::string(line.substr(0, 120)));
}

}  // namespace

Result<std::optional<WatchEvent>> DecodeWatchLine(std::string_view line) {
  if (line.size() > kMaxWatchLine) return Status::InvalidArgument("watch event larger than 64 MiB");
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return std::optional<WatchEvent>();
  // No exceptions: a parse failure gives a discarded value.
  nlohmann::json j =
      nlohmann::json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Malformed(line);
  auto type = j.find("type");
  auto object = j.find("object");
  if (type == j.end() || !type->is_string() || object == j.end() || !object->is_object())
    return Malformed(line);
  const std::string& name = type->get_ref<const std::string&>();
  if (name.empty()) return Malformed(line);
  WatchEvent ev;
  if (name == "ADDED") {
    ev.type = WatchEventType::kAdded;
  } else if (name == "MODIFIED") {
    ev.type = WatchEventType::kModified;
  } else if (name == "DELETED") {
    ev.type = WatchEventType::kDeleted;
  } else if (name == "BOOKMARK") {
    ev.type = WatchEventType::kBookmark;
  } else if (name == "ERROR") {
    ev.type = WatchEventType::kError;
  } else {
    return Status::InvalidArgument("unknown watch event type \"" + name + "\"");
  }
  auto meta = object->find("metadata");
  if (meta != object->end() && meta->is_object()) {
    auto rv = meta->find("resourceVersion");
    if (rv != meta->end() && rv->is_string()) ev.resource_version = rv->get<std::string>();
  }
  ev.object = std::move(*object);
  return std::optional<WatchEvent>(std::move(ev));
}

}  // namespace basalt::kube
