// Events written in the background, so a cycle never waits for them.
//
// An Event is the cheapest thing basalt writes and the least urgent: a user
// reads it seconds later with `kubectl describe`. kube-scheduler's event
// broadcaster sends them from a goroutine of its own, from a bounded queue
// that drops what does not fit rather than slowing the scheduler; this is
// the same idea. The queue holds at most `capacity` events; a full queue
// drops the new one and counts it (`basalt_events_dropped_total`). Events
// still queued at `Stop` are dropped after its time limit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "kube/client.h"
#include "kube/metrics.h"

namespace basalt {

class EventWriter {
 public:
  // `metrics` gets basalt_events_total{reason} per event written and
  // basalt_events_dropped_total per event dropped.
  // While `binds_waiting` (may be empty) says binds are queued for a worker,
  // no event is sent: a bind is what the user waits for.
  EventWriter(kube::Client* client, kube::Metrics* metrics, size_t capacity = 4096,
              std::function<bool()> binds_waiting = {});
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  // Queues `event`; false when it was dropped (queue full, or stopping).
  bool Post(kube::EventSpec event);
  // Events queued or being written.
  size_t Pending();
  // Waits until nothing is queued or being written, at most `limit`.
  bool WaitIdle(std::chrono::milliseconds limit);
  // Writes what it can within `limit`, drops the rest, stops the thread.
  void Stop(std::chrono::milliseconds limit);

 private:
  void Work();

  kube::Client* client_;
  kube::Metrics* metrics_;
  size_t capacity_;
  std::function<bool()> binds_waiting_;
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::deque<kube::EventSpec> queued_;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace basalt
