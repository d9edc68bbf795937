// Failure policy (see docs/design.md):
//  * user input         -> Status (never a crash);
//  * provable invariants -> BASALT_DCHECK (debug and test builds);
//  * invariants whose violation would corrupt cluster state (negative idle,
//    double bind) -> BASALT_CHECK, always on.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace basalt::internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond) {
    stream_ << file << ":" << line << ": check failed: " << cond << " ";
  }
  [[noreturn]] ~CheckFailure() {
    std::fprintf(stderr, "%s\n", stream_.str().c_str());
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

}  // namespace basalt::internal

#define BASALT_CHECK(cond) \
  if (cond) {              \
  } else                   \
    ::basalt::internal::CheckFailure(__FILE__, __LINE__, #cond).stream()

#ifdef NDEBUG
#define BASALT_DCHECK(cond) \
  if (true) {               \
  } else                    \
    ::basalt::internal::CheckFailure(__FILE__, __LINE__, #cond).stream()
#else
#define BASALT_DCHECK(cond) BASALT_CHECK(cond)
#endif
