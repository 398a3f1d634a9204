// The command lines of bench_ops compare and bench_ops history (CLI11), and what they run.
#include "src/compare/compare_cli.hpp"

#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "reports/report_files.hpp"
#include "src/compare/baseline.hpp"
#include "src/compare/compare_report.hpp"
#include "src/compare/comparison.hpp"
#include "src/compare/history.hpp"

namespace fs = std::filesystem;

namespace opbench::compare {
namespace {

const char* kCompareFooter = R"(The verdict per result (same, faster, slower, unsure) and the rule are in README.md
("Comparing runs"). Exit codes:
  0 no regression   1 the framework got slower or broke (after --rerun: and still is)
  2 bad input: an unreadable file, a report of another schema, reports from different GPUs,
    drivers or settings, no baseline found          4 the comparison report could not be written
Examples:
  bench_ops compare docs/benchmark/ops_20261122-114252.json build/run/latest.json
  bench_ops compare docs/benchmark build/run/latest.json      (a folder: the best baseline in it)
  bench_ops compare --find-baseline docs/benchmark build/run/latest.json
  bench_ops compare BASE.json CUR.json --rerun RERUN.json      (confirm the flagged results)
  bench_ops compare BASE.json CUR.json --baseline-pool OLDER.json  (pool two baseline processes)
  bench_ops compare docs/benchmark CUR.json --baselines 3       (pool the best three of a folder))";

// "5%" -> 0.05, "0.05" -> 0.05. A bare number from 1 up is refused: "5" could mean either.
std::optional<double> parse_fraction(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const bool percent = text.back() == '%';
  const std::string num = percent ? text.substr(0, text.size() - 1) : text;
  try {
    std::size_t used = 0;
    const double v = std::stod(num, &used);
    if (used != num.size() || !(v > 0)) return std::nullopt;
    if (percent) return v / 100;
    return v < 1 ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int usage(const std::string& what, const std::string& msg) {
  std::cerr << "bench_ops " << what << ": " << msg << "\n(bench_ops " << what << " --help lists every option)\n";
  return kCompareBadInput;
}

// Parses `app`; an exit code when the command is over (help printed, or a usage error reported).
std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv, const std::string& what) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kCompareOk;
  } catch (const CLI::ParseError& e) {
    return usage(what, e.what());
  }
  return std::nullopt;
}

int bad_input(const std::string& what, const std::string& msg) {
  std::cerr << "bench_ops " << what << ": " << msg << "\n";
  return kCompareBadInput;
}

int write_failed(const std::string& what, const std::string& msg) {
  std::cerr << "bench_ops " << what << ": " << msg << "\nChoose a writable folder or file.\n";
  return kCompareWriteFailed;
}

// The folder the report index lives in gets the trend page and a refreshed index.
bool is_report_folder(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / "README.md", ec)) return true;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("ops_", 0) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_ops compare: judge every result of CURRENT against BASELINE (bench_ops JSON reports; no GPU "
               "needed) and write a console table, a Markdown and a JSON comparison report.",
               "bench_ops compare"};
  app.footer(kCompareFooter);
  std::vector<std::string> files, formats, find_dirs, pool_paths;
  int baselines = 1;
  std::string threshold = "5%", clock_diff = "5%", output_dir, rerun_path, filter_path;
  Rule rule;
  bool ignore_device = false;
  app.add_option("reports", files, "BASELINE CURRENT: two report files (BASELINE may be a folder of reports)");
  app.add_option("--threshold", threshold, "Minimum effect for faster/slower, e.g. 5% or 0.05 (default 5%)");
  app.add_option("--alpha", rule.alpha, "Significance of the Mann-Whitney U test (default 0.002)")
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--min-samples", rule.min_samples, "Samples needed on each side for a verdict (default 8)")
      ->check(CLI::Range(3, 1000000));
  app.add_option("--max-clock-diff", clock_diff, "Largest difference of mean SM clocks for a verdict (default 5%)");
  double min_change_us = rule.min_change_ms * 1e3;
  app.add_option("--min-change", min_change_us,
                 "Smallest change in time, in microseconds, that can be slower or faster (default 1: medians of "
                 "small kernels move this much between processes; 0 turns it off)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_flag("--ignore-device", ignore_device, "Compare reports from different GPU models or drivers anyway");
  app.add_option("--output-dir", output_dir, "Where the comparison reports go (default: CURRENT's folder)");
  // One value per occurrence (comma-separated), so that a report named after the option is not taken in.
  app.add_option("--format", formats, "Report formats: md, json, or none (default md,json)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--rerun", rerun_path,
                 "A re-run of the flagged problems: a regression counts only if it holds there too");
  app.add_option("--rerun-filter", filter_path,
                 "Write the --benchmark_filter that re-runs the flagged (with --rerun: still flagged) problems to "
                 "this file (empty when none)");
  app.add_option("--find-baseline", find_dirs,
                 "Print the best baseline for CURRENT among the reports in these folders (repeatable) and exit")
      ->allow_extra_args(false);
  app.add_option("--baseline-pool", pool_paths,
                 "More reports of the baseline's state (earlier nights, other processes of the same build): "
                 "their samples are pooled with BASELINE's, so that a change must stand out from the spread "
                 "between processes (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--baselines", baselines,
                 "With a folder as BASELINE or with --find-baseline: take the best N reports (most problems in "
                 "common, then newest); the first is the baseline, the others are pooled with it (default 1)")
      ->check(CLI::Range(1, 100));
  if (auto code = parse_or_exit(app, argc, argv, "compare")) return *code;

  const auto t = parse_fraction(threshold), cd = parse_fraction(clock_diff);
  if (!t) return usage("compare", fmt::format("--threshold '{}': write a percentage (5%) or a fraction below 1 (0.05)", threshold));
  if (!cd) return usage("compare", fmt::format("--max-clock-diff '{}': write a percentage (5%) or a fraction below 1", clock_diff));
  rule.threshold = *t, rule.max_clock_diff = *cd, rule.min_change_ms = min_change_us / 1e3;
  bool markdown = true, json = true;
  if (!formats.empty()) {
    markdown = json = false;
    for (const auto& f : formats) {
      if (f == "md" || f == "markdown") markdown = true;
      else if (f == "json") json = true;
      else if (f != "none") return usage("compare", fmt::format("unknown --format '{}'; valid: md, json, none", f));
    }
  }

  try {
    if (!find_dirs.empty()) {
      if (files.size() != 1) return usage("compare", "--find-baseline DIR takes one report: the current run's");
      const RunResults cur = load_report(files[0]);
      const auto choices = find_baselines(find_dirs, cur, files[0], ignore_device, baselines);
      if (choices.empty())
        return bad_input("compare", fmt::format("no report in {} can be a baseline for {} (same GPU, driver and "
                                                "settings, at least one problem in common)",
                                                fmt::join(find_dirs, ", "), files[0]));
      for (const BaselineChoice& c : choices) std::cout << c.path << "\n";
      return kCompareOk;
    }
    if (files.size() != 2) return usage("compare", "give two reports: BASELINE CURRENT");
    std::string base_path = files[0];
    const std::string cur_path = files[1];
    const RunResults cur = load_report(cur_path);
    std::error_code ec;
    if (fs::is_directory(base_path, ec)) {
      const auto choices = find_baselines({base_path}, cur, cur_path, ignore_device, baselines);
      if (choices.empty())
        return bad_input("compare", fmt::format("no report in {} can be a baseline for {} (same GPU, driver and "
                                                "settings, at least one problem in common)", base_path, cur_path));
      for (std::size_t k = 0; k < choices.size(); ++k) {
        std::cout << fmt::format("{} chosen from {}: {} ({} problems in common)\n", k ? "pooled baseline" : "baseline",
                                 base_path, choices[k].path, choices[k].shared);
        if (k) pool_paths.push_back(choices[k].path);
      }
      base_path = choices.front().path;
    }
    RunResults base = load_report(base_path);
    std::vector<RunResults> pool;
    std::vector<RunInfo> pool_info;
    for (const std::string& p : pool_paths) {
      pool.push_back(load_report(p));
      // Every pooled report must be comparable with the current run, as the baseline is.
      check_comparable(pool.back().context, cur.context, ignore_device, p, cur_path);
      pool_info.push_back({p, pool.back().context});
    }
    if (!pool.empty()) pool_baselines(base, pool);
    Comparison c = compare_runs({base_path, {}}, base, {cur_path, {}}, cur, rule, ignore_device);
    c.baseline_pool = std::move(pool_info);
    if (!rerun_path.empty()) apply_rerun(c, base, {rerun_path, {}}, load_report(rerun_path));

    write_console(c, std::cout);
    const std::string dir = output_dir.empty() ? fs::path(cur_path).parent_path().string() : output_dir;
    try {
      if (markdown || json)
        for (const auto& p : write_comparison(c, dir.empty() ? "." : dir, markdown, json)) std::cout << "report: " << p << "\n";
      if (!filter_path.empty())
        reports::write_file_atomic(filter_path,
                                   benchmark_filter(c.rerun ? regression_ids(c) : flagged_ids(c)) + "\n");
    } catch (const std::exception& e) {
      return write_failed("compare", e.what());
    }
    return has_regression(c) ? kCompareRegression : kCompareOk;
  } catch (const InputError& e) {
    return bad_input("compare", e.what());
  }
}

int history_main(int argc, char** argv) {
  CLI::App app{"bench_ops history: the compact history of runs (history.jsonl) and the trend page built from it.",
               "bench_ops history"};
  app.require_subcommand(1);
  std::string history = "docs/benchmark/history.jsonl", report, comparison, output;
  int keep = kDefaultKeepMedians, runs = kDefaultTrendRuns;

  CLI::App* append = app.add_subcommand("append", "Add a run (a bench_ops JSON report) to the history, then "
                                                  "rewrite trend.md beside it and the report index there");
  append->add_option("report", report, "The run's JSON report")->required();
  append->add_option("--history", history, "The history file (default docs/benchmark/history.jsonl)");
  append->add_option("--comparison", comparison, "The bench_ops compare JSON report of this run, to record its digest");
  append->add_option("--keep-medians", keep, "Runs per GPU and settings that keep every problem's median (default 60)")
      ->check(CLI::Range(1, 100000));
  append->add_option("--trend-runs", runs, "Runs per GPU shown on the trend page (default 10)")->check(CLI::Range(1, 1000));

  CLI::App* show = app.add_subcommand("show", "Print the trend page (Markdown)");
  show->add_option("--history", history, "The history file (default docs/benchmark/history.jsonl)");
  show->add_option("--trend-runs", runs, "Runs per GPU shown (default 10)")->check(CLI::Range(1, 1000));

  CLI::App* exp = app.add_subcommand("export", "Write a report as github-action-benchmark input "
                                               "(tool: customSmallerIsBetter): framework and LibTorch medians in ms");
  exp->add_option("report", report, "The run's JSON report")->required();
  exp->add_option("--output", output, "The file to write")->required();
  if (auto code = parse_or_exit(app, argc, argv, "history")) return *code;

  try {
    if (*show) {
      std::cout << render_trend(read_history(history), runs);
      return kCompareOk;
    }
    const RunResults run = load_report(report);
    if (*exp) {
      try {
        reports::write_file_atomic(output, github_benchmark_json(run).dump(1) + "\n");
      } catch (const std::exception& e) {
        return write_failed("history", e.what());
      }
      std::cout << "github-action-benchmark input: " << output << "\n";
      return kCompareOk;
    }
    HistoryRecord rec = make_record(run, fs::path(report).filename().string());
    if (!comparison.empty()) {
      std::ifstream in(comparison);
      if (!in) return bad_input("history", "cannot read " + comparison);
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(in);
      } catch (const std::exception& e) {
        return bad_input("history", comparison + " is not JSON: " + e.what());
      }
      fs::path shown = fs::path(comparison).filename();
      if (shown.extension() == ".json" && fs::exists(fs::path(comparison).replace_extension(".md"))) shown.replace_extension(".md");
      rec.comparison = comparison_point(j, shown.string());
    }
    const fs::path dir = fs::path(history).parent_path().empty() ? fs::path(".") : fs::path(history).parent_path();
    try {
      std::error_code ec;
      fs::create_directories(dir, ec);
      const auto all = append_history(history, rec, keep);
      reports::write_file_atomic((dir / "trend.md").string(), render_trend(all, runs));
      if (is_report_folder(dir)) reports::refresh_index(dir.string());
      std::cout << fmt::format("history: {} ({} run{}); trend: {}\n", history, all.size(), all.size() == 1 ? "" : "s",
                               (dir / "trend.md").string());
    } catch (const reports::ReportWriteError& e) {
      return write_failed("history", e.what());
    }
    return kCompareOk;
  } catch (const InputError& e) {
    return bad_input("history", e.what());
  }
}

}  // namespace opbench::compare
