// Arguments: a plugin's or action's free-form `arguments:` map from the
// scheduler configuration, with typed getters that fail on a wrong type.
//
// Volcano reads arguments leniently (a wrong type is logged and ignored).
// basalt does the same in lenient mode (`schedule`, `simulate`, `serve`), with
// a warning naming the owner, the key, where it is written and the default
// kept; in strict mode (`validate`, `--strict`) a wrong type is an error
// naming the plugin and the key, so a typo in a quota weight can be stopped
// before it silently changes decisions.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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
  bool Has(const std::string& key) const;
  const std::map<std::string, std::string>& values() const { return values_; }
  const std::string& owner() const { return owner_; }

  // Lenient mode: see the file comment and `Invalid`.
  void SetLenient(bool lenient) { lenient_ = lenient; }
  bool lenient() const { return lenient_; }
  // Where `key` is written ("conf.yaml:12"), for messages.
  void SetLocation(const std::string& key, std::string where) { where_[key] = std::move(where); }

  // A value of `key` the caller cannot use: returns `error` in strict mode; in
  // lenient mode logs it as a warning (once per owner and key and process:
  // plugins are built every session), with its location and "ignored, the
  // default <default_text> is used", and returns Ok so the caller keeps it.
  Status Invalid(const std::string& key, const Status& error,
                 const std::string& default_text) const;

  // Each getter leaves `*out` unchanged when the key is absent, and, when the
  // value has the wrong type, reports it through `Invalid` (`*out`, unchanged,
  // is the default named) with the error naming the owner and the key:
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

  // What the owner asked for: every getter, `Has` and `WithPrefix` records the
  // key (a prefix as "prefix*"), whether or not it is given. Copies share the
  // record. Plugins read their arguments when they are built, so after that a
  // key given but never asked for is one the plugin does not know (a typo such
  // as "binpack.wieght"): Volcano ignores it silently, basalt says so
  // (WarnUnreadArguments).
  std::vector<std::string> UnreadKeys() const;
  std::vector<std::string> AskedFor() const;
  // Counts every given key as read: for an owner that reports its unknown keys
  // itself (plugins/unknown_arguments.h).
  void MarkAllRead() const;
  // "file:line" where `key` is written, or "".
  std::string Location(const std::string& key) const;

 private:
  Status TypeError(const std::string& key, const std::string& want) const;
  // "an object" / "a list" when `key` was given as one (see Set), else "".
  std::string NestedKind(const std::string& key) const;
  // The value of `key`, or nullptr (then `*st` is a type error when `key` is nested).
  const std::string* Find(const std::string& key, const std::string& want, Status* st) const;
  // `Invalid` for a type error of `key` (want: "an integer", ...).
  Status WrongType(const std::string& key, const std::string& want,
                   const std::string& default_text) const;
  struct Lookups {
    std::mutex mu;
    std::set<std::string> keys, prefixes;
    bool all_read = false;
  };
  void Record(const std::string& key, bool prefix) const;

  std::string owner_;
  bool lenient_ = false;
  std::shared_ptr<Lookups> lookups_ = std::make_shared<Lookups>();
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> where_;  // key -> "file:line"
};

// Warns (once per owner and key and process, with the key's location) about
// each key of `args` its owner never asked for, naming what it does read.
void WarnUnreadArguments(const Arguments& args);

}  // namespace basalt
