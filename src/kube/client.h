// Typed Kubernetes API operations for basalt's `serve` front end.
//
// Error model. Every non-2xx reply of the API server carries a `v1 Status`
// whose `code` equals the HTTP status; the client turns it into an `ApiError`
// (HTTP code, `reason`, the server's `message`, the verb and the path) so a
// caller branches on `code`/`reason` and an operator reads the server's own
// words. Replies that mean something specific to one operation are *results*,
// not errors:
//
//   operation          reply                         result
//   bind               201                           kBound
//                      409 (details.kind pods/binding, "already assigned")  kAlreadyBound
//                      409 ("is being deleted")      kPodTerminating
//                      409 (details.kind pods: stale RV precondition)       kConflict
//                      404                           kPodGone
//   evict              201                           kEvicted
//                      429 (disruption budget)       kBlockedByBudget (+ retry-after)
//                      404                           kPodGone
//   lease create       201 / 409 AlreadyExists       kAcquired / kLostRace
//   lease update       200 / 409 Conflict            kAcquired / kLostRace
//   lease get          404                           nullopt (the lease is free)
//
// Retries. 429 and 5xx replies (and transport failures) are retried with
// exponential backoff, honouring `Retry-After`, at most `max_attempts` times
// in all — except where a retry would change the meaning: an eviction's 429
// is a budget verdict, returned at once. A retried bind whose first attempt
// did land gets 409 "already assigned" and is reported as kAlreadyBound, so a
// retry can never bind twice. 4xx other than 429 is never retried.
//
// Rate limiting. A token bucket (`qps`, `burst`) on an injectable clock spaces
// requests, as client-go does, so a burst of binds cannot flood the server.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "api/status.h"
#include "kube/http.h"
#include "kube/watch_line.h"

namespace basalt::kube {

using Json = nlohmann::json;

// Time source for backoff and rate limiting; tests use a manual one.
// "2026-11-22T06:27:53.123456Z" for the system clock's now (event and lease MicroTime fields).
std::string WallMicroTimeNow();

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point Now() = 0;
  virtual void SleepFor(std::chrono::milliseconds d) = 0;
};

// The process's steady clock and real sleeps.
class RealClock : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override { return std::chrono::steady_clock::now(); }
  void SleepFor(std::chrono::milliseconds d) override;
  static RealClock* Get();
};

// Token bucket: starts full with `burst` tokens, refills at `qps` per second.
// Thread-safe. `qps <= 0` disables limiting.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst, Clock* clock);
  // Takes one token, sleeping on the clock until one is available.
  void Acquire();
  // How long `Acquire` would wait now (for tests and metrics); takes nothing.
  std::chrono::milliseconds Delay();

 private:
  void RefillLocked(std::chrono::steady_clock::time_point now);
  double qps_;
  double burst_;
  Clock* clock_;
  std::mutex mu_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

// A failed API call.
struct ApiError {
  int code = 0;              // HTTP status; 0 when no reply arrived (transport failure)
  std::string reason;        // Status.reason ("Conflict", "Expired", "Forbidden", ...)
  std::string message;       // Status.message, or the transport's message
  std::string details_kind;  // Status.details.kind ("pods/binding" vs "pods" on a bind 409)
  std::string verb;
  std::string path;
  int retry_after_seconds = -1;  // from Retry-After or details.retryAfterSeconds

  bool IsGone() const { return code == 410; }
  bool IsConflict() const { return code == 409 && reason != "AlreadyExists"; }
  // "GET /api/v1/pods: 403 Forbidden: pods is forbidden: User ..."
  std::string ToString() const;
  // Status code mapping: 404 kNotFound; 409 AlreadyExists kAlreadyExists;
  // other 409, 410 kFailedPrecondition; 400/415/422 kInvalidArgument;
  // 401/403 kFailedPrecondition (not retryable, needs credentials or RBAC);
  // 0, 429, 5xx kUnavailable; anything else kInternal.
  Status ToStatus() const;
};

// A value or the `ApiError` explaining why there is none.
template <typename T>
class [[nodiscard]] ApiOr {
 public:
  ApiOr(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  ApiOr(ApiError error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return std::holds_alternative<T>(v_); }
  const ApiError& error() const { return std::get<ApiError>(v_); }
  Status status() const { return ok() ? Status::Ok() : error().ToStatus(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, ApiError> v_;
};

struct ClientOptions {
  std::string server;        // "https://host:port", no trailing slash needed
  std::string bearer_token;  // sent as "Authorization: Bearer ..." when non-empty
  std::string user_agent = "basalt";
  double qps = 50;  // client-go's defaults are 5/10; a scheduler binds in bursts
  int burst = 100;
  int max_attempts = 5;  // per call, including the first
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10000};
  std::chrono::milliseconds request_timeout{30000};
  Clock* clock = nullptr;  // null: RealClock
  // Observes every failed attempt (each retry too, and a watch refused or
  // ended by a non-410 ERROR) for metrics; called on the calling thread.
  std::function<void(const ApiError&)> on_error;
  // Asked before every attempt of a write (any verb but GET): false withholds
  // it and the call fails with code 0 and a "withheld" message. `basalt serve`
  // fences its writes with the lease here (kube/leader.h).
  std::function<bool()> may_write;
};

// One page-merged list: every item (with `kind`/`apiVersion` filled in, which
// built-in lists leave out) and the list's snapshot resourceVersion.
struct ListResult {
  std::string resource_version;
  std::vector<Json> items;
  int pages = 0;
  int relists = 0;  // restarts caused by an expired continue token
};

// WatchEventType and WatchEvent: kube/watch_line.h (the line decoder).

// Why a watch returned.
enum class WatchEnd {
  kClosed,   // the server ended the stream (timeoutSeconds) or it broke: re-watch from the last RV
  kGone,     // 410 (HTTP or ERROR event): relist
  kStopped,  // the callback returned false
};

struct WatchResult {
  WatchEnd end = WatchEnd::kClosed;
  std::string last_resource_version;  // last RV seen (event or bookmark)
  int events = 0;
  std::string message;  // for kGone: the server's message
};

enum class BindOutcome { kBound, kAlreadyBound, kPodTerminating, kConflict, kPodGone };
struct BindResult {
  BindOutcome outcome;
  std::string message;  // the server's message for anything but kBound
};

enum class EvictOutcome { kEvicted, kBlockedByBudget, kPodGone };
struct EvictResult {
  EvictOutcome outcome;
  std::string message;
  int retry_after_seconds = -1;  // kBlockedByBudget: when the server said so
};

enum class LeaseOutcome { kAcquired, kLostRace };
struct LeaseResult {
  LeaseOutcome outcome;
  Json lease;  // the stored lease on kAcquired
  std::string message;
};

// An Event about an object, written as events.k8s.io/v1 (or core/v1).
struct EventSpec {
  std::string namespace_;  // the regarding object's namespace ("default" for cluster-scoped)
  std::string regarding_api_version;  // "v1", "scheduling.volcano.sh/v1beta1"
  std::string regarding_kind;         // "Pod", "PodGroup"
  std::string regarding_name;
  std::string regarding_uid;
  std::string type;    // "Normal" / "Warning"
  std::string reason;  // "Scheduled", "FailedScheduling", ...
  std::string action;  // "Binding", "Scheduling", ...
  std::string note;
  std::string reporting_controller = "basalt";
  std::string reporting_instance;
  // MicroTime "2026-11-22T06:27:53.123456Z"; empty: now.
  std::string event_time;
};

// Where a resource lives: "/api/v1" + "pods", or "/apis/GROUP/VERSION" + plural.
struct ResourcePath {
  std::string prefix;  // "/api/v1", "/apis/scheduling.volcano.sh/v1beta1"
  std::string plural;  // "pods"
  // The list/watch path across all namespaces (or of a cluster-scoped resource).
  std::string Collection() const { return prefix + "/" + plural; }
  std::string Namespaced(const std::string& ns) const {
    return prefix + "/namespaces/" + ns + "/" + plural;
  }
  std::string Object(const std::string& ns, const std::string& name) const {
    return (ns.empty() ? Collection() : Namespaced(ns)) + "/" + name;
  }
};

class Client {
 public:
  Client(ClientOptions options, std::unique_ptr<HttpTransport> transport);

  // The raw call: rate-limited, retried per the policy above. A 2xx reply is
  // returned; anything else becomes an `ApiError`. `query` values are escaped.
  // `retry_429`: false for calls whose 429 is a verdict (eviction).
  ApiOr<HttpResponse> Call(const std::string& verb, const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& query = {},
                           const std::string& body = "", const std::string& content_type = "",
                           bool retry_429 = true);

  // GET of one object; 404 is an error with code 404.
  ApiOr<Json> Get(const std::string& path);

  // Lists `path` in pages of `limit` (0: unpaged), following `continue`. An
  // expired continue token (HTTP 410) restarts the list from scratch, at most
  // `max_relists` times. `extra_query`: selectors.
  ApiOr<ListResult> List(const std::string& path, int limit = 500,
                         const std::vector<std::pair<std::string, std::string>>& extra_query = {},
                         int max_relists = 3);

  // The same list, handed over a page at a time (`first_page` true again when
  // an expired continue token restarted it) instead of gathered: a caller
  // decodes and drops each page, so a list of 100,000 pods is never held
  // whole as JSON. The result carries the resourceVersion and counts, no items.
  ApiOr<ListResult> ListPages(
      const std::string& path, int limit,
      const std::function<void(std::vector<Json>& items, bool first_page)>& on_page,
      const std::vector<std::pair<std::string, std::string>>& extra_query = {},
      int max_relists = 3);

  // Watches `path` from `resource_version` with bookmarks, calling `on_event`
  // for ADDED/MODIFIED/DELETED/BOOKMARK (ERROR events end the watch: 410 as
  // kGone, others as an error). The stream is split on newlines with partial
  // lines buffered; a line that is not a watch event is an error (the watch is
  // abandoned and the caller re-watches), never a crash.
  ApiOr<WatchResult> Watch(const std::string& path, const std::string& resource_version,
                           int timeout_seconds,
                           const std::function<bool(const WatchEvent&)>& on_event);

  // POST pods/NAME/binding. Never retried on 409.
  ApiOr<BindResult> Bind(const std::string& ns, const std::string& pod, const std::string& node,
                         const std::string& pod_uid = "");
  // POST pods/NAME/eviction (policy/v1). `grace_period_seconds < 0`: the pod's own.
  ApiOr<EvictResult> Evict(const std::string& ns, const std::string& pod,
                           int grace_period_seconds = -1);

  // PUT of a whole PodGroup (which has no /status subresource): `podgroup`
  // must carry metadata.resourceVersion; a stale one gives a 409 error.
  ApiOr<Json> UpdatePodGroup(const Json& podgroup);
  // GET, `mutate`, PUT; on 409 refetch and try again, at most `max_attempts`
  // times. `mutate` returns false to give up (nothing to change).
  ApiOr<Json> UpdatePodGroupWithRetry(const std::string& ns, const std::string& name,
                                      const std::function<bool(Json&)>& mutate,
                                      int max_attempts = 5);
  // PATCH queues/NAME/status with a JSON merge patch `{"status": status}`
  // (CRDs refuse strategic merge patch with 415).
  ApiOr<Json> PatchQueueStatus(const std::string& name, const Json& status);
  // PATCH with an explicit patch content type.
  ApiOr<Json> Patch(const std::string& path, const Json& patch, const std::string& content_type);

  // Creates an events.k8s.io/v1 Event; if that API is absent (404 on the
  // group's path), falls back to a core/v1 Event once and remembers it.
  ApiOr<Json> CreateEvent(const EventSpec& event);

  // Leases (coordination.k8s.io/v1).
  ApiOr<std::optional<Json>> GetLease(const std::string& ns, const std::string& name);
  ApiOr<LeaseResult> CreateLease(const std::string& ns, const Json& lease);
  // PUT with the lease's metadata.resourceVersion.
  ApiOr<LeaseResult> UpdateLease(const std::string& ns, const Json& lease);

  Clock* clock() { return clock_; }

 private:
  std::string Url(const std::string& path,
                  const std::vector<std::pair<std::string, std::string>>& query) const;
  std::vector<std::pair<std::string, std::string>> BaseHeaders() const;
  std::chrono::milliseconds Backoff(int attempt, int retry_after_seconds) const;

  ClientOptions options_;
  std::unique_ptr<HttpTransport> transport_;
  Clock* clock_;
  RateLimiter limiter_;
  std::mutex mu_;
  bool core_events_only_ = false;  // guarded by mu_
};

// Parses a reply body as a v1 Status into `error` (reason, message,
// retryAfterSeconds); a body that is not a Status leaves the message as the
// (truncated) body text. Never throws.
void FillErrorFromBody(const std::string& body, ApiError* error);

// Percent-encodes a query component (RFC 3986 unreserved characters kept).
std::string QueryEscape(const std::string& s);

}  // namespace basalt::kube
