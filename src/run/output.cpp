#include "src/run/output.hpp"

#include <iostream>

#include "reports/report_files.hpp"
#include "src/run/context.hpp"

namespace opbench {

int write_run_reports(const Options& opt, const reports::Report& report) {
  try {
    const std::string stem = "ops_" + utc_now("%Y%m%d-%H%M%S");
    for (const std::string& path :
         reports::write_reports(report, opt.output_dir, opt.write_markdown, opt.write_json, stem))
      std::cout << "report: " << path << "\n";
    reports::refresh_index(opt.output_dir);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: could not write the reports: " << e.what()
              << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }
  return reports::has_failures(report.summary) ? kExitFailures : kExitOk;
}

}  // namespace opbench
