#include "src/run/context.hpp"

#include <ctime>

#include "src/run/build_info.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

std::string utc_now(const char* strftime_format) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, strftime_format, std::gmtime(&t));
  return buf;
}

RunContext settings_context(const Options& opt) {
  RunContext c;
  c.command_line = opt.command_line;
  c.git_commit = build_commit();
  c.timestamp = utc_now("%Y-%m-%dT%H:%M:%SZ");
  c.timing_mode = timing_mode_name(opt.timing_mode);
  c.l2_mode = opt.timing.l2_cold ? "cold" : "warm";
  c.l2_flush = describe_flush(opt.timing);
  c.stopping = describe_stopping(opt.timing);
  c.tf32 = opt.settings.tf32;
  c.outlier_filter = opt.timing.outlier_filter;
  return c;
}

}  // namespace opbench
