// The parts of a report's context that come from the command line and the build, not from a GPU: the
// command, the commit, the time, the timing settings and the run settings, in words. The session adds the
// device and its roofs; a multi-GPU parent (src/dist) that touched no GPU uses this alone.
#pragma once
#include <string>

#include "opbench/result.hpp"
#include "src/cli/options.hpp"

namespace opbench {

std::string utc_now(const char* strftime_format);  // e.g. "%Y-%m-%dT%H:%M:%SZ"
RunContext settings_context(const Options& opt);

}  // namespace opbench
