// Where `basalt job ...` and `basalt queue ...` read and write Volcano
// objects: the live API server (kubeconfig) or a folder of manifests
// (`--cluster DIR`). Both speak JSON objects exactly as the API server stores
// them, so the commands above print and build the same shapes either way.
//
// Folder semantics (the folder plays the API server's role):
//   - list/get read every *.yaml, *.yml and *.json file below DIR; the folder
//     is first checked with the manifest decoder (api/decode.h), so a bad
//     manifest is an error naming the file, line, object and field.
//   - create writes one new file `<kind>-[<namespace>-]<name>.yaml`; an object
//     of that kind, namespace and name already present is AlreadyExists.
//     `metadata.generateName` becomes a name with a five-character suffix
//     derived from the injected seed (the API server would pick it at random).
//   - delete removes the object's document from its file, and the file when
//     nothing else is left in it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

using Json = nlohmann::json;

// The kinds the commands touch.
enum class VcKind { kJob, kQueue, kCommand };

struct VcKindInfo {
  std::string api_version;  // "batch.volcano.sh/v1alpha1"
  std::string kind;         // "Job"
  std::string plural;       // "jobs"
  bool namespaced = true;
};
const VcKindInfo& KindInfo(VcKind kind);

class VcStore {
 public:
  virtual ~VcStore() = default;
  // Objects of `kind` in `ns` ("" = every namespace, and always for queues),
  // sorted by namespace then name.
  virtual Result<std::vector<Json>> List(VcKind kind, const std::string& ns) = 0;
  // One object; NotFound ("Job default/x not found") when absent.
  virtual Result<Json> Get(VcKind kind, const std::string& ns, const std::string& name) = 0;
  // Creates `obj` in `ns` (ignored for queues) and returns the stored object.
  virtual Result<Json> Create(VcKind kind, const std::string& ns, const Json& obj) = 0;
  virtual Status Delete(VcKind kind, const std::string& ns, const std::string& name) = 0;
  // "folder DIR" or "server URL", for messages.
  virtual std::string Describe() const = 0;
};

// How to reach the objects, from the common flags of every command.
struct StoreOptions {
  std::string cluster_dir;  // non-empty: the folder back end
  std::string kubeconfig;   // else $KUBECONFIG, else in-cluster
  std::string context;
  uint64_t seed = 0;  // folder back end: generated name suffixes
};

// The folder when `cluster_dir` is set, else the API server named by the
// kubeconfig. Errors (missing folder, bad kubeconfig) name the file and field.
Result<std::unique_ptr<VcStore>> OpenStore(const StoreOptions& options);

// The folder back end on its own (tests use it directly).
std::unique_ptr<VcStore> NewFolderStore(const std::string& dir, uint64_t seed);

// "Job default/x", "Queue q1": how messages name an object.
std::string ObjectLabel(VcKind kind, const std::string& ns, const std::string& name);

// The five-character suffix for `generate_name` from `seed` and `attempt`,
// drawn from the alphabet Kubernetes uses for generated names.
std::string GeneratedSuffix(uint64_t seed, const std::string& generate_name, int attempt);

}  // namespace basalt
