// A read-only view of one value of a parsed JSON document with the part of
// yaml-cpp's `YAML::Node` interface that the manifest decoders use, so one set
// of field rules (decode_fields.h, decode_pod.cc) reads both a manifest's YAML
// tree and an object the API server returned as JSON, without building a YAML
// tree from the JSON first (the cost of a restart on a large cluster).
//
// A value reads as the YAML tree `JsonToYamlNode` would build from it: a string
// is a scalar with its text; a number or a boolean is a scalar whose text is
// its JSON text; null is null; a missing member is undefined. Maps iterate in
// the JSON object's order, as the tree built from it does.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

namespace basalt {

class JsonField {
 public:
  JsonField() = default;  // undefined: a member that is not there
  explicit JsonField(const nlohmann::json& value) : value_(&value) {}

  bool IsDefined() const { return value_ != nullptr; }
  explicit operator bool() const { return IsDefined(); }
  bool IsNull() const { return value_ != nullptr && value_->is_null(); }
  bool IsMap() const { return value_ != nullptr && value_->is_object(); }
  bool IsSequence() const { return value_ != nullptr && value_->is_array(); }
  bool IsScalar() const {
    return value_ != nullptr &&
           (value_->is_string() || value_->is_number() || value_->is_boolean());
  }
  // The scalar's text (a string as it is, a number or boolean as JSON prints
  // it); empty for anything else.
  std::string Scalar() const {
    if (value_ == nullptr) return "";
    if (value_->is_string()) return value_->get_ref<const std::string&>();
    return IsScalar() ? value_->dump() : "";
  }
  // A string's text without a copy; nullptr when the value is not a string.
  const std::string* StringOrNull() const {
    return value_ != nullptr && value_->is_string() ? &value_->get_ref<const std::string&>()
                                                    : nullptr;
  }
  // Entries of a map, items of a sequence; 0 for anything else.
  size_t size() const { return IsMap() || IsSequence() ? value_->size() : 0; }

  // A member of a map (undefined when absent or when this is not a map), or
  // an item of a sequence by index.
  template <typename Key>
  JsonField operator[](const Key& key) const {
    if constexpr (std::is_integral_v<Key>) {
      if (!IsSequence() || key < 0 || static_cast<size_t>(key) >= value_->size()) return {};
      return JsonField((*value_)[static_cast<size_t>(key)]);
    } else {
      if (!IsMap()) return {};
      auto it = value_->find(std::string_view(key));
      return it == value_->end() ? JsonField() : JsonField(*it);
    }
  }

  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  // What a value that is neither a map nor a sequence iterates over.
  static const nlohmann::json& Empty() {
    static const nlohmann::json kEmpty = nlohmann::json::array();
    return kEmpty;
  }
  const nlohmann::json& Iterated() const { return IsMap() || IsSequence() ? *value_ : Empty(); }

  const nlohmann::json* value_ = nullptr;
};

// A key of a map: always a string scalar.
class JsonFieldKey {
 public:
  JsonFieldKey() = default;
  explicit JsonFieldKey(const std::string& text) : text_(&text) {}
  bool IsDefined() const { return text_ != nullptr; }
  explicit operator bool() const { return IsDefined(); }
  bool IsNull() const { return false; }
  bool IsMap() const { return false; }
  bool IsSequence() const { return false; }
  bool IsScalar() const { return text_ != nullptr; }
  const std::string& Scalar() const { return *text_; }

 private:
  const std::string* text_ = nullptr;
};

// What iterating yields, as yaml-cpp's iterator does: for a map, `first` (the
// key) and `second` (the value); for a sequence, the item itself.
struct JsonFieldEntry : JsonField {
  JsonFieldKey first;
  JsonField second;
};

class JsonField::Iterator {
 public:
  Iterator(nlohmann::json::const_iterator it, bool map) : it_(it), map_(map) {}
  JsonFieldEntry operator*() const {
    JsonFieldEntry e;
    if (map_) {
      e.first = JsonFieldKey(it_.key());
      e.second = JsonField(*it_);
    } else {
      static_cast<JsonField&>(e) = JsonField(*it_);
    }
    return e;
  }
  Iterator& operator++() {
    ++it_;
    return *this;
  }
  bool operator!=(const Iterator& other) const { return it_ != other.it_; }

 private:
  nlohmann::json::const_iterator it_;
  bool map_;
};

inline JsonField::Iterator JsonField::begin() const {
  return Iterator(Iterated().cbegin(), IsMap());
}
inline JsonField::Iterator JsonField::end() const { return Iterator(Iterated().cend(), IsMap()); }

}  // namespace basalt
