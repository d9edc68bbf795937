// The manifests a command reads (`--cluster`, `validate`'s paths), loaded by
// one function for `basalt validate`, `schedule` and `explain`, so the same
// input is accepted or refused by each with the same message:
//   - every file is read (api/file_text.h: size limit, no binary) and
//     decoded; each file's first error is reported, all files' together;
//   - an input holding no object at all (an empty folder, a folder of
//     *.txt, /dev/null, a whitespace-only file) is refused: a mistyped path
//     must not "succeed" with an empty cluster;
//   - the input limits (api/limits.h) and the store's rules (a name twice,
//     a JobFlow without its JobTemplate, the HyperNode tree) are checked.
// What each command does next differs on purpose: `validate` reports every
// admission problem, `schedule` and `explain` refuse only what could never
// exist in a cluster and warn about the rest (docs/validate.md).
#pragma once

#include <string>
#include <vector>

#include "api/decode_files.h"
#include "api/limits.h"

namespace basalt {

struct ClusterInput {
  std::vector<std::string> paths;  // files or folders (*.yaml, *.yml, *.json)
  std::string text;                // manifests given inline (tests), decoded after the paths
  std::string text_source = "(inline)";
  InputLimits limits;
};

struct LoadedCluster {
  ClusterObjects objects;
  // What stops the load, one line each ("file: why"); empty when loaded.
  std::vector<std::string> errors;
  // What the commands print as warnings and go on: a pod or vcjob task
  // requesting a resource no node has ("nvidia.com/gpus"), with the closest
  // name the nodes do have.
  std::vector<std::string> warnings;
};

LoadedCluster LoadClusterInput(const ClusterInput& input);

// The errors as one Status (lines joined by "\n"), for the commands that stop
// at the first; Ok when there are none.
Status LoadErrorsStatus(const std::vector<std::string>& errors);

}  // namespace basalt
