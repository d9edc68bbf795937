// Fuzz target: the colocation agent's configuration file
// (agent/agent_config.h), read by `basalt agent --config` and, inline, by the
// simulator's `colocation.agent`. Whatever the text, it parses or is refused
// with a message naming the file; a configuration that parses parses again
// the same from the same text (nothing depends on state left behind).
#include <cstddef>
#include <cstdint>
#include <string>

#include "agent/agent_config.h"
#include "api/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto config = basalt::agent::ParseAgentConfig(text, "fuzz.yaml");
  if (!config.ok()) {
    BASALT_CHECK(config.status().message().rfind("fuzz.yaml", 0) == 0)
        << "an error that does not name the file: " << config.status().message();
    return 0;
  }
  auto again = basalt::agent::ParseAgentConfig(text, "fuzz.yaml");
  BASALT_CHECK(again.ok() && *again == *config) << "the same text parsed differently";
  return 0;
}
