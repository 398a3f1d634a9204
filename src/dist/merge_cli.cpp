// `bench_ops merge DIR|FILES... [--output-dir DIR] [--format md,json] [--allow-mixed-gpus] [--replicate]
// [--slow-gpu-margin PCT]`: the one report of a run whose ranks each wrote a shard report.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "reports/fleet.hpp"
#include "reports/report_files.hpp"
#include "reports/summary.hpp"
#include "src/cli/options.hpp"
#include "src/dist/merge.hpp"

namespace opbench::dist {
namespace {

// "2025-11-22T10:35:07Z" -> "ops_20251122-103507": the merged report is named after the run's start.
std::string stem_of(const std::string& ts) {
  std::string digits;
  for (char c : ts)
    if (c >= '0' && c <= '9') digits += c;
  if (digits.size() < 14) return "ops_merged";
  return "ops_" + digits.substr(0, 8) + "-" + digits.substr(8, 6);
}

}  // namespace

int merge_main(int argc, char** argv) {
  CLI::App app{"bench_ops merge: one report from the shard reports of a run over several GPUs or nodes (each rank "
               "of torchrun, srun or mpirun writes shard-<i>-of-<n>.json into its --output-dir).",
               "bench_ops merge"};
  app.footer(R"(Examples:
  bench_ops merge runs/1234                    every shard-*.json in the folder
  bench_ops merge a.json b.json --replicate    two GPUs' copies of the same problems, with the per-GPU table

Exit codes: 0 merged, every result correct   1 merged, a result is incorrect or failed
            2 bad command line, a missing or duplicated shard, mixed GPU models, differing builds or settings
            4 the report could not be written)");
  std::vector<std::string> paths, formats;
  std::string output_dir = "docs/benchmark";
  MergeSettings settings;
  std::optional<double> margin_pct;
  app.add_option("inputs", paths, "Shard report files, or folders holding shard-*.json")->required();
  app.add_option("--output-dir", output_dir, "Where the merged report goes (default docs/benchmark)");
  app.add_option("--format", formats, "Report formats: md, json (default both)")->delimiter(',');
  app.add_flag("--allow-mixed-gpus", settings.allow_mixed_gpus, "Merge reports of different GPU models");
  app.add_flag("--replicate", settings.replicate,
               "Keep every GPU's copy of a problem measured on several GPUs (the per-GPU consistency table)");
  app.add_option("--slow-gpu-margin", margin_pct,
                 "Flag a GPU this many percent slower than the fleet median (default: the run's, 5)")
      ->check(CLI::Range(0.0, 100.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "bench_ops merge: " << e.what() << "\n(bench_ops merge --help lists every option)\n";
    return kExitUsage;
  }
  bool md = formats.empty(), json = formats.empty();
  for (const std::string& f : formats) {
    if (f == "md" || f == "markdown") md = true;
    else if (f == "json") json = true;
    else {
      std::cerr << "bench_ops merge: unknown --format '" << f << "'; valid: md, json\n";
      return kExitUsage;
    }
  }
  try {
    reports::check_writable(output_dir);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops merge: " << e.what() << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }

  RunResults merged;
  try {
    std::vector<MergeInput> inputs;
    for (const std::string& p : expand_merge_paths(paths)) inputs.push_back(read_report(p));
    merged = merge_reports(std::move(inputs), settings);
  } catch (const MergeError& e) {
    std::cerr << "bench_ops merge: " << e.what() << "\n";
    return kExitUsage;
  }
  if (margin_pct) merged.context.slow_gpu_margin = *margin_pct / 100;

  std::cout << fmt::format("merged {} results from {} GPU{}\n", merged.problems.size(), merged.context.gpus.size(),
                           merged.context.gpus.size() == 1 ? "" : "s");
  if (const auto fleet = reports::fleet_table(merged))
    for (const reports::FleetRow& r : fleet->rows)
      if (r.slow) std::cout << reports::gpu_label(r.gpu.id) << " " << r.verdict << "\n";
  try {
    for (const std::string& path :
         reports::write_reports(merged, output_dir, md, json, stem_of(merged.context.timestamp)))
      std::cout << "report: " << path << "\n";
    reports::refresh_index(output_dir);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops merge: could not write the report: " << e.what()
              << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }
  return reports::has_failures(reports::build_report(merged).summary) ? kExitFailures : kExitOk;
}

}  // namespace opbench::dist
