#include "campaign/devices.hpp"

#include <regex>
#include <set>
#include <stdexcept>

namespace aclnn_conform {

std::vector<int> parse_devices(const std::string &text) {
  static const std::regex kItem(R"(\s*([0-9]{1,4})\s*(-\s*([0-9]{1,4}))?\s*)");
  const std::string rule =
      "' is not a list of device ids (e.g. 0, 0-7, 0,2,4: ids 0 to 9999, ranges low-high)";
  std::vector<int> ids;
  std::set<int> seen;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    std::smatch m;
    if (!std::regex_match(item, m, kItem)) throw std::invalid_argument("'" + text + rule);
    const int low = std::stoi(m[1].str());
    const int high = m[3].matched ? std::stoi(m[3].str()) : low;
    if (high < low)
      throw std::invalid_argument("'" + text + "': the range " + item + " runs backwards");
    for (int d = low; d <= high; ++d) {
      if (!seen.insert(d).second)
        throw std::invalid_argument("'" + text + "' names device " + std::to_string(d) + " twice");
      ids.push_back(d);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

DevicePool::DevicePool(const std::vector<int> &ids) : suspected_(ids.size(), false) {
  for (int id : ids) {
    DeviceUsage u;
    u.id = id;
    devices_.push_back(u);
  }
}

std::optional<int> DevicePool::next() {
  for (const bool allow_suspected : {false, true})
    for (size_t step = 0; step < devices_.size(); ++step) {
      const size_t i = (rotation_ + step) % devices_.size();
      if (devices_[i].retired || (suspected_[i] && !allow_suspected)) continue;
      rotation_ = i + 1;
      return devices_[i].id;
    }
  return std::nullopt;
}

DeviceUsage &DevicePool::at(int id) {
  for (auto &d : devices_)
    if (d.id == id) return d;
  throw std::out_of_range("no device " + std::to_string(id) + " in the run");
}

void DevicePool::suspect(int id) {
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i].id == id) suspected_[i] = true;
}

void DevicePool::retire(int id, const std::string &why) {
  DeviceUsage &d = at(id);
  if (d.retired) return;
  d.retired = true;
  d.note = why;
}

bool DevicePool::all_retired() const {
  for (const auto &d : devices_)
    if (!d.retired) return false;
  return true;
}

}  // namespace aclnn_conform
