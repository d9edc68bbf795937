#include "api/card_annotations.h"

#include <nlohmann/json.hpp>
#include <set>

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

// Valid values are flat objects; anything nested deeper than this is refused
// before parsing so that no input can make the parser or the destructor of
// the parsed tree recurse deeply.
constexpr int kMaxJsonDepth = 16;

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Bracket nesting outside JSON strings (the parser reports any other syntax error).
int JsonDepth(const std::string& text) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return max_depth;
}

const char* TypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::binary:
      return "binary data";
    case Json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

// Parses `text` as a JSON object whose top-level keys are unique, keeping their
// order. `what` names the expected shape in messages.
Result<Json> ParseFlatObject(const std::string& text, const char* what) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("empty value (want " + std::string(what) + ")");
  }
  // The JSON reader stops at a NUL byte and would accept what precedes it.
  if (text.find('\0') != std::string::npos) {
    return Status::InvalidArgument("not valid JSON: contains a NUL byte (want " +
                                   std::string(what) + ")");
  }
  if (JsonDepth(text) > kMaxJsonDepth) {
    return Status::InvalidArgument("not valid JSON: nested too deeply (want " + std::string(what) +
                                   ")");
  }
  std::set<std::string> keys;
  std::string duplicate;
  Json::parser_callback_t cb = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1 && parsed.is_string()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (!keys.insert(k).second && duplicate.empty()) duplicate = k;
    }
    return true;
  };
  Json j;
  try {
    j = Json::parse(text, cb);
  } catch (const Json::parse_error& e) {
    // Drop the library's "[json.exception.parse_error.101] " tag; keep the position.
    std::string msg = e.what();
    size_t close = msg.find("] ");
    if (msg.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      msg = msg.substr(close + 2);
    return Status::InvalidArgument("not valid JSON: " + msg + " (want " + what + ")");
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("not valid JSON: ") + e.what() + " (want " + what +
                                   ")");
  }
  if (!j.is_object()) {
    return Status::InvalidArgument(std::string("expected ") + what + ", got " + TypeName(j));
  }
  if (!duplicate.empty()) return Status::InvalidArgument("duplicate key " + Quote(duplicate));
  return j;
}

// The count of one entry: an integer within [min, kMaxCardCount].
Result<int64_t> ReadCount(const std::string& key, const Json& v, int64_t min) {
  const std::string want = min > 0 ? "a positive integer" : "a non-negative integer";
  auto bad = [&](const std::string& got) {
    return Status::InvalidArgument(Quote(key) + ": count must be " + want + ", got " + got);
  };
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kMaxCardCount)) {
      return Status::InvalidArgument(Quote(key) + ": count " + std::to_string(u) +
                                     " is too large (at most " + std::to_string(kMaxCardCount) +
                                     ")");
    }
    int64_t n = static_cast<int64_t>(u);
    if (n < min) return bad(std::to_string(n));
    return n;
  }
  if (v.is_number_integer()) {
    int64_t n = v.get<int64_t>();
    if (n < min) return bad(std::to_string(n));
    if (n > kMaxCardCount) {
      return Status::InvalidArgument(Quote(key) + ": count " + std::to_string(n) +
                                     " is too large (at most " + std::to_string(kMaxCardCount) +
                                     ")");
    }
    return n;
  }
  if (v.is_number_float()) return bad(v.dump(-1, ' ', false, Json::error_handler_t::replace));
  if (v.is_string())
    return bad("the string " + v.dump(-1, ' ', false, Json::error_handler_t::replace));
  return bad(TypeName(v));
}

}  // namespace

Status CheckCardModel(std::string_view model) {
  if (model.empty()) return Status::InvalidArgument("empty model name");
  if (model.size() > 253) {
    return Status::InvalidArgument("model name is " + std::to_string(model.size()) +
                                   " bytes long (at most 253)");
  }
  for (char c : model) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u == ' ' || u == '\t') {
      return Status::InvalidArgument("model " + Quote(model) + " contains whitespace");
    }
    if (u < 0x21 || u > 0x7e) {
      return Status::InvalidArgument("model " + Quote(model) +
                                     " contains a character that is not printable ASCII");
    }
    if (c == '|' || c == '"' || c == '\\') {
      return Status::InvalidArgument("model " + Quote(model) + " contains '" + std::string(1, c) +
                                     "'");
    }
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ParseCardName(const std::string& text) {
  if (text.empty())
    return Status::InvalidArgument("empty value (want a model or A|B alternatives)");
  std::vector<std::string> models;
  std::set<std::string> seen;
  size_t start = 0;
  while (true) {
    size_t bar = text.find('|', start);
    std::string alt =
        text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    size_t index = models.size();
    if (alt.empty()) {
      return Status::InvalidArgument("alternative " + std::to_string(index + 1) + " of " +
                                     Quote(text) + " is empty");
    }
    Status st = CheckCardModel(alt);
    if (!st.ok()) return st;
    if (!seen.insert(alt).second) {
      return Status::InvalidArgument("model " + Quote(alt) + " appears twice in " + Quote(text));
    }
    models.push_back(std::move(alt));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  // Alternatives must share one Kubernetes resource: the pod's requests are
  // fixed before the scheduler picks among them.
  const std::string first = CardResourceFromName(models.front());
  for (size_t i = 1; i < models.size(); ++i) {
    const std::string other = CardResourceFromName(models[i]);
    if (other != first) {
      auto kind = [](const std::string& r) {
        return r.empty() ? std::string("a whole-card resource") : r;
      };
      return Status::InvalidArgument(
          "alternatives " + Quote(text) + " mix Kubernetes resources: " + Quote(models.front()) +
          " uses " + kind(first) + ", " + Quote(models[i]) + " uses " + kind(other));
    }
  }
  return models;
}

std::string CardResourceFromName(const std::string& model) {
  constexpr std::string_view kMig = "/mig-", kMixed = "-mixed", kMps = "/mps-";
  const size_t mig = model.find(kMig);
  if (mig != std::string::npos && model.ends_with(kMixed)) {
    const size_t start = mig + kMig.size();
    if (model.size() > start + kMixed.size()) {
      return "nvidia.com/mig-" + model.substr(start, model.size() - kMixed.size() - start);
    }
  }
  if (model.find(kMps) != std::string::npos) return "nvidia.com/gpu.shared";
  return "";
}

Result<std::map<std::string, int64_t>> ParseCardQuota(const std::string& text) {
  constexpr char kWhat[] = "a JSON object of model -> card count, e.g. {\"NVIDIA-H200\": 3}";
  Result<Json> j = ParseFlatObject(text, kWhat);
  if (!j.ok()) return j.status();
  std::map<std::string, int64_t> out;
  for (const auto& [key, value] : j->items()) {
    if (key.find('|') != std::string::npos) {
      return Status::InvalidArgument(Quote(key) + ": a quota names one model, not alternatives");
    }
    Status st = CheckCardModel(key);
    if (!st.ok()) return st;
    Result<int64_t> n = ReadCount(key, value, 0);
    if (!n.ok()) return n.status();
    out[key] = *n;
  }
  return out;
}

Result<std::vector<CardRequestEntry>> ParseCardRequest(const std::string& text) {
  constexpr char kWhat[] =
      "a JSON object of model or A|B alternatives -> card count, e.g. {\"NVIDIA-H200\": 2}";
  Result<Json> j = ParseFlatObject(text, kWhat);
  if (!j.ok()) return j.status();
  std::vector<CardRequestEntry> out;
  std::set<std::string> models;
  for (const auto& [key, value] : j->items()) {
    Result<std::vector<std::string>> alts = ParseCardName(key);
    if (!alts.ok()) return alts.status().WithContext(Quote(key));
    // A model in two keys would be counted twice by the enqueue pre-check.
    for (const std::string& m : *alts) {
      if (!models.insert(m).second) {
        return Status::InvalidArgument(Quote(key) + ": model " + Quote(m) +
                                       " is already named by another key");
      }
    }
    Result<int64_t> n = ReadCount(key, value, 1);
    if (!n.ok()) return n.status();
    out.emplace_back(std::move(alts).value(), *n);
  }
  return out;
}

}  // namespace basalt
