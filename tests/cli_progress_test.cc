// The progress line of `basalt fgd` on a terminal (a pseudo-terminal here):
// it is redrawn as runs finish, and Ctrl-C ends it with a newline before the
// process stops by the signal (the shell's exit status 130).
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

namespace basalt {
namespace {

// The repository's small trace: 6,000 runs of it take a few seconds, time
// enough to interrupt after the first.
const std::string kMiniTrace = std::string(BASALT_SOURCE_DIR) + "/examples/fgd-mini-trace";

// Reads what the terminal shows until `until` appears or `timeout_ms` passes.
void ReadUntil(int fd, std::string& seen, const std::string& until, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  char buf[4096];
  while (until.empty() || seen.find(until) == std::string::npos) {
    if (::poll(&p, 1, timeout_ms) <= 0) return;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return;
    seen.append(buf, static_cast<size_t>(n));
  }
}

TEST(FgdProgressTest, CtrlCEndsTheProgressLineWithANewline) {
  int fd = -1;
  const pid_t pid = ::forkpty(&fd, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string trace = kMiniTrace;
    ::execl(BASALT_BINARY, BASALT_BINARY, "fgd", "--trace", trace.c_str(), "--seeds", "1000",
            "--jobs", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string seen;
  ReadUntil(fd, seen, "fgd: run 1 of 6000", 120000);
  ASSERT_NE(seen.find("\rfgd: run 1 of 6000 (  0%)"), std::string::npos) << seen;
  ::kill(pid, SIGINT);
  ReadUntil(fd, seen, "", 5000);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(fd);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);  // the shell says 128 + 2 = 130
  // The terminal turns "\n" into "\r\n": the line was ended.
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.substr(seen.size() - 2), "\r\n") << seen;
  EXPECT_EQ(seen.find("{"), std::string::npos) << "interrupted before the JSON: " << seen;
}

}  // namespace
}  // namespace basalt
