#include "framework/arguments.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <set>

#include "api/decode.h"
#include "api/log.h"

namespace basalt {

Status Arguments::TypeError(const std::string& key, const std::string& want) const {
  auto it = values_.find(key);
  std::string got = it != values_.end() ? "\"" + it->second + "\"" : NestedKind(key);
  return Status::InvalidArgument(owner_ + ": arguments." + key + ": expected " + want + ", got " +
                                 got);
}

std::string Arguments::NestedKind(const std::string& key) const {
  // Flattening turned `key: {a: 1}` into "key.a" and `key: [1]` into "key[0]".
  auto dot = values_.lower_bound(key + ".");
  if (dot != values_.end() && dot->first.compare(0, key.size() + 1, key + ".") == 0)
    return "an object";
  auto bracket = values_.lower_bound(key + "[");
  if (bracket != values_.end() && bracket->first.compare(0, key.size() + 1, key + "[") == 0)
    return "a list";
  return "";
}

Status Arguments::Invalid(const std::string& key, const Status& error,
                          const std::string& default_text) const {
  // A nested value is flattened: its location is its first child's.
  auto where = where_.lower_bound(key);
  std::string at = where != where_.end() && where->first.compare(0, key.size(), key) == 0
                       ? where->second + ": "
                       : std::string();
  if (!lenient_) return Status::InvalidArgument(at + error.message());
  static std::mutex mu;
  static std::set<std::string> warned;  // "<owner>/<key>" already reported
  std::lock_guard<std::mutex> lock(mu);
  if (!warned.insert(owner_ + "/" + key).second) return Status::Ok();
  CliLog().warn("warning: {}{}; ignored, the default {} is used", at, error.message(),
                default_text);
  return Status::Ok();
}

Status Arguments::WrongType(const std::string& key, const std::string& want,
                            const std::string& default_text) const {
  return Invalid(key, TypeError(key, want), default_text);
}

void Arguments::Record(const std::string& key, bool prefix) const {
  std::lock_guard<std::mutex> lock(lookups_->mu);
  (prefix ? lookups_->prefixes : lookups_->keys).insert(key);
}

bool Arguments::Has(const std::string& key) const {
  Record(key, false);
  return values_.count(key) > 0;
}

std::vector<std::string> Arguments::UnreadKeys() const {
  std::lock_guard<std::mutex> lock(lookups_->mu);
  std::vector<std::string> out;
  if (lookups_->all_read) return out;
  auto starts_with = [](const std::string& s, const std::string& p) {
    return s.compare(0, p.size(), p) == 0;
  };
  for (const auto& entry : values_) {
    const std::string& key = entry.first;  // not a binding: the lambdas capture it (clang < 16)
    if (lookups_->keys.count(key)) continue;
    // A nested value ("key.a", "key[0]") was read when its parent key was.
    bool read = std::any_of(lookups_->keys.begin(), lookups_->keys.end(), [&](const auto& k) {
      return starts_with(key, k + ".") || starts_with(key, k + "[");
    });
    read = read || std::any_of(lookups_->prefixes.begin(), lookups_->prefixes.end(),
                               [&](const auto& p) { return starts_with(key, p); });
    if (!read) out.push_back(key);
  }
  return out;
}

std::vector<std::string> Arguments::AskedFor() const {
  std::lock_guard<std::mutex> lock(lookups_->mu);
  std::vector<std::string> out;
  for (const std::string& k : lookups_->keys) {
    // "list[0]" is how a list argument is walked, not a name to suggest.
    if (k.find('[') == std::string::npos) out.push_back(k);
  }
  for (const std::string& p : lookups_->prefixes) out.push_back(p + "*");
  return out;
}

void Arguments::MarkAllRead() const {
  std::lock_guard<std::mutex> lock(lookups_->mu);
  lookups_->all_read = true;
}

std::string Arguments::Location(const std::string& key) const {
  auto it = where_.find(key);
  return it == where_.end() ? "" : it->second;
}

void WarnUnreadArguments(const Arguments& args) {
  std::vector<std::string> unread = args.UnreadKeys();
  if (unread.empty()) return;
  static std::mutex mu;
  static std::set<std::string> warned;  // "<owner>/<key>" already reported
  std::lock_guard<std::mutex> lock(mu);
  std::vector<std::string> asked = args.AskedFor();
  std::string reads = asked.empty() ? "it reads no arguments" : "it reads";
  for (size_t i = 0; i < asked.size(); ++i) reads += (i == 0 ? " " : ", ") + asked[i];
  for (const std::string& key : unread) {
    if (!warned.insert(args.owner() + "/" + key).second) continue;
    std::string at = args.Location(key);
    CliLog().warn("warning: {}{}: arguments.{}: unknown argument, ignored ({})",
                  at.empty() ? "" : at + ": ", args.owner(), key, reads);
  }
}

const std::string* Arguments::Find(const std::string& key, const std::string& want,
                                   Status* st) const {
  Record(key, false);
  auto it = values_.find(key);
  if (it != values_.end()) return &it->second;
  if (!NestedKind(key).empty()) *st = TypeError(key, want);
  return nullptr;
}

Status Arguments::GetBool(const std::string& key, bool* out) const {
  Status st;
  const std::string* v = Find(key, "true or false", &st);
  const std::string def = *out ? "true" : "false";
  if (v == nullptr) return st.ok() ? st : Invalid(key, st, def);
  std::optional<bool> b = ParseYamlBool(*v);
  if (!b) return WrongType(key, "true or false", def);
  *out = *b;
  return Status::Ok();
}

Status Arguments::GetInt(const std::string& key, int64_t* out) const {
  Status st;
  const std::string* v = Find(key, "an integer", &st);
  const std::string def = std::to_string(*out);
  if (v == nullptr) return st.ok() ? st : Invalid(key, st, def);
  // strtoll would skip leading whitespace; a YAML scalar never has any unquoted.
  if (v->empty() || std::isspace(static_cast<unsigned char>((*v)[0])))
    return WrongType(key, "an integer", def);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return WrongType(key, "an integer", def);
  *out = x;
  return Status::Ok();
}

Status Arguments::GetDouble(const std::string& key, double* out) const {
  Status st;
  const std::string* v = Find(key, "a number", &st);
  const std::string def = fmt::format("{}", *out);
  if (v == nullptr) return st.ok() ? st : Invalid(key, st, def);
  // strtod also reads hexadecimal floats, "inf" and "nan": not numbers a user means.
  if (v->empty() || std::isspace(static_cast<unsigned char>((*v)[0])) ||
      v->find_first_of("xXnN") != std::string::npos) {
    return WrongType(key, "a number", def);
  }
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v->c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(x)) return WrongType(key, "a number", def);
  *out = x;
  return Status::Ok();
}

Status Arguments::GetString(const std::string& key, std::string* out) const {
  Status st;
  const std::string* v = Find(key, "a string", &st);
  if (v != nullptr) *out = *v;
  return st.ok() ? st : Invalid(key, st, "\"" + *out + "\"");
}

std::map<std::string, std::string> Arguments::WithPrefix(const std::string& prefix) const {
  Record(prefix, true);
  std::map<std::string, std::string> out;
  for (auto it = values_.lower_bound(prefix); it != values_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    out[it->first.substr(prefix.size())] = it->second;
  }
  return out;
}

}  // namespace basalt
