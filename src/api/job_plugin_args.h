// Arguments of the vcjob job plugins (`spec.plugins` of a batch.volcano.sh Job):
//
//   plugins:
//     ssh: ["--no-root", "--ssh-key-file-path=/home/user/.ssh"]
//     svc: ["--publish-not-ready-addresses=false", "--disable-network-policy=true"]
//     env: []
//
// Volcano parses each list with Go's `flag` package and only logs a parse
// error; basalt refuses the job instead, so a typo cannot silently change what
// the controller creates. The accepted spellings are Go's: `-name` or `--name`,
// `=value` attached or (for non-boolean flags) the value as the next item;
// a boolean flag given bare means true. Parsing stops at the first item that
// is not a flag, as Go's does, and such trailing items are refused too.
//
// Every message names the field as `spec.plugins.<name>[i]`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

// The job plugins basalt implements, in name order.
inline constexpr const char* kJobPluginNames[] = {"env", "ssh", "svc"};

struct SshPluginArgs {
  // `--no-root`: the keys go to `/etc/volcano/.ssh` (unless a path is given)
  // and are mounted readable by other users (mode 0755 instead of 0600).
  bool no_root = false;
  // `--ssh-key-file-path`: where the key pair and config are mounted.
  std::string key_file_path = "/root/.ssh";
  // `--ssh-private-key` / `--ssh-public-key`: a key pair supplied by the user
  // instead of a generated one (both or neither).
  std::string private_key;
  std::string public_key;
};

struct SvcPluginArgs {
  // `--publish-not-ready-addresses`: the Service's publishNotReadyAddresses.
  bool publish_not_ready_addresses = false;
  // `--disable-network-policy`: no NetworkPolicy for the job.
  bool disable_network_policy = false;
};

// The default key path and the one `--no-root` switches to.
inline constexpr const char* kSshRootKeyPath = "/root/.ssh";
inline constexpr const char* kSshNoRootKeyPath = "/etc/volcano/.ssh";

Result<SshPluginArgs> ParseSshPluginArgs(const std::vector<std::string>& args);
Result<SvcPluginArgs> ParseSvcPluginArgs(const std::vector<std::string>& args);

// Checks a whole `spec.plugins` map: every name is a known plugin and its
// arguments parse (`env` takes none).
Status CheckJobPlugins(const std::map<std::string, std::vector<std::string>>& plugins);

}  // namespace basalt
