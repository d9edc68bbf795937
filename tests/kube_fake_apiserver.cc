#include "kube_fake_apiserver.h"

#include <chrono>
#include <ctime>
#include <sstream>

namespace basalt::testing {
namespace {

Json FixtureBody(const std::string& name) {
  Json j = Json::parse(ReadFixtureText(name), nullptr, false);
  return j.is_object() ? j["response"]["body"] : Json::object();
}

Json StatusBody(int code, const std::string& reason, const std::string& message,
                Json details = nullptr) {
  Json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  if (!details.is_null()) s["details"] = std::move(details);
  return s;
}

std::string Base64Url(const std::string& in) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += tbl[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += tbl[(v >> 18) & 63];
    out += tbl[(v >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    for (int s = 18; s >= 6; s -= 6) out += tbl[(v >> s) & 63];
  }
  return out;
}

std::string Timestamp(int64_t offset_seconds) {
  std::time_t t = 1795242600 + offset_seconds;  // 2026-11-22T06:30:00Z
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string KeyOf(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string MetaKey(const Json& obj) {
  const Json& m = obj.contains("metadata") ? obj["metadata"] : Json::object();
  return KeyOf(Str(m, "namespace"), Str(m, "name"));
}

// RFC 7386 JSON merge patch.
void MergePatch(Json& target, const Json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = Json::object();
  for (const auto& [k, v] : patch.items()) {
    if (v.is_null())
      target.erase(k);
    else
      MergePatch(target[k], v);
  }
}

bool Deleting(const Json& obj) {
  return obj.contains("metadata") && obj["metadata"].contains("deletionTimestamp") &&
         !obj["metadata"]["deletionTimestamp"].is_null();
}

}  // namespace

FakeApiServer::FakeApiServer() {
  resources_ = {
      {"", "v1", "pods", "Pod", true, false, true},
      {"", "v1", "nodes", "Node", false, false, true},
      {"", "v1", "events", "Event", true, false, false},
      {"events.k8s.io", "v1", "events", "Event", true, false, false},
      {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, false, false},
      {"scheduling.volcano.sh", "v1beta1", "queues", "Queue", false, true, true},
      {"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true, true, false},
      {"batch.volcano.sh", "v1alpha1", "jobs", "Job", true, true, true},
      {"bus.volcano.sh", "v1alpha1", "commands", "Command", true, true, false},
      {"flow.volcano.sh", "v1alpha1", "jobflows", "JobFlow", true, true, true},
      {"flow.volcano.sh", "v1alpha1", "jobtemplates", "JobTemplate", true, true, true},
      {"batch.volcano.sh", "v1alpha1", "cronjobs", "CronJob", true, true, true},
      {"apps", "v1", "deployments", "Deployment", true, false, true},
      {"apps", "v1", "replicasets", "ReplicaSet", true, false, true},
      {"coordination.k8s.io", "v1", "leases", "Lease", true, false, false},
      // What the vcjob plugins make (not watched by basalt).
      {"", "v1", "configmaps", "ConfigMap", true, false, false},
      {"", "v1", "secrets", "Secret", true, false, false},
      {"", "v1", "services", "Service", true, false, false},
      {"networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, false, false},
  };
}

FakeApiServer::~FakeApiServer() { Stop(); }

bool FakeApiServer::Start(int port) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = false;
  }
  if (!http_.Start([this](const FakeRequest& r, FakeResponder& out) { Handle(r, out); }, port))
    return false;
  port_ = http_.port();
  return true;
}

void FakeApiServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  http_.Stop();
}

const FakeApiServer::Resource* FakeApiServer::ByKind(const std::string& api_version_kind) {
  for (const Resource& r : resources_) {
    if (r.ApiVersion() + "/" + r.kind == api_version_kind) return &r;
  }
  return nullptr;
}

bool FakeApiServer::Route_(const std::string& path, Route* route) {
  std::vector<std::string> seg;
  std::stringstream ss(path);
  std::string s;
  while (std::getline(ss, s, '/')) {
    if (!s.empty()) seg.push_back(s);
  }
  std::string group, version;
  size_t i;
  if (seg.size() >= 2 && seg[0] == "api") {
    version = seg[1];
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    i = 3;
  } else {
    return false;
  }
  std::vector<std::string> rest(seg.begin() + static_cast<long>(i), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    route->ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return false;
  for (const Resource& r : resources_) {
    if (r.group == group && r.version == version && r.plural == rest[0]) route->res = &r;
  }
  if (route->res == nullptr) return false;
  if (rest.size() > 1) route->name = rest[1];
  if (rest.size() > 2) route->sub = rest[2];
  return true;
}

void FakeApiServer::RecordLocked(const Resource& res, const std::string& type, const Json& obj) {
  history_.push_back(Change{rv_, res.ApiVersion() + "/" + res.plural, type, obj});
  cv_.notify_all();
}

Json FakeApiServer::PutLocked(const Resource& res, Json obj, const char* type) {
  obj["kind"] = res.kind;
  obj["apiVersion"] = res.ApiVersion();
  Json& meta = obj["metadata"];
  if (Str(meta, "uid").empty())
    meta["uid"] = "00000000-0000-4000-8000-" + std::to_string(100000000000 + ++uid_seq_);
  if (Str(meta, "creationTimestamp").empty()) meta["creationTimestamp"] = Timestamp(uid_seq_);
  if (res.crd && !meta.contains("generation")) meta["generation"] = 1;
  meta["resourceVersion"] = std::to_string(++rv_);
  objects_[res.ApiVersion() + "/" + res.plural][MetaKey(obj)] = obj;
  RecordLocked(res, type, obj);
  return obj;
}

Json FakeApiServer::Put(Json obj) {
  std::lock_guard<std::mutex> lock(mu_);
  const Resource* res = ByKind(Str(obj, "apiVersion") + "/" + Str(obj, "kind"));
  if (res == nullptr) return Json();
  auto& store = objects_[res->ApiVersion() + "/" + res->plural];
  bool exists = store.count(MetaKey(obj)) > 0;
  if (exists) obj["metadata"]["uid"] = store[MetaKey(obj)]["metadata"]["uid"];
  return PutLocked(*res, std::move(obj), exists ? "MODIFIED" : "ADDED");
}

bool FakeApiServer::Delete(const std::string& kind, const std::string& ns,
                           const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Resource& res : resources_) {
    if (res.kind != kind) continue;
    auto& store = objects_[res.ApiVersion() + "/" + res.plural];
    auto it = store.find(KeyOf(ns, name));
    if (it == store.end()) continue;
    Json obj = it->second;
    store.erase(it);
    obj["metadata"]["resourceVersion"] = std::to_string(++rv_);
    RecordLocked(res, "DELETED", obj);
    return true;
  }
  return false;
}

std::optional<Json> FakeApiServer::Get(const std::string& kind, const std::string& ns,
                                       const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Resource& res : resources_) {
    if (res.kind != kind) continue;
    auto& store = objects_[res.ApiVersion() + "/" + res.plural];
    auto it = store.find(KeyOf(ns, name));
    if (it != store.end()) return it->second;
  }
  return std::nullopt;
}

std::vector<Json> FakeApiServer::List(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Json> out;
  for (const Resource& res : resources_) {
    if (res.kind != kind) continue;
    for (const auto& [k, v] : objects_[res.ApiVersion() + "/" + res.plural]) out.push_back(v);
  }
  return out;
}

int64_t FakeApiServer::resource_version() {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

void FakeApiServer::Compact() {
  std::lock_guard<std::mutex> lock(mu_);
  compacted_ = rv_;
}

void FakeApiServer::BlockEviction(const std::string& pod_key, int retry_after_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  blocked_[pod_key] = retry_after_seconds;
}

void FakeApiServer::UnblockEviction(const std::string& pod_key) {
  std::lock_guard<std::mutex> lock(mu_);
  blocked_.erase(pod_key);
}

void FakeApiServer::FailNext(int n, int code) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_n_ = n;
  fail_code_ = code;
}

void FakeApiServer::CloseWatches() {
  std::lock_guard<std::mutex> lock(mu_);
  ++close_generation_;
  cv_.notify_all();
}

void FakeApiServer::SendBookmarks() {
  std::lock_guard<std::mutex> lock(mu_);
  ++bookmark_generation_;
  cv_.notify_all();
}

void FakeApiServer::Forbid(const std::string& verb, const std::string& resource,
                           const std::string& user) {
  std::lock_guard<std::mutex> lock(mu_);
  forbidden_[verb + " " + resource] = user;
}

int FakeApiServer::BindCount(const std::string& pod_key) {
  std::lock_guard<std::mutex> lock(mu_);
  return binds_.count(pod_key) ? binds_[pod_key] : 0;
}

int FakeApiServer::TotalBinds() {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [k, v] : binds_) n += v;
  return n;
}

int FakeApiServer::EvictionCount(const std::string& pod_key) {
  std::lock_guard<std::mutex> lock(mu_);
  return evictions_.count(pod_key) ? evictions_[pod_key] : 0;
}

std::vector<Json> FakeApiServer::Events() {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

int FakeApiServer::open_watches() {
  std::lock_guard<std::mutex> lock(mu_);
  return open_watches_;
}

std::map<std::string, Json> FakeApiServer::SnapshotLocked(const Resource& res, int64_t rv) {
  std::map<std::string, Json> out;
  const std::string id = res.ApiVersion() + "/" + res.plural;
  for (const Change& c : history_) {
    if (c.rv > rv) break;
    if (c.plural != id) continue;
    if (c.type == "DELETED")
      out.erase(MetaKey(c.object));
    else
      out[MetaKey(c.object)] = c.object;
  }
  return out;
}

void FakeApiServer::SetHook(std::function<void(const FakeRequest&)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  hook_ = std::move(hook);
}

void FakeApiServer::Handle(const FakeRequest& req, FakeResponder& out) {
  std::function<void(const FakeRequest&)> hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = hook_;
  }
  if (hook) hook(req);
  std::unique_lock<std::mutex> lock(mu_);
  if (closing_) return out.Abort();
  if (fail_n_ > 0) {
    --fail_n_;
    if (fail_code_ == 429) {
      return out.Respond(
          429,
          StatusBody(429, "TooManyRequests", "Too many requests, please try again later.",
                     Json{{"retryAfterSeconds", 1}})
              .dump(),
          {{"Retry-After", "1"}});
    }
    return out.Respond(fail_code_,
                       StatusBody(fail_code_, "InternalError",
                                  "Internal error occurred: etcdserver: leader changed",
                                  Json{{"causes", {{{"message", "etcdserver: leader changed"}}}}})
                           .dump());
  }
  if (!token_.empty()) {
    auto auth = req.headers.find("authorization");
    if (auth == req.headers.end() || auth->second != "Bearer " + token_) {
      return out.Respond(401, FixtureBody("error-401-bad-token").dump());
    }
  }
  Route r;
  if (!Route_(req.path, &r)) {
    return out.Respond(
        404,
        StatusBody(404, "NotFound", "the server could not find the requested resource").dump());
  }
  const bool watch =
      req.query.count("watch") && (req.query.at("watch") == "true" || req.query.at("watch") == "1");
  std::string verb = req.method == "GET"     ? (r.name.empty() ? (watch ? "watch" : "list") : "get")
                     : req.method == "POST"  ? "create"
                     : req.method == "PUT"   ? "update"
                     : req.method == "PATCH" ? "patch"
                                             : "delete";
  std::string resource = r.res->plural + (r.sub.empty() ? "" : "/" + r.sub);
  if (req.method == "POST" && !r.name.empty()) resource = r.res->plural + "/" + r.sub;
  auto forbidden = forbidden_.find(verb + " " + resource);
  if (forbidden != forbidden_.end()) {
    std::string scope = r.ns.empty() ? "at the cluster scope" : "in the namespace \"" + r.ns + "\"";
    std::string subject =
        r.name.empty() ? r.res->Qualified() : r.res->Qualified() + " \"" + r.name + "\"";
    Json details = {{"kind", r.res->plural}};
    if (!r.name.empty()) details["name"] = r.name;
    if (!r.res->group.empty()) details["group"] = r.res->group;
    return out.Respond(403, StatusBody(403, "Forbidden",
                                       subject + " is forbidden: User \"" + forbidden->second +
                                           "\" cannot " + verb + " resource \"" + resource +
                                           "\" in API group \"" + r.res->group + "\" " + scope,
                                       details)
                                .dump());
  }
  if (req.method == "GET" && r.name.empty()) {
    if (watch) return Watch(r, req, out, lock);
    return ListLocked(r, req, out);
  }
  WriteLocked(r, req, out);
}

void FakeApiServer::ListLocked(const Route& r, const FakeRequest& req, FakeResponder& out) {
  const Resource& res = *r.res;
  int64_t snapshot = rv_;
  std::string start;
  int limit = 0;
  if (req.query.count("limit")) limit = std::stoi(req.query.at("limit"));
  if (req.query.count("resourceVersion") && req.query.at("resourceVersion") == "0")
    limit = 0;  // from the cache
  if (req.query.count("continue")) {
    // Our tokens are base64url JSON {"v","rv","start"}, like the real ones.
    auto parse = [&]() -> bool {
      const std::string& t = req.query.at("continue");
      std::string text;
      static const std::string tbl =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      uint32_t acc = 0;
      int bits = 0;
      for (char c : t) {
        auto p = tbl.find(c);
        if (p == std::string::npos) return false;
        acc = (acc << 6) | static_cast<uint32_t>(p);
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          text += static_cast<char>((acc >> bits) & 0xff);
        }
      }
      Json j = Json::parse(text, nullptr, false);
      if (!j.is_object() || !j["rv"].is_number_integer() || !j["start"].is_string()) return false;
      snapshot = j["rv"].get<int64_t>();
      start = j["start"].get<std::string>();
      return true;
    };
    if (!parse()) {
      return out.Respond(
          400,
          StatusBody(400, "BadRequest", "continue key is not valid: illegal base64 data").dump());
    }
    if (snapshot < compacted_) {
      Json body = FixtureBody("list-continue-expired-410");
      body["metadata"]["continue"] =
          Base64Url(Json{{"v", "meta.k8s.io/v1"}, {"rv", -1}, {"start", start}}.dump());
      return out.Respond(410, body.dump());
    }
  }
  std::map<std::string, Json> items = snapshot == rv_
                                          ? objects_[res.ApiVersion() + "/" + res.plural]
                                          : SnapshotLocked(res, snapshot);
  Json list = {{"kind", res.kind + "List"},
               {"apiVersion", res.ApiVersion()},
               {"metadata", {{"resourceVersion", std::to_string(snapshot)}}},
               {"items", Json::array()}};
  std::vector<const Json*> selected;
  for (const auto& [key, obj] : items) {
    if (!r.ns.empty() && Str(obj["metadata"], "namespace") != r.ns) continue;
    if (key < start) continue;
    selected.push_back(&obj);
  }
  size_t n =
      limit > 0 ? std::min<size_t>(static_cast<size_t>(limit), selected.size()) : selected.size();
  for (size_t i = 0; i < n; ++i) {
    Json item = *selected[i];
    if (!res.crd) {
      item.erase("kind");
      item.erase("apiVersion");
    }
    list["items"].push_back(std::move(item));
  }
  if (n < selected.size()) {
    list["metadata"]["continue"] = Base64Url(Json{
        {"v", "meta.k8s.io/v1"},
        {"rv", snapshot},
        {"start", MetaKey(*selected[n - 1]) +
                      std::string(1, '\0')}}.dump());
    list["metadata"]["remainingItemCount"] = selected.size() - n;
  } else if (res.crd) {
    list["metadata"]["continue"] = "";
  }
  out.Respond(200, list.dump());
}

void FakeApiServer::Watch(const Route& r, const FakeRequest& req, FakeResponder& out,
                          std::unique_lock<std::mutex>& lock) {
  const Resource& res = *r.res;
  const std::string id = res.ApiVersion() + "/" + res.plural;
  std::string rv_text = req.query.count("resourceVersion") ? req.query.at("resourceVersion") : "";
  const bool bookmarks =
      req.query.count("allowWatchBookmarks") && req.query.at("allowWatchBookmarks") == "true";
  int timeout =
      req.query.count("timeoutSeconds") ? std::stoi(req.query.at("timeoutSeconds")) : 1800;
  int64_t from = rv_text.empty() || rv_text == "0" ? rv_ : std::stoll(rv_text);
  if (from < compacted_) {
    std::string msg =
        "too old resource version: " + rv_text + " (" + std::to_string(compacted_) + ")";
    Json status = Json::parse(Json::parse(ReadFixtureText(
        "watch-pods-too-old-rv-error-event"))["response"]["body_lines"][0]
                                  .get<std::string>())["object"];
    status["message"] = msg;
    if (gone_as_http_) return out.Respond(410, status.dump());
    out.BeginStream(200);
    out.StreamLine(Json{{"type", "ERROR"}, {"object", status}}.dump());
    out.EndStream();
    return;
  }
  out.BeginStream(200);
  ++open_watches_;
  std::vector<std::string> lines;
  if (rv_text.empty() || rv_text == "0") {
    for (const auto& [key, obj] : objects_[id]) {
      if (r.ns.empty() || Str(obj["metadata"], "namespace") == r.ns) {
        lines.push_back(Json{{"type", "ADDED"}, {"object", obj}}.dump());
      }
    }
  }
  size_t idx = 0;
  while (idx < history_.size() && history_[idx].rv <= from) ++idx;
  int64_t sent = from;
  const int64_t close_gen = close_generation_;
  int64_t bm_gen = bookmark_generation_;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  auto bookmark = [&]() {
    Json obj = {{"kind", res.kind},
                {"apiVersion", res.ApiVersion()},
                {"metadata", {{"resourceVersion", std::to_string(rv_)}}}};
    if (res.kind == "Pod") {  // as recorded: a Pod bookmark carries these nulls
      obj["metadata"]["creationTimestamp"] = nullptr;
      obj["spec"] = {{"containers", nullptr}};
      obj["status"] = Json::object();
    }
    sent = rv_;
    return Json{{"type", "BOOKMARK"}, {"object", obj}}.dump();
  };
  bool end_clean = false, abort = false;
  while (true) {
    for (; idx < history_.size(); ++idx) {
      const Change& c = history_[idx];
      if (c.plural != id) continue;
      if (!r.ns.empty() && Str(c.object["metadata"], "namespace") != r.ns) continue;
      lines.push_back(Json{{"type", c.type}, {"object", c.object}}.dump());
      sent = c.rv;
    }
    if (bookmark_generation_ != bm_gen) {
      bm_gen = bookmark_generation_;
      if (bookmarks && rv_ > sent) lines.push_back(bookmark());
    }
    if (closing_ || close_generation_ != close_gen) abort = true;
    if (!abort && std::chrono::steady_clock::now() >= deadline) {
      if (bookmarks && rv_ > from) lines.push_back(bookmark());
      end_clean = true;
    }
    if (!lines.empty()) {
      std::vector<std::string> batch;
      batch.swap(lines);
      lock.unlock();
      bool ok = true;
      for (size_t i = 0; i < batch.size() && ok; ++i) ok = out.StreamLine(batch[i], i % 2 == 1);
      lock.lock();
      if (!ok) break;
    }
    if (abort) {
      out.Abort();
      break;
    }
    if (end_clean) {
      out.EndStream();
      break;
    }
    if (out.PeerClosed()) break;
    cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  --open_watches_;
}

void FakeApiServer::WriteLocked(const Route& r, const FakeRequest& req, FakeResponder& out) {
  const Resource& res = *r.res;
  auto& store = objects_[res.ApiVersion() + "/" + res.plural];
  const std::string key = KeyOf(r.ns, r.name);
  auto details = [&](const std::string& name) {
    Json d = {{"name", name}, {"kind", res.plural}};
    if (!res.group.empty()) d["group"] = res.group;
    return d;
  };
  auto not_found = [&](const std::string& name) {
    out.Respond(404, StatusBody(404, "NotFound", res.Qualified() + " \"" + name + "\" not found",
                                details(name))
                         .dump());
  };
  auto conflict = [&](const std::string& name) {
    out.Respond(
        409,
        StatusBody(409, "Conflict",
                   "Operation cannot be fulfilled on " + res.Qualified() + " \"" + name +
                       "\": the object has been modified; please apply your changes to the latest "
                       "version and try again",
                   details(name))
            .dump());
  };
  Json body = req.body.empty() ? Json() : Json::parse(req.body, nullptr, false);
  if (req.method == "POST" && r.name.empty()) {
    if (!body.is_object())
      return out.Respond(400, StatusBody(400, "BadRequest", "invalid body").dump());
    if (!r.ns.empty()) body["metadata"]["namespace"] = r.ns;
    std::string name = Str(body["metadata"], "name");
    if (name.empty() && !Str(body["metadata"], "generateName").empty()) {
      // As the API server: generateName plus five characters (here a counter,
      // so tests can predict nothing but the prefix and still get unique names).
      static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
      int64_t n = ++uid_seq_;
      std::string suffix;
      for (int i = 0; i < 5; ++i, n /= 27) suffix += kAlphabet[n % 27];
      name = Str(body["metadata"], "generateName") + suffix;
      body["metadata"]["name"] = name;
    }
    if (name.empty()) {
      return out.Respond(422, StatusBody(422, "Invalid",
                                         res.kind + ".metadata.name: Required value: name or "
                                                    "generateName is required")
                                  .dump());
    }
    if (res.group == "events.k8s.io") {
      for (const char* field :
           {"eventTime", "reportingController", "reportingInstance", "action"}) {
        if (Str(body, field).empty()) {
          return out.Respond(
              422, StatusBody(422, "Invalid",
                              "Event \"" + name + "\" is invalid: " + field + ": Required value",
                              Json{{"name", name},
                                   {"kind", "Event"},
                                   {"causes",
                                    {{{"reason", "FieldValueRequired"},
                                      {"message", "Required value"},
                                      {"field", field}}}}})
                       .dump());
        }
      }
    }
    if (store.count(MetaKey(body))) {
      return out.Respond(
          409, StatusBody(409, "AlreadyExists",
                          res.Qualified() + " \"" + name + "\" already exists", details(name))
                   .dump());
    }
    Json created = PutLocked(res, body, "ADDED");
    if (res.kind == "Event") events_.push_back(created);
    return out.Respond(201, created.dump());
  }
  if (r.res->plural == "pods" && r.sub == "binding" && req.method == "POST")
    return BindLocked(r, body, out);
  if (r.res->plural == "pods" && r.sub == "eviction" && req.method == "POST")
    return EvictLocked(r, body, out);
  if (req.method == "PATCH") {  // the media type is checked before the object is looked up
    std::string type = req.headers.count("content-type") ? req.headers.at("content-type") : "";
    if (type == "application/json")
      return out.Respond(415, FixtureBody("patch-plain-json-415").dump());
    if (type != "application/merge-patch+json" &&
        (type != "application/strategic-merge-patch+json" || res.crd)) {
      return out.Respond(415, FixtureBody("podgroup-patch-strategic-415").dump());
    }
  }
  if (!r.sub.empty() && (r.sub != "status" || !res.status_subresource)) return not_found(r.name);
  auto it = store.find(key);
  if (it == store.end()) return not_found(r.name);
  Json current = it->second;
  if (req.method == "GET") return out.Respond(200, current.dump());
  if (req.method == "DELETE") {
    store.erase(it);
    current["metadata"]["resourceVersion"] = std::to_string(++rv_);
    RecordLocked(res, "DELETED", current);
    return out.Respond(200, current.dump());
  }
  Json next;
  std::string sent_rv;
  if (req.method == "PUT") {
    if (!body.is_object())
      return out.Respond(400, StatusBody(400, "BadRequest", "invalid body").dump());
    next = body;
    sent_rv = Str(body["metadata"], "resourceVersion");
  } else if (req.method == "PATCH") {
    next = current;
    // (A strategic merge patch on a built-in type is applied as a merge patch:
    // enough for the scalar fields basalt patches.)
    MergePatch(next, body);
    if (body.contains("metadata")) sent_rv = Str(body["metadata"], "resourceVersion");
  } else {
    return out.Respond(405, StatusBody(405, "MethodNotAllowed", "method not allowed").dump());
  }
  if (!sent_rv.empty() && sent_rv != Str(current["metadata"], "resourceVersion"))
    return conflict(r.name);
  // What each endpoint may change.
  Json result = current;
  if (r.sub == "status") {
    result["status"] = next.contains("status") ? next["status"] : Json::object();
  } else {
    Json keep_meta = current["metadata"];
    result = next;
    for (const char* k :
         {"uid", "creationTimestamp", "resourceVersion", "generation", "namespace", "name"}) {
      if (keep_meta.contains(k)) result["metadata"][k] = keep_meta[k];
    }
    if (res.status_subresource) {  // status through the main resource is ignored
      if (current.contains("status"))
        result["status"] = current["status"];
      else
        result.erase("status");
    }
  }
  result["kind"] = res.kind;
  result["apiVersion"] = res.ApiVersion();
  if (result == current) return out.Respond(200, current.dump());  // no change: same RV
  bool bump_generation = res.crd && (res.status_subresource ? current.value("spec", Json()) !=
                                                                  result.value("spec", Json())
                                                            : true);
  if (bump_generation && r.sub != "status") {
    result["metadata"]["generation"] = current["metadata"].value("generation", 1) + 1;
  }
  result = PutLocked(res, result, "MODIFIED");
  out.Respond(200, result.dump());
}

void FakeApiServer::BindLocked(const Route& r, const Json& body, FakeResponder& out) {
  auto& store = objects_["v1/pods"];
  if (!body.is_object() || Str(body["metadata"], "name") != r.name) {
    return out.Respond(400, FixtureBody("error-400-binding-name-mismatch").dump());
  }
  auto it = store.find(KeyOf(r.ns, r.name));
  if (it == store.end()) {
    return out.Respond(404, StatusBody(404, "NotFound", "pods \"" + r.name + "\" not found",
                                       Json{{"name", r.name}, {"kind", "pods"}})
                                .dump());
  }
  Json pod = it->second;
  const Json bind_details = {{"name", r.name}, {"kind", "pods/binding"}};
  const std::string prefix =
      "Operation cannot be fulfilled on pods/binding \"" + r.name + "\": pod " + r.name;
  if (Deleting(pod)) {
    return out.Respond(
        409, StatusBody(409, "Conflict", prefix + " is being deleted, cannot be assigned to a host",
                        bind_details)
                 .dump());
  }
  std::string node = Str(pod["spec"], "nodeName");
  if (!node.empty()) {
    return out.Respond(
        409, StatusBody(409, "Conflict", prefix + " is already assigned to node \"" + node + "\"",
                        bind_details)
                 .dump());
  }
  std::string precondition = Str(body["metadata"], "resourceVersion");
  if (!precondition.empty() && precondition != Str(pod["metadata"], "resourceVersion")) {
    return out.Respond(
        409, StatusBody(409, "Conflict",
                        "Operation cannot be fulfilled on pods \"" + r.name +
                            "\": StorageError: invalid object, Code: 4, Key: /registry/pods/" +
                            r.ns + "/" + r.name +
                            ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
                            "ResourceVersion in precondition: " +
                            precondition + ", ResourceVersion in object meta: " +
                            Str(pod["metadata"], "resourceVersion"),
                        Json{{"name", r.name}, {"kind", "pods"}})
                 .dump());
  }
  pod["spec"]["nodeName"] = Str(body["target"], "name");
  Json& conds = pod["status"]["conditions"];
  if (!conds.is_array()) conds = Json::array();
  conds.push_back({{"type", "PodScheduled"},
                   {"status", "True"},
                   {"lastProbeTime", nullptr},
                   {"lastTransitionTime", Timestamp(uid_seq_)}});
  PutLocked(*r.res, pod, "MODIFIED");
  ++binds_[KeyOf(r.ns, r.name)];
  out.Respond(201, FixtureBody("binding-201").dump());
}

void FakeApiServer::EvictLocked(const Route& r, const Json& body, FakeResponder& out) {
  auto& store = objects_["v1/pods"];
  const std::string key = KeyOf(r.ns, r.name);
  auto it = store.find(key);
  if (it == store.end()) {
    return out.Respond(404, StatusBody(404, "NotFound", "pods \"" + r.name + "\" not found",
                                       Json{{"name", r.name}, {"kind", "pods"}})
                                .dump());
  }
  Json pod = it->second;
  const bool pending = Str(pod["spec"], "nodeName").empty();
  auto blocked = blocked_.find(key);
  if (!pending && blocked != blocked_.end()) {
    if (blocked->second > 0) {
      Json b = FixtureBody("eviction-429-pdb-not-processed");
      b["details"]["retryAfterSeconds"] = blocked->second;
      return out.Respond(429, b.dump(), {{"Retry-After", std::to_string(blocked->second)}});
    }
    return out.Respond(429, FixtureBody("eviction-429-pdb-violation").dump());
  }
  int grace = -1;
  if (body.is_object() && body.contains("deleteOptions") &&
      body["deleteOptions"].contains("gracePeriodSeconds")) {
    grace = body["deleteOptions"]["gracePeriodSeconds"].get<int>();
  }
  ++evictions_[key];
  if (pending || grace == 0) {
    store.erase(it);
    pod["metadata"]["resourceVersion"] = std::to_string(++rv_);
    RecordLocked(*r.res, "DELETED", pod);
  } else if (!Deleting(pod)) {
    pod["metadata"]["deletionTimestamp"] = Timestamp(uid_seq_ + 30);
    pod["metadata"]["deletionGracePeriodSeconds"] = grace < 0 ? 30 : grace;
    PutLocked(*r.res, pod, "MODIFIED");
  }
  out.Respond(201, FixtureBody("eviction-201-pending-pod").dump());
}

}  // namespace basalt::testing
