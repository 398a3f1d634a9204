// Files for the report tests: a temporary folder removed afterwards, reading a file, listing a folder.
#pragma once
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/file_set.hpp"

namespace opbench::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    // $TMPDIR first, then the working directory (a CI or GPU node may point TMPDIR somewhere unusable).
    for (const std::filesystem::path& base : {std::filesystem::temp_directory_path(), std::filesystem::current_path()}) {
      std::string tmpl = (base / "opbench_reports_XXXXXX").string();
      if (const char* made = ::mkdtemp(tmpl.data())) {
        path = made;
        return;
      }
    }
    throw std::runtime_error(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  }
  ~TempDir() { opbench::reports::remove_tree(path.string()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace opbench::testing
