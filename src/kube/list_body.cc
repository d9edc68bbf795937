#include "kube/list_body.h"

#include <simdjson.h>

#include <cstdint>
#include <string_view>

namespace basalt::kube {
namespace {

using Json = nlohmann::json;
using Element = simdjson::dom::element;

// Builds `*out` from `e` with the value types nlohmann's own parser gives:
// a non-negative integer is unsigned, a negative one signed, others double
// (the one difference: "-0" is the double -0.0 here, the integer 0 there).
// `skip_managed_fields`: `e` is an item's metadata, whose member managedFields
// is left out.
void Convert(Element e, bool skip_managed_fields, Json* out) {
  using Type = simdjson::dom::element_type;
  switch (e.type()) {
    case Type::OBJECT: {
      *out = Json::object();
      for (auto field : simdjson::dom::object(e)) {
        if (skip_managed_fields && field.key == "managedFields") continue;
        // operator[]: a repeated key keeps its last value, as nlohmann's parser does.
        Json& slot = (*out)[std::string(field.key)];
        Convert(field.value, false, &slot);
      }
      return;
    }
    case Type::ARRAY: {
      *out = Json::array();
      auto& items = out->get_ref<Json::array_t&>();
      for (Element item : simdjson::dom::array(e)) {
        items.emplace_back();
        Convert(item, false, &items.back());
      }
      return;
    }
    case Type::STRING:
      *out = std::string(std::string_view(e));
      return;
    case Type::INT64: {
      const int64_t v = int64_t(e);
      if (v >= 0) {
        *out = static_cast<uint64_t>(v);
      } else {
        *out = v;
      }
      return;
    }
    case Type::UINT64:
      *out = uint64_t(e);
      return;
    case Type::DOUBLE:
      *out = double(e);
      return;
    case Type::BOOL:
      *out = bool(e);
      return;
    case Type::NULL_VALUE:
      *out = nullptr;
      return;
  }
}

// An item of a list; its metadata loses managedFields when `skip_managed_fields`.
void ConvertItem(Element item, bool skip_managed_fields, Json* out) {
  if (!item.is_object()) return Convert(item, false, out);
  *out = Json::object();
  for (auto field : simdjson::dom::object(item)) {
    Json& slot = (*out)[std::string(field.key)];
    Convert(field.value, skip_managed_fields && field.key == "metadata", &slot);
  }
}

}  // namespace

Json ParseListBody(const std::string& body) {
  simdjson::dom::parser parser;
  Element root;
  if (parser.parse(body).get(root) != simdjson::SUCCESS || !root.is_object()) {
    // Not a JSON object, or beyond what simdjson reads (an integer past 64
    // bits, nesting past 1,024 levels): nlohmann decides, as before.
    return Json::parse(body, nullptr, /*allow_exceptions=*/false);
  }
  std::string_view list_kind;
  (void)root["kind"].get(list_kind);
  const bool skip_managed_fields = list_kind == "PodList" || list_kind == "NodeList";
  Json page = Json::object();
  for (auto field : simdjson::dom::object(root)) {
    Json& slot = page[std::string(field.key)];
    if (field.key == "items" && field.value.is_array()) {
      slot = Json::array();
      auto& items = slot.get_ref<Json::array_t&>();
      for (Element item : simdjson::dom::array(field.value)) {
        items.emplace_back();
        ConvertItem(item, skip_managed_fields, &items.back());
      }
    } else {
      Convert(field.value, false, &slot);
    }
  }
  return page;
}

}  // namespace basalt::kube
