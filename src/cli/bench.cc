#include "cli/bench.h"

#include <iostream>

#include "api/log.h"
#include "profiles.h"

namespace basalt {

int RunBench(const BenchRequest& request) {
  if (request.profile == "list") {
    for (const bench::Profile& p : bench::Profiles())
      std::cout << p.name << "\t" << p.description << "\n";
    return 0;
  }
  const bench::Profile* profile = bench::FindProfile(request.profile);
  if (!profile) {
    std::string names;
    for (const bench::Profile& p : bench::Profiles()) names += " " + p.name;
    CliLog().error("unknown profile \"{}\"; one of:{}", request.profile, names);
    return 2;
  }
  bench::RunOptions options;
  options.runs = request.runs;
  options.reference = request.reference;
  options.full_snapshots = request.full_snapshots;
  auto result = bench::RunProfile(*profile, options);
  if (!result.ok()) {
    CliLog().error("{}", result.status().message());
    return 2;
  }
  std::cout << bench::ResultJson(*result, options).dump(2) << "\n";
  return 0;
}

}  // namespace basalt
