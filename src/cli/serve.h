// `basalt serve`: flags in, the live process (live/serve_app.h) out.
#pragma once

#include "live/serve_app.h"

namespace basalt {

// Runs the live process until SIGTERM or SIGINT. Returns the process exit
// code: 2 on a bad kubeconfig, flag or configuration; 0 after a clean stop.
int RunServe(const ServeRequest& request);

}  // namespace basalt
