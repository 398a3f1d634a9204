#include "src/dist/dist_options.hpp"

#include <algorithm>
#include <cstdlib>

namespace opbench::dist {

std::optional<DeviceList> parse_device_list(const std::string& s) {
  DeviceList out;
  if (s == "all") {
    out.all = true;
    return out;
  }
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, comma - pos);
    if (item.empty() || item.size() > 4 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    out.ids.push_back(std::atoi(item.c_str()));
    pos = comma + 1;
  }
  if (out.ids.empty()) return std::nullopt;
  return out;
}

}  // namespace opbench::dist
