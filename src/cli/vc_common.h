// Pieces shared by `basalt job ...` and `basalt queue ...`: the back-end
// flags every command takes, `-o json|yaml|name|wide`, exit codes, the Command
// objects vcctl creates, the clock for ages, and what the folder back end
// stamps on new objects in the API server's place.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "live/vc_store.h"

namespace basalt {

// Set by the callback of the command that ran; main returns `exit_code`.
struct CliOutcome {
  bool ran = false;
  int exit_code = 0;
};

// Flags of every job/queue command: --cluster, --kubeconfig, --context,
// --seed, and --now (RFC 3339) that fixes "now" for ages and, with
// --cluster, for the creationTimestamp of new objects.
struct BackendFlags {
  StoreOptions store;
  std::string now;  // empty: the wall clock
};
void AddBackendFlags(CLI::App* cmd, BackendFlags* flags);

// True with --cluster DIR: the commands play the API server's part.
bool FolderMode(const BackendFlags& flags);

// Seconds since the epoch of `flags.now`, else of the wall clock.
Result<int64_t> NowSeconds(const BackendFlags& flags);

// With --cluster, what the API server sets on every object it creates:
// metadata.creationTimestamp (now, RFC 3339 in UTC) and metadata.uid (a
// UUID drawn from --seed and the object's kind, namespace and name, so the same
// input gives the same bytes). Without --cluster the server does it: no-op.
Status StampNewObject(const BackendFlags& flags, Json* obj);

// A version-4-shaped UUID from `seed` and `key`, deterministic.
std::string SeededUid(uint64_t seed, const std::string& key);

// 2 for what the user can fix (bad flag or manifest, no such object, already
// exists), 1 for a failure of the server or the transport.
int ExitCodeFor(const Status& status);

// Runs `body` as the command's action: a Status error is printed as
// "basalt: <message>" on stderr and turned into the exit code.
void SetAction(CLI::App* cmd, CliOutcome* outcome, std::function<Status()> body);

// `-o json` / `-o yaml` / "" (table), and for lists also `name` and `wide`.
// Anything else is an InvalidArgument listing the valid values.
const std::vector<std::string>& ObjectOutputFormats();  // json, yaml
const std::vector<std::string>& ListOutputFormats();    // json, yaml, name, wide
Status CheckOutputFormat(const std::string& format);
Status CheckListOutputFormat(const std::string& format);
void PrintObject(const Json& obj, const std::string& format, std::ostream& out);
// kubectl's `-o name`: one "<kind lower>.<group>/<name>" line per object
// ("job.batch.volcano.sh/demo", "queue.scheduling.volcano.sh/research").
void PrintNames(const std::vector<Json>& objs, std::ostream& out);

// The bus.volcano.sh/v1alpha1 Command vcctl posts for `action` on `target`
// (a Job or Queue as stored): generateName "<name>-<action lower case>-",
// the namespace of the target (none for a queue), an ownerReference that is
// also the `target` (apiVersion, kind, name, uid, controller and
// blockOwnerDeletion true), and `action`.
Json MakeVcctlCommand(const Json& target, const std::string& action);

// metadata.<field> of an object ("" when absent).
std::string Meta(const Json& obj, const char* field);
// The integer at a JSON pointer ("/status/running"), 0 when absent or not a number.
int64_t IntAt(const Json& obj, const char* pointer);
// The string at a JSON pointer, "" when absent.
std::string StrAt(const Json& obj, const char* pointer);

// vcctl's (and kubectl's) human age: "45s", "3m20s", "5h", "12d".
std::string HumanDuration(int64_t seconds);

// Footer text for `--help`: "Examples:\n  basalt ..." lines.
std::string Examples(std::initializer_list<const char*> lines);

}  // namespace basalt
