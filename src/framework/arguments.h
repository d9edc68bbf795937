// Arguments: a plugin's or action's free-form `arguments:` map from the
// scheduler configuration, with typed getters that fail on a wrong type.
//
// Volcano reads arguments leniently (a wrong type is ignored). basalt reports a
// wrong type as an error naming the plugin and the key, so a typo in a quota
// weight never silently changes decisions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

class Arguments {
 public:
  // `owner` names the plugin or action in messages ("plugin binpack").
  Arguments() = default;
  explicit Arguments(std::string owner) : owner_(std::move(owner)) {}

  // Scalars are kept as their YAML text; nested maps as flattened "a.b" keys and
  // lists under "key[i]" (enough for every argument Volcano documents).
  void Set(const std::string& key, std::string value) { values_[key] = std::move(value); }
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  const std::map<std::string, std::string>& values() const { return values_; }
  const std::string& owner() const { return owner_; }

  // Each getter leaves `*out` unchanged when the key is absent, and returns an
  // error naming the owner and the key when the value has the wrong type:
  //   "plugin binpack: arguments.binpack.weight: expected an integer, got \"x\"".
  // A key given as a nested object or list (flattened to "key.a" / "key[0]") is
  // the wrong type for every getter ("... expected a number, got a list").
  //  * GetBool: YAML 1.1 booleans as Kubernetes reads them (true/false, yes/no,
  //    on/off, y/n in their usual capitalisations).
  //  * GetInt: a decimal int64 with an optional sign ("1.0", "0x10", "1e3" are errors).
  //  * GetDouble: a finite decimal number ("1", "1.5", "-2e3"; not "inf", "nan", hex).
  //  * GetString: the scalar's text; a null value reads as "".
  Status GetBool(const std::string& key, bool* out) const;
  Status GetInt(const std::string& key, int64_t* out) const;
  Status GetDouble(const std::string& key, double* out) const;
  Status GetString(const std::string& key, std::string* out) const;
  // Keys starting with `prefix` (prefix removed), e.g. "binpack.resources." -> names.
  std::map<std::string, std::string> WithPrefix(const std::string& prefix) const;

 private:
  Status TypeError(const std::string& key, const std::string& want) const;
  // "an object" / "a list" when `key` was given as one (see Set), else "".
  std::string NestedKind(const std::string& key) const;
  // The value of `key`, or nullptr (then `*st` is a type error when `key` is nested).
  const std::string* Find(const std::string& key, const std::string& want, Status* st) const;
  std::string owner_;
  std::map<std::string, std::string> values_;
};

}  // namespace basalt
