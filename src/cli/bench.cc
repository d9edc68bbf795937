#include "cli/bench.h"

#include <iostream>

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
    std::cerr << "basalt: unknown profile \"" << request.profile << "\"; one of:";
    for (const bench::Profile& p : bench::Profiles()) std::cerr << " " << p.name;
    std::cerr << "\n";
    return 2;
  }
  bench::RunOptions options;
  options.runs = request.runs;
  options.reference = request.reference;
  options.full_snapshots = request.full_snapshots;
  auto result = bench::RunProfile(*profile, options);
  if (!result.ok()) {
    std::cerr << "basalt: " << result.status().message() << "\n";
    return 2;
  }
  std::cout << bench::ResultJson(*result, options).dump(2) << "\n";
  return 0;
}

}  // namespace basalt
