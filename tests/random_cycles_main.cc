// basalt_random_cycles CYCLES SEED [OUT_DIR]: runs random worlds (seeds SEED,
// SEED+1, ...) until CYCLES scheduling cycles have run, with every invariant
// checked after every action. A failing world is shrunk and written to
// OUT_DIR/seed-<seed>.yaml (default tests/scenarios/regress/). Last line:
// "N cycles, V violations"; exit 1 on any violation.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "random_cluster.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: basalt_random_cycles CYCLES SEED [OUT_DIR]\n");
    return 2;
  }
  const long long want = std::atoll(argv[1]);
  const unsigned long long seed = std::strtoull(argv[2], nullptr, 10);
  const std::string out_dir = argc > 3 ? argv[3] : "tests/scenarios/regress";
  long long cycles = 0, violations = 0, worlds = 0;
  for (unsigned long long s = seed; cycles < want; ++s, ++worlds) {
    basalt::testing::World w = basalt::testing::GenerateWorld(s);
    basalt::testing::RunOutcome r = basalt::testing::RunWorld(w);
    cycles += r.cycles_run;
    if (r.ok()) continue;
    ++violations;
    std::fprintf(stderr, "seed %llu: %s\n", s, r.violation.c_str());
    basalt::testing::World small = basalt::testing::Shrink(w);
    basalt::testing::RunOutcome again = basalt::testing::RunWorld(small);
    const std::string path = out_dir + "/seed-" + std::to_string(s) + ".yaml";
    std::ofstream(path) << basalt::testing::ScenarioYaml(small, "seed-" + std::to_string(s),
                                                         again.violation);
    std::fprintf(stderr, "  shrunk to %zu documents, %d cycle(s): %s\n", small.docs.size(),
                 small.cycles, path.c_str());
    if (r.cycles_run == 0) ++cycles;  // a world failing in its first cycle still counts one
  }
  std::printf("%lld worlds (seeds %llu..%llu)\n", worlds, seed, seed + worlds - 1);
  std::printf("%lld cycles, %lld violations\n", cycles, violations);
  return violations == 0 ? 0 : 1;
}
