// Fuzz target: an AdmissionReview body as the API server posts it to
// `basalt webhook` (live/admission_review.h). The input's first line names
// the endpoint ("/queues/validate", ...; an unknown path picks none and the
// input is skipped), the rest is the HTTP body. Anyone who can reach the
// webhook's port can send anything, so whatever the body, the review must
// answer 400 with a message or 200 with an AdmissionReview, never crash.
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/check.h"
#include "api/decode.h"
#include "live/admission_review.h"

namespace {

// A cluster with two Queues, a namespace and a small HyperNode tree, so the
// rules that look at the cluster (queue state, the HyperNode tree) run too.
class FixedLookup : public basalt::AdmissionLookup {
 public:
  FixedLookup() {
    basalt::ClusterObjects objects;
    basalt::Status st = basalt::DecodeText(kCluster, "fuzz-cluster.yaml", &objects);
    BASALT_CHECK(st.ok()) << st.message();
    queues_ = objects.queues;
    hypernodes_ = objects.hypernodes;
  }
  basalt::Result<std::vector<basalt::Queue>> Queues() override { return queues_; }
  std::optional<std::map<std::string, std::string>> NamespaceAnnotations(
      const std::string& ns) override {
    if (ns != "default") return std::nullopt;
    return std::map<std::string, std::string>{{"scheduling.volcano.sh/queue-name", "q1"}};
  }
  basalt::Result<std::vector<basalt::HyperNode>> HyperNodes() override { return hypernodes_; }

 private:
  static constexpr const char* kCluster = R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1}
spec: {weight: 1, capability: {cpu: "8"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: closed}
spec: {weight: 1}
status: {state: Closed}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack1}
spec: {tier: 1, members: [{type: Node, selector: {regexMatch: {pattern: "^r1-"}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine}
spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: rack1}}}]}
)";
  std::vector<basalt::Queue> queues_;
  std::vector<basalt::HyperNode> hypernodes_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FixedLookup lookup;
  std::string input(reinterpret_cast<const char*>(data), size);
  size_t eol = input.find('\n');
  if (eol == std::string::npos) return 0;
  const std::string path = input.substr(0, eol);
  for (const auto& [endpoint_path, endpoint] : basalt::WebhookEndpoints()) {
    if (endpoint_path != path) continue;
    basalt::AdmissionReply reply =
        basalt::ReviewAdmission(endpoint, input.substr(eol + 1), lookup, {});
    BASALT_CHECK(reply.http_status == 200 || reply.http_status == 400)
        << path << ": HTTP " << reply.http_status;
    if (reply.http_status == 200) {
      auto review = nlohmann::json::parse(reply.body, nullptr, false);
      BASALT_CHECK(review.is_object() && review.contains("response"))
          << path << ": a 200 reply that is no AdmissionReview: " << reply.body.substr(0, 200);
    }
  }
  return 0;
}
