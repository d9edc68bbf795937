// basalt_random_cycles CYCLES SEED [OUT_DIR]: runs random worlds (seeds SEED,
// SEED+1, ...) until CYCLES scheduling cycles have run, with every invariant
// checked after every action. A failing world is shrunk and written to
// OUT_DIR/seed-<seed>.yaml (default tests/scenarios/regress/). Last line:
// "N cycles, V violations"; exit 1 on any violation.
//
// basalt_random_cycles --write-worlds COUNT SEED OUT_DIR: writes the worlds of
// seeds SEED .. SEED+COUNT-1 as folders OUT_DIR/<seed>/ (conf.yaml, cluster.yaml,
// cycles) without running them, for the differential test against the Volcano
// oracle (tests/oracle/oracle_diff.py, docs/oracle.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "random_cluster.h"

namespace {

int WriteWorlds(long long count, unsigned long long seed, const std::string& out_dir) {
  for (long long i = 0; i < count; ++i) {
    const basalt::testing::World w = basalt::testing::GenerateWorld(seed + i);
    const std::filesystem::path dir = std::filesystem::path(out_dir) / std::to_string(seed + i);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream conf(dir / "conf.yaml"), cluster(dir / "cluster.yaml"), cycles(dir / "cycles");
    conf << w.conf;
    cluster << w.Manifests();
    cycles << w.cycles << "\n";
    if (ec || !conf || !cluster || !cycles) {
      std::fprintf(stderr, "basalt_random_cycles: cannot write %s\n", dir.c_str());
      return 2;
    }
  }
  std::printf("%lld worlds written to %s (seeds %llu..%llu)\n", count, out_dir.c_str(), seed,
              seed + count - 1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--write-worlds") == 0) {
    return WriteWorlds(std::atoll(argv[2]), std::strtoull(argv[3], nullptr, 10), argv[4]);
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: basalt_random_cycles CYCLES SEED [OUT_DIR]\n"
                 "       basalt_random_cycles --write-worlds COUNT SEED OUT_DIR\n");
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
