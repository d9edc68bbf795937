// Admission webhooks: AdmissionReview (admission.k8s.io/v1) in, AdmissionReview
// out (docs/webhooks.md).
//
// Validating endpoints run the rules of `basalt validate` (admission/admission.h)
// on the request's object, decoded by the manifest decoder, so a refusal says
// exactly what `basalt validate` prints for the same object, minus its
// `file:line: ` prefix:
//
//   Queue q1: spec.deserved.cpu: deserved should less equal than capability (...)
//
// Mutating endpoints apply Volcano's defaults as a JSON Patch computed from the
// request's JSON (not from the decoded object, so fields basalt does not model
// are left as they are).
//
// A body that is not an AdmissionReview gets HTTP 400 with a plain-text message;
// anything else gets 200 with `response.uid` echoing the request's. Nothing in
// a body can crash `ReviewAdmission`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/hypernode.h"
#include "api/objects.h"
#include "api/status.h"
#include "live/webhook_resource_groups.h"

namespace basalt {

// What the webhooks need from the cluster besides the object under review.
// Called from the server's worker threads: implementations are thread-safe.
class AdmissionLookup {
 public:
  virtual ~AdmissionLookup() = default;
  // Every Queue of the cluster. An error refuses the requests that need them.
  virtual Result<std::vector<Queue>> Queues() = 0;
  // The annotations of a namespace; nullopt when it cannot be read.
  virtual std::optional<std::map<std::string, std::string>> NamespaceAnnotations(
      const std::string& ns) = 0;
  // Every HyperNode of the cluster (none where the CRD is not installed). An
  // error refuses HyperNode requests.
  virtual Result<std::vector<HyperNode>> HyperNodes() = 0;
};

enum class WebhookEndpoint {
  kJobsValidate,
  kJobsMutate,
  kQueuesValidate,
  kQueuesMutate,
  kPodGroupsValidate,
  kPodGroupsMutate,
  kPodsValidate,
  kJobFlowsValidate,
  kJobTemplatesValidate,
  kHyperNodesValidate,
  kCronJobsValidate,
  kPodsMutate,
};

// Every endpoint with its HTTP path ("/jobs/validate", ...), in a fixed order.
const std::vector<std::pair<std::string, WebhookEndpoint>>& WebhookEndpoints();

struct AdmissionOptions {
  // Pods with another `spec.schedulerName` are admitted unchecked, and a
  // Job without `spec.schedulerName` gets this one.
  std::string scheduler_name = "volcano";
  // `/pods/mutate`: the resource groups of the admission configuration
  // (--admission-config); none: pods are admitted unchanged.
  std::vector<ResourceGroup> resource_groups;
};

struct AdmissionReply {
  int http_status = 200;
  std::string content_type = "application/json";
  std::string body;
};

AdmissionReply ReviewAdmission(WebhookEndpoint endpoint, const std::string& body,
                               AdmissionLookup& lookup, const AdmissionOptions& options);

}  // namespace basalt
