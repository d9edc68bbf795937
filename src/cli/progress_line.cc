#include "cli/progress_line.h"

#include <unistd.h>

#include <csignal>

namespace basalt {
namespace {

// Async-signal-safe: write(2), signal(2) and raise(3) only.
void EndProgressLineAndDie(int sig) {
  const char newline = '\n';
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, &newline, 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

bool ProgressOnTerminal() { return ::isatty(STDERR_FILENO) != 0; }

void FinishProgressLineOnSignals() {
  std::signal(SIGINT, EndProgressLineAndDie);
  std::signal(SIGTERM, EndProgressLineAndDie);
}

}  // namespace basalt
