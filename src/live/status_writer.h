// Status writes in the background, latest wins, after the binds.
//
// What a cycle says about objects — a PodGroup's status, a Queue's allocated
// resources, a pending pod's PodScheduled condition, its nominatedNodeName —
// describes the *current* state, so only the newest word for each object
// matters. A cycle hands its words here and moves on; a few workers send
// them. Three rules keep the API server's work for these writes small and
// out of the way of binds:
//   - one write per object at a time, and a word that is replaced before it
//     is sent is never sent (a pod pending in one cycle and bound in the
//     next gets no "Unschedulable" condition at all);
//   - nothing is sent when the server already says the same (what we last
//     wrote, or what an informer showed us);
//   - while binds wait for a worker (`binds_waiting`), status writes wait:
//     on a busy server a bind is what the user waits for.
// A write that fails is forgotten, not retried here: the next cycle states the
// object's status again and it is sent then. A 404 means the object is gone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/metrics.h"

namespace basalt {

struct StatusWrite {
  std::string path;  // the API path the patch goes to
  nlohmann::json patch;
  std::string content_type;
  // What the write says, compared with what was last written (timestamps
  // left out, so the same status at another time is not a change).
  std::string text;
  std::string counter;  // metric counter incremented when it lands
};

class StatusWriter {
 public:
  // `workers` threads (at least one). `binds_waiting` (may be empty) says
  // whether binds are queued for a worker of their own.
  StatusWriter(kube::Client* client, kube::Metrics* metrics, int workers,
               std::function<bool()> binds_waiting);
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  // The object `key` should say `write.text`. Queued unless the server says
  // that already (or will, once the write on the wire lands); replaces a
  // queued write of the same key. False when nothing was queued.
  bool Put(const std::string& key, StatusWrite write);
  // The server holds `text` for `key` (an informer saw it): a queued write
  // saying the same is dropped, and later Puts of it are not sent.
  void Known(const std::string& key, const std::string& text);
  // The word about `key` no longer holds (the pod was bound, the object is
  // gone): a queued write is dropped and what was written is forgotten.
  void Forget(const std::string& key);

  // Writes queued or on the wire.
  size_t Pending();
  // Waits until nothing is queued or on the wire, at most `limit`.
  bool WaitIdle(std::chrono::milliseconds limit);
  // Sends what it can within `limit`, drops the rest, joins the workers.
  void Stop(std::chrono::milliseconds limit);

 private:
  void Work();
  void Send(const std::string& key, const StatusWrite& write);
  // What the server will say of `key` once the write on the wire lands.
  const std::string* Latest(const std::string& key) const;

  kube::Client* client_;
  kube::Metrics* metrics_;
  std::function<bool()> binds_waiting_;
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::map<std::string, StatusWrite> queued_;
  std::deque<std::string> order_;               // keys of queued_, oldest first
  std::map<std::string, std::string> sending_;  // key -> text on the wire
  std::map<std::string, std::string> written_;  // key -> text the server holds
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace basalt
