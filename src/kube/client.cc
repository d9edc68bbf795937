#include "kube/client.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <thread>

#include "kube/list_body.h"

namespace basalt::kube {
namespace {

// Reads a string member without ever throwing on a wrong type.
std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

const Json* Obj(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return nullptr;
  return &*it;
}

Json Parse(const std::string& body) {
  return Json::parse(body, nullptr, /*allow_exceptions=*/false);
}

bool Retryable(int code) { return code == 0 || code == 429 || code >= 500; }

std::string RfcSeconds(const std::string& micro) {
  // "2026-11-22T06:27:53.123456Z" -> "2026-11-22T06:27:53Z" (core/v1 Time).
  auto dot = micro.find('.');
  return dot == std::string::npos ? micro : micro.substr(0, dot) + "Z";
}

ApiError MakeError(int code, std::string message, std::string verb, std::string path) {
  ApiError e;
  e.code = code;
  e.message = std::move(message);
  e.verb = std::move(verb);
  e.path = std::move(path);
  return e;
}

}  // namespace

void RealClock::SleepFor(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }
RealClock* RealClock::Get() {
  static RealClock clock;
  return &clock;
}

RateLimiter::RateLimiter(double qps, int burst, Clock* clock)
    : qps_(qps),
      burst_(std::max(1, burst)),
      clock_(clock),
      tokens_(std::max(1, burst)),
      last_(clock->Now()) {}

void RateLimiter::RefillLocked(std::chrono::steady_clock::time_point now) {
  double elapsed = std::chrono::duration<double>(now - last_).count();
  if (elapsed > 0) {
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
}

std::chrono::milliseconds RateLimiter::Delay() {
  if (qps_ <= 0) return std::chrono::milliseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  RefillLocked(clock_->Now());
  if (tokens_ >= 1) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil((1 - tokens_) / qps_ * 1000)));
}

void RateLimiter::Acquire() {
  if (qps_ <= 0) return;
  std::chrono::milliseconds wait(0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    RefillLocked(clock_->Now());
    // Reserve the token now (possibly going negative) so concurrent callers
    // queue behind each other instead of all waking at once.
    tokens_ -= 1;
    if (tokens_ < 0)
      wait = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(-tokens_ / qps_ * 1000)));
  }
  if (wait.count() > 0) clock_->SleepFor(wait);
}

std::string ApiError::ToString() const {
  std::string s = verb + " " + path + ": ";
  if (code == 0) return s + "no response: " + message;
  s += std::to_string(code);
  if (!reason.empty()) s += " " + reason;
  if (!message.empty()) s += ": " + message;
  return s;
}

Status ApiError::ToStatus() const {
  std::string m = ToString();
  if (code == 404) return Status::NotFound(m);
  if (code == 409 && reason == "AlreadyExists") return Status::AlreadyExists(m);
  if (code == 409 || code == 410 || code == 401 || code == 403)
    return Status::FailedPrecondition(m);
  if (code == 400 || code == 415 || code == 422) return Status::InvalidArgument(m);
  if (Retryable(code)) return Status::Unavailable(m);
  return Status::Internal(m);
}

void FillErrorFromBody(const std::string& body, ApiError* error) {
  Json j = Parse(body);
  if (Str(j, "kind") == "Status") {
    error->reason = Str(j, "reason");
    error->message = Str(j, "message");
    if (const Json* d = Obj(j, "details")) {
      error->details_kind = Str(*d, "kind");
      auto it = d->find("retryAfterSeconds");
      if (it != d->end() && it->is_number_integer() && error->retry_after_seconds < 0) {
        error->retry_after_seconds =
            static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), 0, 3600));
      }
    }
    return;
  }
  // Not a Status (a proxy's HTML page, a protobuf body): keep a readable prefix.
  std::string text = body.substr(0, 200);
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  error->message = text;
}

std::string QueryEscape(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Client::Client(ClientOptions options, std::unique_ptr<HttpTransport> transport)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      clock_(options_.clock ? options_.clock : RealClock::Get()),
      limiter_(options_.qps, options_.burst, clock_) {
  while (!options_.server.empty() && options_.server.back() == '/') options_.server.pop_back();
}

std::string Client::Url(const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& query) const {
  std::string url = options_.server + path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    url += sep;
    url += QueryEscape(k) + "=" + QueryEscape(v);
    sep = '&';
  }
  return url;
}

std::vector<std::pair<std::string, std::string>> Client::BaseHeaders() const {
  std::vector<std::pair<std::string, std::string>> h = {{"Accept", "application/json"},
                                                        {"User-Agent", options_.user_agent}};
  if (!options_.bearer_token.empty())
    h.emplace_back("Authorization", "Bearer " + options_.bearer_token);
  return h;
}

std::chrono::milliseconds Client::Backoff(int attempt, int retry_after_seconds) const {
  // The server's Retry-After wins (bounded by max_backoff); otherwise
  // initial * 2^attempt, capped. No jitter: tests replay exact schedules, and
  // one scheduler process is not a thundering herd.
  if (retry_after_seconds >= 0) {
    return std::min(options_.max_backoff,
                    std::chrono::milliseconds(int64_t{retry_after_seconds} * 1000));
  }
  int64_t ms = options_.initial_backoff.count() << std::min(attempt, 20);
  return std::min(options_.max_backoff, std::chrono::milliseconds(ms));
}

ApiOr<HttpResponse> Client::Call(const std::string& verb, const std::string& path,
                                 const std::vector<std::pair<std::string, std::string>>& query,
                                 const std::string& body, const std::string& content_type,
                                 bool retry_429) {
  HttpRequest req;
  req.method = verb;
  req.url = Url(path, query);
  req.headers = BaseHeaders();
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", content_type);
  req.body = body;
  req.timeout = options_.request_timeout;
  ApiError err;
  int attempts = std::max(1, options_.max_attempts);
  const bool write = verb != "GET";
  auto withheld = [&] {
    ApiError e;
    e.verb = verb;
    e.path = path;
    e.message = "write withheld: this replica no longer holds a fresh lease, or is stopping";
    return e;
  };
  for (int attempt = 0; attempt < attempts; ++attempt) {
    // Asked before waiting for a token too: a withheld write never waits.
    if (write && options_.may_write && !options_.may_write()) return withheld();
    limiter_.Acquire();
    err = ApiError{};
    err.verb = verb;
    err.path = path;
    if (write && options_.may_write && !options_.may_write()) return withheld();
    Result<HttpResponse> r = transport_->Do(req);
    if (r.ok() && r->status >= 200 && r->status < 300) return std::move(r).value();
    if (!r.ok()) {
      err.code = 0;
      err.message = r.status().message();
    } else {
      err.code = r->status;
      std::string ra = r->Header("retry-after");
      if (!ra.empty() && std::all_of(ra.begin(), ra.end(), ::isdigit) && ra.size() < 6) {
        err.retry_after_seconds = std::stoi(ra);
      }
      FillErrorFromBody(r->body, &err);
      if (err.message.empty()) err.message = "HTTP " + std::to_string(err.code);
    }
    if (options_.on_error) options_.on_error(err);
    bool retry = Retryable(err.code) && !(err.code == 429 && !retry_429);
    if (!retry || attempt + 1 == attempts) break;
    clock_->SleepFor(Backoff(attempt, err.retry_after_seconds));
  }
  return err;
}

ApiOr<Json> Client::Get(const std::string& path) {
  auto r = Call("GET", path);
  if (!r.ok()) return r.error();
  Json j = Parse(r->body);
  if (!j.is_object()) return MakeError(r->status, "reply is not a JSON object", "GET", path);
  return j;
}

ApiOr<ListResult> Client::List(const std::string& path, int limit,
                               const std::vector<std::pair<std::string, std::string>>& extra_query,
                               int max_relists) {
  std::vector<Json> all;
  auto r = ListPages(
      path, limit,
      [&](std::vector<Json>& items, bool first_page) {
        if (first_page) all.clear();
        for (Json& item : items) all.push_back(std::move(item));
      },
      extra_query, max_relists);
  if (!r.ok()) return r.error();
  ListResult result = std::move(r).value();
  result.items = std::move(all);
  return result;
}

ApiOr<ListResult> Client::ListPages(
    const std::string& path, int limit,
    const std::function<void(std::vector<Json>& items, bool first_page)>& on_page,
    const std::vector<std::pair<std::string, std::string>>& extra_query, int max_relists) {
  ListResult result;
  std::string cont;
  // Safety valve against a server that hands out continue tokens forever.
  constexpr int kMaxPages = 100000;
  while (true) {
    std::vector<std::pair<std::string, std::string>> q = extra_query;
    if (limit > 0) q.emplace_back("limit", std::to_string(limit));
    if (!cont.empty()) q.emplace_back("continue", cont);
    auto r = Call("GET", path, q);
    if (!r.ok()) {
      if (r.error().IsGone() && !cont.empty() && result.relists < max_relists) {
        // The continue token outlived etcd's compaction. The Status offers a
        // token for an inconsistent remainder; a scheduler needs a consistent
        // snapshot, so start over (README: "On any 410 ... LIST again").
        int relists = result.relists + 1;
        result = ListResult{};
        result.relists = relists;
        cont.clear();
        continue;
      }
      return r.error();
    }
    Json page = ParseListBody(r->body);
    r->body.clear();
    r->body.shrink_to_fit();
    if (!page.is_object())
      return MakeError(r->status, "list reply is not a JSON object", "GET", path);
    ++result.pages;
    const Json* meta = Obj(page, "metadata");
    std::string rv = meta ? Str(*meta, "resourceVersion") : "";
    if (result.pages == 1) result.resource_version = rv;
    // Items of built-in lists have no kind/apiVersion; derive them from the list.
    std::string list_kind = Str(page, "kind");
    std::string item_kind = list_kind.size() > 4 && list_kind.ends_with("List")
                                ? list_kind.substr(0, list_kind.size() - 4)
                                : "";
    std::string api_version = Str(page, "apiVersion");
    std::vector<Json> items;
    auto found = page.find("items");
    if (found != page.end() && found->is_array()) {
      items.reserve(found->size());
      for (Json& item : *found) {
        if (!item.is_object()) continue;
        if (!item.contains("kind") && !item_kind.empty()) item["kind"] = item_kind;
        if (!item.contains("apiVersion") && !api_version.empty()) item["apiVersion"] = api_version;
        items.push_back(std::move(item));
      }
    }
    // Built-in lists omit `continue` on the last page; CRD lists send "".
    cont = meta ? Str(*meta, "continue") : "";
    on_page(items, result.pages == 1);
    if (cont.empty()) return result;
    if (result.pages >= kMaxPages) {
      return MakeError(r->status, "list did not end after " + std::to_string(kMaxPages) + " pages",
                       "GET", path);
    }
  }
}

ApiOr<WatchResult> Client::Watch(const std::string& path, const std::string& resource_version,
                                 int timeout_seconds,
                                 const std::function<bool(const WatchEvent&)>& on_event) {
  std::vector<std::pair<std::string, std::string>> q = {
      {"watch", "true"},
      {"allowWatchBookmarks", "true"},
      {"timeoutSeconds", std::to_string(timeout_seconds)}};
  if (!resource_version.empty()) q.insert(q.begin() + 1, {"resourceVersion", resource_version});
  HttpRequest req;
  req.method = "GET";
  req.url = Url(path, q);
  req.headers = BaseHeaders();
  // The server closes at timeoutSeconds; allow a margin before declaring the
  // connection dead (bookmarks come ~2 s before the end, but never count on them).
  req.timeout = std::chrono::milliseconds((int64_t{timeout_seconds} + 15) * 1000);

  WatchResult result;
  result.last_resource_version = resource_version;
  std::string buffer;
  int status = 0;
  std::string error_body;
  std::optional<ApiError> stream_error;

  limiter_.Acquire();
  auto on_headers = [&](int s, const std::map<std::string, std::string>&) { status = s; };
  auto handle_line = [&](std::string_view line) -> bool {
    Result<std::optional<WatchEvent>> decoded = DecodeWatchLine(line);
    if (!decoded.ok()) {
      stream_error = MakeError(200, decoded.status().message(), "GET", path);
      return false;
    }
    if (!decoded->has_value()) return true;  // a keep-alive blank line
    WatchEvent& ev = **decoded;
    const Json* obj = &ev.object;
    if (ev.type == WatchEventType::kError) {
      ApiError e = MakeError(200, "", "GET", path);
      FillErrorFromBody(obj->dump(), &e);
      auto code = obj->find("code");
      if (code != obj->end() && code->is_number_integer())
        e.code = static_cast<int>(code->get<int64_t>());
      if (options_.on_error) options_.on_error(e);
      if (e.code == 410) {
        result.end = WatchEnd::kGone;
        result.message = e.message;
      } else {
        stream_error = e;
      }
      return false;
    }
    if (!ev.resource_version.empty()) result.last_resource_version = ev.resource_version;
    ++result.events;
    if (!on_event(ev)) {
      result.end = WatchEnd::kStopped;
      return false;
    }
    return true;
  };
  auto on_data = [&](std::string_view chunk) -> bool {
    if (status < 200 || status >= 300) {
      if (error_body.size() < 65536) error_body.append(chunk.substr(0, 65536 - error_body.size()));
      return true;
    }
    // Chunks do not align with events: split on newlines, keep the tail.
    buffer.append(chunk);
    size_t start = 0;
    while (true) {
      size_t nl = buffer.find('\n', start);
      if (nl == std::string::npos) break;
      if (!handle_line(std::string_view(buffer).substr(start, nl - start))) return false;
      start = nl + 1;
    }
    buffer.erase(0, start);
    if (buffer.size() > kMaxWatchLine) {
      stream_error = MakeError(200, "watch event larger than 64 MiB", "GET", path);
      return false;
    }
    return true;
  };
  Result<int> r = transport_->Stream(req, on_headers, on_data);
  if (stream_error) {
    // (ERROR events were reported where they were read.)
    if (options_.on_error && stream_error->code == 200) options_.on_error(*stream_error);
    return *stream_error;
  }
  if (result.end != WatchEnd::kClosed) return result;  // kGone or kStopped
  if (!r.ok()) {
    // A broken stream: the events delivered so far stand; re-watch from the
    // last RV. Reported as kClosed so the informer resumes rather than relists.
    result.message = r.status().message();
    return result;
  }
  status = *r;
  if (status < 200 || status >= 300) {
    ApiError e = MakeError(status, "", "GET", path);
    FillErrorFromBody(error_body, &e);
    if (options_.on_error) options_.on_error(e);
    if (e.code == 410) {
      result.end = WatchEnd::kGone;
      result.message = e.message;
      return result;
    }
    return e;
  }
  // A last line without its newline (the server always sends one; be lenient).
  if (!buffer.empty()) {
    handle_line(buffer);
    if (stream_error) return *stream_error;
  }
  return result;
}

ApiOr<BindResult> Client::Bind(const std::string& ns, const std::string& pod,
                               const std::string& node, const std::string& pod_uid) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  std::string path = "/api/v1/namespaces/" + ns + "/pods/" + pod + "/binding";
  auto r = Call("POST", path, {}, binding.dump(), "application/json");
  if (r.ok()) return BindResult{BindOutcome::kBound, ""};
  const ApiError& e = r.error();
  if (e.code == 404) return BindResult{BindOutcome::kPodGone, e.message};
  if (e.code == 409) {
    // Three different 409s (README "Binding"): an already-assigned pod and a
    // terminating pod are final verdicts; a stale RV precondition is a conflict
    // the caller resolves by re-reading. None is retried here.
    if (e.message.find("is being deleted") != std::string::npos) {
      return BindResult{BindOutcome::kPodTerminating, e.message};
    }
    // details.kind is "pods" (not "pods/binding") for a failed precondition.
    if (e.details_kind == "pods") {
      return BindResult{BindOutcome::kConflict, e.message};
    }
    return BindResult{BindOutcome::kAlreadyBound, e.message};
  }
  return e;
}

ApiOr<EvictResult> Client::Evict(const std::string& ns, const std::string& pod,
                                 int grace_period_seconds) {
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (grace_period_seconds >= 0)
    eviction["deleteOptions"] = {{"gracePeriodSeconds", grace_period_seconds}};
  std::string path = "/api/v1/namespaces/" + ns + "/pods/" + pod + "/eviction";
  auto r = Call("POST", path, {}, eviction.dump(), "application/json", /*retry_429=*/false);
  if (r.ok()) return EvictResult{EvictOutcome::kEvicted, "", -1};
  const ApiError& e = r.error();
  if (e.code == 404) return EvictResult{EvictOutcome::kPodGone, e.message, -1};
  if (e.code == 429)
    return EvictResult{EvictOutcome::kBlockedByBudget, e.message, e.retry_after_seconds};
  return e;
}

ApiOr<Json> Client::UpdatePodGroup(const Json& podgroup) {
  const Json* meta = Obj(podgroup, "metadata");
  std::string ns = meta ? Str(*meta, "namespace") : "";
  std::string name = meta ? Str(*meta, "name") : "";
  if (ns.empty() || name.empty()) {
    return MakeError(0, "PodGroup without metadata.namespace/name", "PUT", "(podgroup)");
  }
  std::string path = "/apis/scheduling.volcano.sh/v1beta1/namespaces/" + ns + "/podgroups/" + name;
  auto r = Call("PUT", path, {}, podgroup.dump(), "application/json");
  if (!r.ok()) return r.error();
  Json j = Parse(r->body);
  if (!j.is_object()) return MakeError(r->status, "reply is not a JSON object", "PUT", path);
  return j;
}

ApiOr<Json> Client::UpdatePodGroupWithRetry(const std::string& ns, const std::string& name,
                                            const std::function<bool(Json&)>& mutate,
                                            int max_attempts) {
  std::string path = "/apis/scheduling.volcano.sh/v1beta1/namespaces/" + ns + "/podgroups/" + name;
  ApiError last = MakeError(0, "no attempt made", "PUT", path);
  for (int i = 0; i < std::max(1, max_attempts); ++i) {
    auto cur = Get(path);
    if (!cur.ok()) return cur.error();
    Json obj = std::move(cur).value();
    if (!mutate(obj)) return obj;
    auto r = UpdatePodGroup(obj);
    if (r.ok() || !r.error().IsConflict()) return r;
    last = r.error();
  }
  return last;
}

ApiOr<Json> Client::Patch(const std::string& path, const Json& patch,
                          const std::string& content_type) {
  auto r = Call("PATCH", path, {}, patch.dump(), content_type);
  if (!r.ok()) return r.error();
  Json j = Parse(r->body);
  if (!j.is_object()) return MakeError(r->status, "reply is not a JSON object", "PATCH", path);
  return j;
}

ApiOr<Json> Client::PatchQueueStatus(const std::string& name, const Json& status) {
  return Patch("/apis/scheduling.volcano.sh/v1beta1/queues/" + name + "/status",
               Json{{"status", status}}, "application/merge-patch+json");
}

ApiOr<Json> Client::CreateEvent(const EventSpec& ev) {
  std::string when = ev.event_time.empty() ? WallMicroTimeNow() : ev.event_time;
  // Unique per call; the server needs a name and generateName would require
  // a second round trip to learn it.
  static std::atomic<uint64_t> seq{0};
  std::string name = ev.regarding_name + "." +
                     std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()) +
                     "." + std::to_string(seq++);
  Json regarding = {{"apiVersion", ev.regarding_api_version},
                    {"kind", ev.regarding_kind},
                    {"name", ev.regarding_name},
                    {"namespace", ev.namespace_}};
  if (!ev.regarding_uid.empty()) regarding["uid"] = ev.regarding_uid;
  bool core_only;
  {
    std::lock_guard<std::mutex> lock(mu_);
    core_only = core_events_only_;
  }
  if (!core_only) {
    Json body = {{"apiVersion", "events.k8s.io/v1"},
                 {"kind", "Event"},
                 {"metadata", {{"name", name}, {"namespace", ev.namespace_}}},
                 {"eventTime", when},
                 {"reportingController", ev.reporting_controller},
                 {"reportingInstance",
                  ev.reporting_instance.empty() ? ev.reporting_controller : ev.reporting_instance},
                 {"action", ev.action},
                 {"reason", ev.reason},
                 {"note", ev.note},
                 {"type", ev.type},
                 {"regarding", regarding}};
    std::string path = "/apis/events.k8s.io/v1/namespaces/" + ev.namespace_ + "/events";
    auto r = Call("POST", path, {}, body.dump(), "application/json");
    if (r.ok()) return Parse(r->body);
    // 404 with reason NotFound and no namespace problem means the group is not
    // served (very old or trimmed clusters): use core/v1 from now on.
    if (!(r.error().code == 404 && r.error().message.find("namespaces \"") == std::string::npos)) {
      return r.error();
    }
    std::lock_guard<std::mutex> lock(mu_);
    core_events_only_ = true;
  }
  std::string ts = RfcSeconds(when);
  Json body = {{"apiVersion", "v1"},
               {"kind", "Event"},
               {"metadata", {{"name", name}, {"namespace", ev.namespace_}}},
               {"involvedObject", regarding},
               {"reason", ev.reason},
               {"message", ev.note},
               {"type", ev.type},
               {"source", {{"component", ev.reporting_controller}}},
               {"firstTimestamp", ts},
               {"lastTimestamp", ts},
               {"count", 1}};
  auto r = Call("POST", "/api/v1/namespaces/" + ev.namespace_ + "/events", {}, body.dump(),
                "application/json");
  if (!r.ok()) return r.error();
  return Parse(r->body);
}

ApiOr<std::optional<Json>> Client::GetLease(const std::string& ns, const std::string& name) {
  auto r = Get("/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + name);
  if (r.ok()) return std::optional<Json>(std::move(r).value());
  if (r.error().code == 404) return std::optional<Json>();
  return r.error();
}

ApiOr<LeaseResult> Client::CreateLease(const std::string& ns, const Json& lease) {
  auto r = Call("POST", "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases", {},
                lease.dump(), "application/json");
  if (r.ok()) return LeaseResult{LeaseOutcome::kAcquired, Parse(r->body), ""};
  if (r.error().code == 409) return LeaseResult{LeaseOutcome::kLostRace, Json(), r.error().message};
  return r.error();
}

ApiOr<LeaseResult> Client::UpdateLease(const std::string& ns, const Json& lease) {
  const Json* meta = Obj(lease, "metadata");
  std::string name = meta ? Str(*meta, "name") : "";
  if (name.empty()) return MakeError(0, "Lease without metadata.name", "PUT", "(lease)");
  auto r = Call("PUT", "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + name, {},
                lease.dump(), "application/json");
  if (r.ok()) return LeaseResult{LeaseOutcome::kAcquired, Parse(r->body), ""};
  if (r.error().code == 409) return LeaseResult{LeaseOutcome::kLostRace, Json(), r.error().message};
  return r.error();
}

std::string WallMicroTimeNow() {
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1000000));
  return buf;
}

}  // namespace basalt::kube
