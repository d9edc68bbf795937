// Fuzz target: the manifest decoder (YAML and JSON, multi-document) and the
// store that receives its objects. Every input is user-supplied in
// `basalt schedule`, so any crash, hang or sanitizer report is a bug
// (docs/design.md, failure policy: nothing user-supplied may crash the process).
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/decode.h"
#include "state/cluster_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  basalt::ClusterObjects objects;
  basalt::Status s = basalt::DecodeText(text, "fuzz.yaml", &objects);
  if (!s.ok()) return 0;
  basalt::ClusterState state;
  (void)state.AddAll(std::move(objects));
  return 0;
}
