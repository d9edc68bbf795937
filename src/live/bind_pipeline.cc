#include "live/bind_pipeline.h"

#include <algorithm>
#include <chrono>

#include "live/render.h"

namespace basalt {

BindPipeline::BindPipeline(kube::Client* client, int workers) : client_(client) {
  for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] { Work(); });
}

BindPipeline::~BindPipeline() { Stop(std::chrono::milliseconds(0)); }

bool BindPipeline::Submit(BindRequest request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    queued_.push_back(std::move(request));
  }
  wake_.notify_one();
  return true;
}

std::vector<BindCompletion> BindPipeline::TakeCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BindCompletion> out;
  out.swap(completed_);
  return out;
}

size_t BindPipeline::InFlight() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size() + sending_;
}

void WaitWhileBindsQueue(const std::function<bool()>& binds_waiting,
                         std::unique_lock<std::mutex>& lock, const bool& stopping) {
  while (binds_waiting && !stopping) {
    lock.unlock();
    bool waiting = binds_waiting();
    if (waiting) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    lock.lock();
    if (!waiting) return;
  }
}

size_t BindPipeline::Waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size();
}

bool BindPipeline::WaitIdle(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_.wait_for(lock, limit, [this] { return queued_.empty() && sending_ == 0; });
}

std::vector<BindRequest> BindPipeline::Stop(std::chrono::milliseconds limit) {
  std::vector<BindRequest> dropped = StopTaking(limit);
  for (auto& t : threads_) t.join();
  threads_.clear();
  return dropped;
}

std::vector<BindRequest> BindPipeline::StopTaking(std::chrono::milliseconds limit) {
  std::vector<BindRequest> dropped;
  {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    dropped.assign(std::make_move_iterator(queued_.begin()),
                   std::make_move_iterator(queued_.end()));
    queued_.clear();
    idle_.wait_for(lock, limit, [this] { return sending_ == 0; });
  }
  wake_.notify_all();
  return dropped;
}

void BindPipeline::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping, nothing left to send
    BindRequest request = std::move(queued_.front());
    queued_.pop_front();
    ++sending_;
    lock.unlock();
    BindCompletion done = Send(request);
    lock.lock();
    --sending_;
    completed_.push_back(std::move(done));
    idle_.notify_all();
  }
}

namespace {

double WallNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

BindCompletion BindPipeline::Send(const BindRequest& request) {
  BindCompletion done;
  done.request = request;
  auto [ns, name] = SplitKey(request.pod);
  const std::string pod_path = "/api/v1/namespaces/" + ns + "/pods/" + name;
  // The cards a device plugin reads (deviceshare) go onto the pod before the
  // bind, as Volcano patches them; a failed patch skips the bind.
  if (!request.annotations.empty()) {
    const auto start = std::chrono::steady_clock::now();
    auto patched =
        client_->Patch(pod_path, kube::Json{{"metadata", {{"annotations", request.annotations}}}},
                       "application/strategic-merge-patch+json");
    if (!patched.ok()) {
      done.error = patched.error();
      return done;
    }
    done.prebind_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    done.prebound_at = WallNow();
  }
  const auto start = std::chrono::steady_clock::now();
  auto bound = client_->Bind(ns, name, request.node, request.uid);
  if (!bound.ok()) {
    done.error = bound.error();
    return done;
  }
  done.bind_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  done.bound_at = WallNow();
  done.outcome = bound->outcome;
  done.message = bound->message;
  if (done.outcome == kube::BindOutcome::kBound) return done;
  // Refused: the server knows better. Read the pod so the caller can take it
  // as it is there (bound elsewhere, terminating, gone).
  auto got = client_->Get(pod_path);
  if (!got.ok()) return done;  // 404: the informer's DELETED follows
  const kube::Json& pod = *got;
  done.refreshed = true;
  if (auto spec = pod.find("spec"); spec != pod.end() && spec->is_object()) {
    if (auto n = spec->find("nodeName"); n != spec->end() && n->is_string())
      done.server_node = n->get<std::string>();
  }
  if (auto meta = pod.find("metadata"); meta != pod.end() && meta->is_object()) {
    auto ts = meta->find("deletionTimestamp");
    done.server_deleting = ts != meta->end() && !ts->is_null();
  }
  return done;
}

}  // namespace basalt
