// A stateful, in-memory imitation of kube-apiserver v1.26 for `basalt serve`
// tests, on top of the loopback FakeKubeServer. It keeps objects, one global
// resourceVersion counter (as etcd's revision) and the history of every write,
// and answers the way the recorded server did (tests/kube_fixtures/README.md):
//
//   - LIST with limit/continue: pages of one snapshot (served from history),
//     the same list RV on every page, no kind on built-in items, `continue`
//     absent (built-in) or "" (CRD) on the last page; resourceVersion=0 ignores
//     the limit. A continue token older than the compaction: HTTP 410.
//   - WATCH from an RV: every change after it, then live events, BOOKMARKs
//     (on request and before timeoutSeconds ends the stream), resourceVersion=0
//     starts with synthetic ADDEDs. An RV older than the compaction: 410 as an
//     ERROR event (like the watch cache) or as HTTP 410 (`SetGoneAsHttp`).
//   - PUT / merge-patch with resourceVersion: 409 "the object has been
//     modified" when stale; PodGroup has no /status (404), Queue /status
//     changes only status, a status change on the main Queue is ignored;
//     strategic merge patch on a CRD: 415; a write that changes nothing keeps
//     the RV.
//   - pods/binding: 201, 409 already assigned, 409 being deleted, 404, 400 name
//     mismatch. pods/eviction: 201 (pending or grace 0: deleted; otherwise
//     terminating), 429 from a blocking budget (with or without Retry-After),
//     404. Leases: 404 / 201 / 409 AlreadyExists / 409 Conflict.
//   - Auth: a wrong bearer token gets 401; `Forbid` makes a verb 403.
//
// Error bodies are the recorded Status bodies with the names substituted; a
// test (KubeFakeApiServerTest) checks the fake against the recordings.
//
// Fault injection: `FailNext` (500/429 for the next N requests), `CloseWatches`
// (streams cut mid-way, no final chunk), `Stop` + `Start(port)` (a restart
// that keeps the storage, like etcd surviving an apiserver restart).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kube_fake_server.h"

namespace basalt::testing {

using Json = nlohmann::json;

class FakeApiServer {
 public:
  FakeApiServer();
  ~FakeApiServer();
  bool Start(int port = 0);
  // Cuts every connection (open watches end without their final chunk) and
  // closes the listener; the storage survives for a restart on `port()`.
  void Stop();
  std::string url() const { return http_.url(); }
  int port() const { return port_; }
  FakeKubeServer& http() { return http_; }

  // ---- storage, test side (no auth, no faults) ----
  // Creates or replaces `obj` (kind, apiVersion, metadata.name[, namespace]);
  // assigns resourceVersion, uid and creationTimestamp; records ADDED/MODIFIED.
  Json Put(Json obj);
  // Deletes (records DELETED with a new RV). False when absent.
  bool Delete(const std::string& kind, const std::string& ns, const std::string& name);
  std::optional<Json> Get(const std::string& kind, const std::string& ns, const std::string& name);
  std::vector<Json> List(const std::string& kind);
  int64_t resource_version();

  // ---- behaviour ----
  // Every RV so far becomes too old (watches from before it and continue
  // tokens of older snapshots get 410).
  void Compact();
  void SetGoneAsHttp(bool http) {
    std::lock_guard<std::mutex> l(mu_);
    gone_as_http_ = http;
  }
  // Evictions of `pod_key` ("ns/name") get 429: with Retry-After when
  // `retry_after_seconds` > 0 (budget not processed yet), else the violation.
  void BlockEviction(const std::string& pod_key, int retry_after_seconds);
  void UnblockEviction(const std::string& pod_key);
  // The next `n` requests (lists, watches and writes alike) get `code`
  // (500 or 429 with Retry-After: 1).
  void FailNext(int n, int code);
  // Ends every open watch stream abruptly (no final chunk).
  void CloseWatches();
  // Every open watch receives a BOOKMARK with the current RV.
  void SendBookmarks();
  // Requests without "Authorization: Bearer <token>" get 401.
  void RequireToken(const std::string& token) {
    std::lock_guard<std::mutex> l(mu_);
    token_ = token;
  }
  // "create pods/binding", "list pods", ...: 403 for `user`.
  void Forbid(const std::string& verb, const std::string& resource, const std::string& user);
  // Runs before each request is handled (outside the lock, so it may call
  // Put/Delete): a test makes a concurrent writer win a race with it.
  void SetHook(std::function<void(const FakeRequest&)> hook);

  // ---- observation ----
  // Successful bindings of a pod (a correct scheduler never makes 2).
  int BindCount(const std::string& pod_key);
  int TotalBinds();
  int EvictionCount(const std::string& pod_key);
  std::vector<Json> Events();
  int open_watches();

 private:
  struct Resource {
    std::string group, version, plural, kind;
    bool namespaced = true, crd = false, status_subresource = false;
    std::string Qualified() const { return group.empty() ? plural : plural + "." + group; }
    std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  };
  struct Change {
    int64_t rv;
    std::string plural;
    std::string type;  // ADDED, MODIFIED, DELETED
    Json object;
  };
  struct Route {
    const Resource* res = nullptr;
    std::string ns, name, sub;
  };

  void Handle(const FakeRequest& req, FakeResponder& out);
  bool Route_(const std::string& path, Route* route);
  const Resource* ByKind(const std::string& kind);
  // All under mu_:
  Json PutLocked(const Resource& res, Json obj, const char* type);
  void RecordLocked(const Resource& res, const std::string& type, const Json& obj);
  std::map<std::string, Json> SnapshotLocked(const Resource& res, int64_t rv);
  void ListLocked(const Route& r, const FakeRequest& req, FakeResponder& out);
  void Watch(const Route& r, const FakeRequest& req, FakeResponder& out,
             std::unique_lock<std::mutex>& lock);
  void WriteLocked(const Route& r, const FakeRequest& req, FakeResponder& out);
  void BindLocked(const Route& r, const Json& body, FakeResponder& out);
  void EvictLocked(const Route& r, const Json& body, FakeResponder& out);

  FakeKubeServer http_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Resource> resources_;
  std::map<std::string, std::map<std::string, Json>> objects_;  // plural -> "ns/name" -> object
  std::vector<Change> history_;
  int64_t rv_ = 100;
  int64_t compacted_ = 0;
  int64_t uid_seq_ = 0;
  bool gone_as_http_ = false;
  bool closing_ = false;
  int64_t close_generation_ = 0;
  int64_t bookmark_generation_ = 0;
  int fail_n_ = 0;
  int fail_code_ = 0;
  std::string token_;
  std::map<std::string, std::string> forbidden_;  // "verb resource" -> user
  std::map<std::string, int> blocked_;            // pod key -> retry-after (<= 0: none)
  std::map<std::string, int> binds_;
  std::map<std::string, int> evictions_;
  std::vector<Json> events_;
  int open_watches_ = 0;
  std::function<void(const FakeRequest&)> hook_;
};

}  // namespace basalt::testing
