// What the bench_ops binary was built from: written by cmake/BuildInfo.cmake at every build (the file
// changes only when the commit or the tree's state does), so a report names the commit its binary was
// compiled from, not whatever the source tree holds when it runs.
#pragma once

namespace opbench {

// "67ba302a1b2c", with "-dirty" when tracked files differed from that commit at build time; the value of
// OPBENCH_GIT_COMMIT in the build's environment (trees without .git) takes precedence; "unknown" otherwise.
const char* build_commit();

}  // namespace opbench
