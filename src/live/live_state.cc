#include "live/live_state.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

#include "api/decode.h"
#include "kube/client.h"
#include "kube/http.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"

namespace basalt {

Status LoadLiveState(const std::string& kubeconfig, const std::string& context,
                     ClusterState* state) {
  // vcctl's loading rules (docs/cli.md).
  const std::string path = kube::KubeconfigPathAsVcctl(kubeconfig);
  auto config = path.empty() ? kube::InClusterConfig() : kube::LoadKubeconfig(path, context);
  if (!config.ok()) return config.status();
  kube::ClientOptions opt;
  opt.server = config->server;
  opt.bearer_token = config->token;
  opt.user_agent = "basalt/0.1.0";
  opt.max_attempts = 3;
  kube::CurlOptions curl;
  curl.tls = config->tls;
  kube::Client client(opt, std::make_unique<kube::CurlTransport>(curl));
  // As with manifests, a Queue named `default` exists unless the server has one.
  BASALT_RETURN_IF_ERROR(state->AddAll(ClusterObjects{}));
  kube::StateSink sink(state);
  for (const kube::InformerSpec& spec : kube::DefaultInformerSpecs()) {
    // explain reasons about scheduling: JobFlows only make jobs, which it lists.
    if (spec.kind == "JobFlow" || spec.kind == "JobTemplate" || spec.kind == "CronJob") continue;
    auto list = client.List(spec.path.Collection());
    if (!list.ok()) {
      if (list.error().code == 404) continue;  // not served: none of them
      return list.status().WithContext(config->server);
    }
    for (const auto& item : list->items) {
      Status s = sink.Apply(spec.kind, false, item);
      if (!s.ok()) return s.WithContext(config->server);
    }
  }
  return Status::Ok();
}

}  // namespace basalt
