// Binds off the scheduling cycle: a cycle hands its binds to a pool of
// workers and moves on; the next cycle collects what came back.
//
// Why: a bind is one API round trip (a few milliseconds on a quiet server,
// much more on a busy one); a cycle that waited for thousands of them would
// stop deciding for the whole time, and new pods would wait behind it. As in
// kube-scheduler and Volcano, the cycle's decision is *assumed* at once (the
// serve loop shows the pod on its node to every later session) and the
// request runs in the background.
//
// Each worker takes the oldest queued bind, patches the pod's annotations
// first when the decision carries some (deviceshare's cards), sends
// `pods/NAME/binding`, and on a refused bind (409/404) re-reads the pod so the
// caller learns what the server holds. Nothing is ever retried here: a
// transport failure or 5xx after the client's own retries comes back as an
// error, and the caller decides again after a backoff (a bind that did land
// is then answered 409 "already assigned": never a second bind).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"

namespace basalt {

struct BindRequest {
  std::string pod;  // "ns/name"
  std::string uid;  // precondition: a pod recreated under the same name is not bound
  std::string node;
  std::map<std::string, std::string> annotations;  // patched onto the pod before the bind
  int64_t created = 0;  // the pod's creationTimestamp (seconds), for latency metrics
};

struct BindCompletion {
  BindRequest request;
  // Set when no verdict came back (no reply, 5xx, 403, a withheld write).
  std::optional<kube::ApiError> error;
  kube::BindOutcome outcome = kube::BindOutcome::kBound;
  std::string message;  // the server's words on a refused bind
  // After a refused bind: the pod as the server has it (nodeName, whether it
  // is terminating); `refreshed` false when the pod could not be read.
  bool refreshed = false;
  std::string server_node;
  bool server_deleting = false;
  // Timings for Volcano's bind-stage metrics: the annotation patch (when the
  // decision carried annotations; -1 when none was sent) and the bind call,
  // in seconds; `prebound_at` and `bound_at` are wall-clock seconds since the
  // epoch when each ended.
  double prebind_seconds = -1;
  double prebound_at = 0;
  double bind_seconds = 0;
  double bound_at = 0;
};

// For writers that go after the binds (events, status writes): returns once
// `binds_waiting` (may be empty) no longer says binds queue for a worker, or
// `stopping` is set; `lock` (held on entry and on return) is released while
// it waits, polling every 5 ms.
void WaitWhileBindsQueue(const std::function<bool()>& binds_waiting,
                         std::unique_lock<std::mutex>& lock, const bool& stopping);

class BindPipeline {
 public:
  // `workers` threads (at least one) send binds through `client`.
  BindPipeline(kube::Client* client, int workers);
  ~BindPipeline();
  BindPipeline(const BindPipeline&) = delete;
  BindPipeline& operator=(const BindPipeline&) = delete;

  // Queues a bind; false once stopping (the bind is not sent).
  bool Submit(BindRequest request);
  // The binds answered since the last call, in the order they finished.
  std::vector<BindCompletion> TakeCompleted();
  // Binds queued or on the wire.
  size_t InFlight();
  // Binds queued and waiting for a worker.
  size_t Waiting();
  // Waits until nothing is queued or on the wire, at most `limit`; true if so.
  bool WaitIdle(std::chrono::milliseconds limit);
  // Takes no more binds, drops those queued and not yet sent (they never
  // reached the server; returned so the caller can account for them) and
  // waits up to `limit` for those on the wire. Idempotent.
  std::vector<BindRequest> StopTaking(std::chrono::milliseconds limit);
  // StopTaking, then waits for the workers to finish their last request
  // (bounded by the client's request timeout, or cut by the transport's
  // cancel flag) and joins them.
  std::vector<BindRequest> Stop(std::chrono::milliseconds limit);

 private:
  void Work();
  BindCompletion Send(const BindRequest& request);

  kube::Client* client_;
  std::mutex mu_;
  std::condition_variable wake_;  // workers: a bind is queued, or stopping
  std::condition_variable idle_;  // waiters: a bind finished
  std::deque<BindRequest> queued_;
  size_t sending_ = 0;
  std::vector<BindCompletion> completed_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace basalt
