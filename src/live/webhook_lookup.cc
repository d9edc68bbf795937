#include "live/webhook_lookup.h"

#include "api/decode.h"

namespace basalt {

Result<std::vector<Queue>> ClusterAdmissionLookup::Queues() {
  if (store_queues_) {
    if (std::optional<std::vector<Queue>> queues = store_queues_()) return std::move(*queues);
  }
  const std::string path = "/apis/scheduling.volcano.sh/v1beta1/queues";
  kube::ApiOr<kube::ListResult> list = client_->List(path);
  if (!list.ok()) return list.status();
  std::vector<Queue> out;
  for (const kube::Json& item : list.value().items) {
    ClusterObjects objs;
    std::string name = item.contains("metadata") && item["metadata"].is_object()
                           ? item["metadata"].value("name", std::string())
                           : std::string();
    Status s = DecodeText(item.dump(), "cluster:Queue/" + name, &objs);
    // A stored queue the decoder refuses cannot be a job's queue in basalt
    // either; it is left out rather than failing every admission.
    if (!s.ok()) continue;
    for (Queue& q : objs.queues) out.push_back(std::move(q));
  }
  return out;
}

Result<std::vector<HyperNode>> ClusterAdmissionLookup::HyperNodes() {
  kube::ApiOr<kube::ListResult> list =
      client_->List("/apis/topology.volcano.sh/v1alpha1/hypernodes");
  // The CRD not installed: there are none, and the reviewed one is the first.
  if (!list.ok() && list.error().code == 404) return std::vector<HyperNode>{};
  if (!list.ok()) return list.status();
  std::vector<HyperNode> out;
  for (const kube::Json& item : list.value().items) {
    ClusterObjects objs;
    // Stored HyperNodes the decoder refuses are left out, as queues are.
    if (!DecodeText(item.dump(), "cluster", &objs).ok()) continue;
    for (HyperNode& h : objs.hypernodes) {
      h.meta.source.clear();  // errors name it as "HyperNode <name>"
      out.push_back(std::move(h));
    }
  }
  return out;
}

std::optional<std::map<std::string, std::string>> ClusterAdmissionLookup::NamespaceAnnotations(
    const std::string& ns) {
  if (ns.empty()) return std::nullopt;
  kube::ApiOr<kube::Json> got = client_->Get("/api/v1/namespaces/" + ns);
  if (!got.ok()) return std::nullopt;
  const kube::Json& obj = got.value();
  std::map<std::string, std::string> out;
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return out;
  auto annotations = obj["metadata"].find("annotations");
  if (annotations == obj["metadata"].end() || !annotations->is_object()) return out;
  for (const auto& [k, v] : annotations->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

LiveWebhook::LiveWebhook(WebhookOptions options, std::unique_ptr<kube::Client> client,
                         ClusterAdmissionLookup::StoreQueues store_queues)
    : client_(std::move(client)),
      lookup_(client_.get(), std::move(store_queues)),
      server_(std::move(options), &lookup_) {}

}  // namespace basalt
