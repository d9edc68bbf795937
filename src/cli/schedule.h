// `basalt schedule`: one-shot scheduling of a folder of manifests, decisions as
// JSON (the contract in docs/schedule.md; tests outside this repository depend on the
// exact shape).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/limits.h"
#include "api/resource.h"
#include "api/status.h"

namespace basalt {

class ActionRegistry;
class PluginRegistry;

// Exit codes of `basalt schedule` (docs/schedule.md).
inline constexpr int kScheduleExitOk = 0;
inline constexpr int kScheduleExitBadInput = 2;           // manifest, configuration, command line
inline constexpr int kScheduleExitInvariantViolated = 3;  // --check-invariants found a violation

struct ScheduleRequest {
  // Scheduler configuration text; empty = Volcano's default configuration.
  std::string conf_text;
  std::string conf_source = "(default configuration)";
  // Manifests: files/folders, and/or inline text (tests).
  std::vector<std::string> cluster_paths;
  std::string cluster_text;
  std::string cluster_source = "(inline)";
  int cycles = 1;
  bool scores = false;
  // Runs the invariant checks of framework/invariants.h after every action
  // (`--check-invariants`); the first violation ends the run with an
  // Internal status (no output: the decisions cannot be trusted).
  bool check_invariants = false;
  // Tests: every cycle after the first compares its patched snapshot with a
  // full build (framework/snapshot_cache.h); a difference fails like a violation.
  bool verify_snapshot_cache = false;
  // `--now`: the session clock of the first cycle, RFC 3339 ("2024-05-01T10:00:00Z");
  // each later cycle is one second on. Empty: the newest creation time in the
  // input (docs/schedule.md). Time-based plugins (sla, rescheduling) read it.
  std::string now;
  // Caps on the input and on `cycles` (`--max-objects`, `--max-job-pods`,
  // `--max-pods`, `--max-cycles`; api/limits.h).
  InputLimits limits;
  // Tests only: registers more plugins or actions next to the built-in ones.
  std::function<void(PluginRegistry&, ActionRegistry&)> register_extra;
  // When set, each cycle's output goes here as soon as it is decided, and the
  // returned document's `cycles` stays empty: a run of many cycles is not
  // held in memory (ScheduleJsonWriter prints it as the document would be).
  std::function<void(const nlohmann::ordered_json& cycle)> on_cycle;
};

// Writes the output document piece by piece — the cycles as they come, then
// `final` — with exactly the bytes of `document.dump(2)` and a newline.
class ScheduleJsonWriter {
 public:
  explicit ScheduleJsonWriter(std::ostream& out) : out_(out) {}
  void Cycle(const nlohmann::ordered_json& cycle);
  // The document's end, from RunSchedule's result (its `final`).
  void Finish(const nlohmann::ordered_json& document);

 private:
  std::ostream& out_;
  bool any_cycle_ = false;
};

// Runs the cycles and returns the output document. An error is a user input
// error naming file, object and field (exit code 2), or, with
// `check_invariants`, an invariant violation (code kInternal, exit code 3).
Result<nlohmann::ordered_json> RunSchedule(const ScheduleRequest& request);

// A resource list as the output writes it: cpu and memory always, then the
// other non-zero dimensions by name (`pods` left out), in Kubernetes units.
nlohmann::ordered_json ResourceJson(const Resource& r);

// The document as `basalt schedule` prints it: indented by 2, then a newline;
// invalid UTF-8 in a name is replaced (U+FFFD) instead of throwing.
std::string ScheduleJsonText(const nlohmann::ordered_json& document);

// The process exit code for the result of RunSchedule.
int ScheduleExitCode(const Status& status);

// `--now RFC3339` (empty: not given) as seconds since the epoch, for the
// session clock; a bad timestamp is an error naming the flag.
Result<std::optional<int64_t>> ParseNowFlag(const std::string& text);

// The text of a scheduler configuration file (`--conf`); an unreadable or
// blank file is an error naming it.
Result<std::string> ReadSchedulerConfFile(const std::string& path);

}  // namespace basalt
