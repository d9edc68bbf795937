#include "live/status_writer.h"

#include "api/log.h"
#include "live/bind_pipeline.h"

namespace basalt {

StatusWriter::StatusWriter(kube::Client* client, kube::Metrics* metrics, int workers,
                           std::function<bool()> binds_waiting)
    : client_(client), metrics_(metrics), binds_waiting_(std::move(binds_waiting)) {
  metrics_->Counter("basalt_status_writes_dropped_total",
                    "Status writes replaced by a newer one, or dropped at shutdown, before they "
                    "were sent.");
  for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] { Work(); });
}

StatusWriter::~StatusWriter() { Stop(std::chrono::milliseconds(0)); }

const std::string* StatusWriter::Latest(const std::string& key) const {
  if (auto s = sending_.find(key); s != sending_.end()) return &s->second;
  if (auto w = written_.find(key); w != written_.end()) return &w->second;
  return nullptr;
}

bool StatusWriter::Put(const std::string& key, StatusWrite write) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return false;
  const std::string* latest = Latest(key);
  auto queued = queued_.find(key);
  if (latest && *latest == write.text) {
    if (queued != queued_.end()) {
      queued_.erase(queued);  // the server will say this without it
      metrics_->Inc("basalt_status_writes_dropped_total");
    }
    return false;
  }
  if (queued != queued_.end()) {
    if (queued->second.text != write.text) metrics_->Inc("basalt_status_writes_dropped_total");
    queued->second = std::move(write);
    return true;
  }
  queued_.emplace(key, std::move(write));
  // A key on the wire is queued again by its worker when the reply is in.
  if (!sending_.count(key)) {
    order_.push_back(key);
    wake_.notify_one();
  }
  return true;
}

void StatusWriter::Known(const std::string& key, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  written_[key] = text;
  auto queued = queued_.find(key);
  if (queued != queued_.end() && queued->second.text == text && !sending_.count(key)) {
    queued_.erase(queued);
    idle_.notify_all();
  }
}

void StatusWriter::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(key);
  if (queued_.erase(key)) {
    metrics_->Inc("basalt_status_writes_dropped_total");
    idle_.notify_all();
  }
}

size_t StatusWriter::Pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size() + sending_.size();
}

bool StatusWriter::WaitIdle(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_.wait_for(lock, limit, [this] { return queued_.empty() && sending_.empty(); });
}

void StatusWriter::Stop(std::chrono::milliseconds limit) {
  if (threads_.empty()) return;
  WaitIdle(limit);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (size_t i = 0; i < queued_.size(); ++i) metrics_->Inc("basalt_status_writes_dropped_total");
    queued_.clear();
    order_.clear();
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void StatusWriter::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !order_.empty(); });
    if (stopping_) return;
    // Binds first: while some wait for a worker, a status write would only
    // make them wait longer.
    WaitWhileBindsQueue(binds_waiting_, lock, stopping_);
    if (stopping_ || order_.empty()) continue;
    std::string key = std::move(order_.front());
    order_.pop_front();
    auto queued = queued_.find(key);
    if (queued == queued_.end() || sending_.count(key)) continue;  // dropped, or a duplicate
    StatusWrite write = std::move(queued->second);
    queued_.erase(queued);
    sending_[key] = write.text;
    lock.unlock();
    Send(key, write);
    lock.lock();
    sending_.erase(key);
    if (queued_.count(key)) {
      order_.push_back(key);
      wake_.notify_one();
    }
    idle_.notify_all();
  }
}

void StatusWriter::Send(const std::string& key, const StatusWrite& write) {
  auto r = client_->Patch(write.path, write.patch, write.content_type);
  if (r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    written_[key] = write.text;
    if (!write.counter.empty()) metrics_->Inc(write.counter);
    return;
  }
  const kube::ApiError& e = r.error();
  if (e.code == 404) return;  // deleted meanwhile: nothing to describe
  if (e.code == 0 && e.message.find("write withheld") != std::string::npos) return;
  Log("serve").warn("msg=\"status not written\" object={} error={}", LogValue(key),
                    LogValue(e.ToString()));
}

}  // namespace basalt
