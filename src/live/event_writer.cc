#include "live/event_writer.h"

#include "api/log.h"
#include "live/bind_pipeline.h"

namespace basalt {

EventWriter::EventWriter(kube::Client* client, kube::Metrics* metrics, size_t capacity,
                         std::function<bool()> binds_waiting)
    : client_(client),
      metrics_(metrics),
      capacity_(capacity),
      binds_waiting_(std::move(binds_waiting)) {
  metrics_->Counter("basalt_events_total", "Events written.", {"reason"});
  metrics_->Counter("basalt_events_dropped_total",
                    "Events not written: the queue was full, or basalt was stopping.");
  thread_ = std::thread([this] { Work(); });
}

EventWriter::~EventWriter() { Stop(std::chrono::milliseconds(0)); }

bool EventWriter::Post(kube::EventSpec event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queued_.size() >= capacity_) {
      metrics_->Inc("basalt_events_dropped_total");
      return false;
    }
    queued_.push_back(std::move(event));
  }
  wake_.notify_one();
  return true;
}

size_t EventWriter::Pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size() + (writing_ ? 1 : 0);
}

bool EventWriter::WaitIdle(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_.wait_for(lock, limit, [this] { return queued_.empty() && !writing_; });
}

void EventWriter::Stop(std::chrono::milliseconds limit) {
  if (!thread_.joinable()) return;
  WaitIdle(limit);
  size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    dropped = queued_.size();
    queued_.clear();
  }
  for (size_t i = 0; i < dropped; ++i) metrics_->Inc("basalt_events_dropped_total");
  wake_.notify_all();
  thread_.join();
}

void EventWriter::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;
    WaitWhileBindsQueue(binds_waiting_, lock, stopping_);
    if (queued_.empty()) continue;  // dropped by Stop meanwhile
    kube::EventSpec event = std::move(queued_.front());
    queued_.pop_front();
    writing_ = true;
    lock.unlock();
    auto r = client_->CreateEvent(event);
    if (r.ok()) {
      metrics_->Inc("basalt_events_total", {event.reason});
    } else if (r.error().code == 0 &&
               r.error().message.find("write withheld") != std::string::npos) {
      // Not leading any more, or stopping: the events of a cycle that no
      // longer counts are dropped, not reported one by one.
      metrics_->Inc("basalt_events_dropped_total");
    } else if (r.error().code != 404 &&
               r.error().message.find("being terminated") == std::string::npos) {
      // 404, or 403 "namespace is being terminated": the object's namespace
      // is going away; nothing to tell and no one to tell it to.
      Log("serve").warn(
          "msg=\"event not written\" reason={} object={} error={}", event.reason,
          LogValue(event.regarding_kind + "/" + event.namespace_ + "/" + event.regarding_name),
          LogValue(r.error().ToString()));
    }
    lock.lock();
    writing_ = false;
    idle_.notify_all();
  }
}

}  // namespace basalt
