// `basalt explain POD|JOB (--cluster DIR | --kubeconfig FILE) [--conf CONF]`:
// why a pod, a vcjob or a PodGroup is pending (docs/explain.md).
//
// The folder is loaded and the controllers synced as `basalt schedule` does;
// `--cycles N` first runs N-1 cycles with the world moving between them. Then
// the next session is explained (engine/explain_probe.h): the queue and its
// state, enqueue's answer and the plugin that refused, the gang's shortfall,
// each pending pod's node refusals grouped with counts, and what would let it
// run (the victims preempt or reclaim would take, or the capacity missing on
// the closest node). A vcjob whose PodGroup that session admits has no pods
// yet (the job controller creates them after admission): the cycle is run and
// the next one explained, up to three times.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/limits.h"
#include "api/status.h"
#include "engine/explain_report.h"

namespace CLI {
class App;
}

namespace basalt {

struct ExplainRequest {
  // "[KIND/][NAMESPACE/]NAME"; KIND is pod, job (vcjob) or podgroup (and their
  // short forms). Without KIND, a Pod of that name, else a vcjob, else a PodGroup.
  std::string target;
  std::string namespace_ = "default";  // when `target` names no namespace
  std::string conf_path;               // empty: Volcano's default configuration
  std::string conf_text;               // tests: configuration text instead of a file
  std::vector<std::string> cluster_paths;
  std::string cluster_text;  // tests: manifests instead of files
  // Without manifests: the live cluster, listed once through this kubeconfig
  // (empty: $KUBECONFIG, else ~/.kube/config, else the in-cluster service account).
  std::string kubeconfig;
  std::string context;
  int cycles = 1;      // explain the N-th session
  std::string now;     // RFC 3339 clock of the first cycle (as `basalt schedule --now`)
  std::string output;  // "" or "table" (text), "json", "yaml"
  InputLimits limits;  // --max-objects, --max-job-pods, --max-pods
};

// Loads everything, runs the cycles and explains the target. Errors name the
// file, object or flag (exit code 2), e.g. a target that does not exist.
Result<ExplainReport> RunExplain(const ExplainRequest& request);

// The report as the text `basalt explain` prints, and as its `-o json` document.
std::string ExplainText(const ExplainReport& report);
nlohmann::ordered_json ExplainJson(const ExplainReport& report);

// The `explain` subcommand, filling `request`; `RunExplainCommand` prints the
// report (or "basalt: <error>" on stderr) and returns the exit code.
CLI::App* AddExplainCommand(CLI::App& app, ExplainRequest* request);
int RunExplainCommand(const ExplainRequest& request);

// The exit code of a report: 0 when the target runs or will (Running, Bound,
// Pipelined, Completed), 1 when it waits (Pending, NotCreated,
// PodGroupMissing, NodeMissing, Ignored). Errors are 2 (input) and 3 (API
// server).
int ExplainExitCode(const ExplainReport& report);

}  // namespace basalt
