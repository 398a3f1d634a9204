#include "reports/charts.hpp"
#include "reports/file_set.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#ifndef OPBENCH_PYTHON
#define OPBENCH_PYTHON "python3"
#endif
#ifndef OPBENCH_PLOT_SCRIPT
#error "OPBENCH_PLOT_SCRIPT must name scripts/plots/plot_report.py (set by CMake)"
#endif

extern char** environ;

namespace fs = std::filesystem;

namespace opbench::reports {
namespace {

constexpr const char* kManifest = "charts.json";  // what the script drew, in order
constexpr const char* kLog = "plot.log";          // the script's stdout and stderr
// The script's exit status when matplotlib cannot be imported (it prints which interpreter and the fix).
constexpr int kExitMissingLibrary = 3;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The last non-empty line the script printed: its reason, on failure. One line, so that it reads as a
// sentence in the report.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  if (last.size() > 300) last = last.substr(0, 297) + "...";
  return last;
}

// Runs python + args with stdout and stderr in out_dir/plot.log. Returns the reason it did not exit
// 0, or an empty string when it did.
std::string run_script(const std::vector<std::string>& script_args, const std::string& out_dir,
                       const ChartSettings& s) {
  std::vector<std::string> args = {s.python, s.script};
  args.insert(args.end(), script_args.begin(), script_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const std::string log = (fs::path(out_dir) / kLog).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, s.python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    return fmt::format("cannot run {}: {} (install python3 and python3-matplotlib)", s.python, std::strerror(err));

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(s.timeout_s);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return fmt::format("lost the plot script: {}", std::strerror(errno));
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return fmt::format("the plot script took more than {} s and was stopped", s.timeout_s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string why = last_line(read_text(log));
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitMissingLibrary) return why;
  if (WIFSIGNALED(status)) return fmt::format("the plot script was killed by signal {}", WTERMSIG(status));
  return fmt::format("the plot script failed (exit {}){}{}", WEXITSTATUS(status), why.empty() ? "" : ": ", why);
}

ChartSet draw(const std::vector<std::string>& script_args, const std::string& out_dir, const ChartSettings& s) {
  ChartSet set;
  if (!s.enabled) {
    set.skipped = "charts were not asked for";
    return set;
  }
  set.skipped = run_script(script_args, out_dir, s);
  const fs::path dir(out_dir), manifest = dir / kManifest;
  if (set.drawn()) {
    try {
      const nlohmann::json j = nlohmann::json::parse(read_text(manifest));
      for (const auto& c : j.at("charts")) {
        Chart chart{c.at("file"), c.at("title"), c.at("caption")};
        if (!fs::is_regular_file(dir / chart.file))
          throw std::runtime_error("it lists " + chart.file + ", which it did not write");
        set.charts.push_back(std::move(chart));
      }
      if (set.charts.empty()) set.skipped = j.value("skipped", std::string("nothing to chart"));
    } catch (const std::exception& e) {
      set.charts.clear();
      set.skipped = fmt::format("the plot script's list of charts is unreadable: {}", e.what());
    }
  }
  // Only the PNGs stay: the folder is published as it is.
  std::error_code ec;
  fs::remove(manifest, ec);
  fs::remove(dir / kLog, ec);
  if (!set.drawn())
    for (const auto& e : fs::directory_iterator(dir, ec)) remove_tree(e.path().string());
  return set;
}

}  // namespace

std::string default_python() { return OPBENCH_PYTHON; }
std::string default_plot_script() { return OPBENCH_PLOT_SCRIPT; }

ChartSet draw_report_charts(const std::string& json_path, const std::string& out_dir, const ChartSettings& s) {
  return draw({"report", json_path, "--out-dir", out_dir}, out_dir, s);
}

ChartSet draw_history_chart(const std::string& history_path, double goal, const std::string& out_dir,
                            const ChartSettings& s) {
  return draw({"history", history_path, "--goal", fmt::format("{}", goal), "--out-dir", out_dir}, out_dir, s);
}

}  // namespace opbench::reports
