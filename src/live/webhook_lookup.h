// Where the admission webhooks get the cluster's Queues, HyperNodes and namespaces
// (live/admission_review.h), and the bundle `basalt serve` starts.
//
// Queues come from `store_queues` when it has them — in `serve`, the
// informers' store once every informer has synced, so an admission costs no
// API call — and otherwise from a LIST on the API server for each request
// (`basalt webhook`, and `serve` before its informers sync). Listing per
// request is the simplest correct choice for a process that keeps no store:
// nothing can be stale and nothing must sync before the first answer, and
// admissions of Jobs, Queues and PodGroups are rare next to a LIST's cost.
// Namespaces (for a PodGroup's default queue) are read with a GET each time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "kube/client.h"
#include "live/admission_review.h"
#include "live/webhook_server.h"

namespace basalt {

class ClusterAdmissionLookup : public AdmissionLookup {
 public:
  // The queues of a store, or nullopt while it cannot answer (not synced).
  using StoreQueues = std::function<std::optional<std::vector<Queue>>()>;

  // `client` must outlive the lookup and be safe to share between threads.
  explicit ClusterAdmissionLookup(kube::Client* client, StoreQueues store_queues = nullptr)
      : client_(client), store_queues_(std::move(store_queues)) {}

  Result<std::vector<Queue>> Queues() override;
  std::optional<std::map<std::string, std::string>> NamespaceAnnotations(
      const std::string& ns) override;
  // Listed for each review: HyperNode admissions are rare.
  Result<std::vector<HyperNode>> HyperNodes() override;

 private:
  kube::Client* client_;
  StoreQueues store_queues_;
};

// The webhooks of `basalt serve`: an API client of their own, the lookup and
// the HTTPS server, started and stopped together.
class LiveWebhook {
 public:
  LiveWebhook(WebhookOptions options, std::unique_ptr<kube::Client> client,
              ClusterAdmissionLookup::StoreQueues store_queues);
  Status Start() { return server_.Start(); }
  void Stop() { server_.Stop(); }
  int port() const { return server_.port(); }

 private:
  std::unique_ptr<kube::Client> client_;
  ClusterAdmissionLookup lookup_;
  WebhookServer server_;
};

}  // namespace basalt
