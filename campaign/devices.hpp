// The devices a campaign spreads its workers over (--devices), and what happened on each: cases,
// workers started, device faults, out-of-memory events, retirement. A device that cannot be
// initialised when the run starts is an error naming it; one that stops answering later is
// retired, and its work goes to the others.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "campaign/result.hpp"

namespace aclnn_conform {

// "0", "0-7", "0,2,4", "0-3,6": distinct device ids in the given order. Throws
// std::invalid_argument naming the rule a text breaks.
std::vector<int> parse_devices(const std::string &text);

class DevicePool {
 public:
  explicit DevicePool(const std::vector<int> &ids);

  // The device for the next worker: the next in rotation that is neither retired nor suspected
  // (suspected ones only when nothing else is left); nullopt once every device is retired.
  std::optional<int> next();
  DeviceUsage &at(int id);
  // A worker on the device failed to start (start_error) or the device stopped answering.
  void suspect(int id);
  void retire(int id, const std::string &why);
  bool all_retired() const;
  const std::vector<DeviceUsage> &usage() const { return devices_; }

 private:
  std::vector<DeviceUsage> devices_;
  std::vector<bool> suspected_;
  size_t rotation_ = 0;
};

}  // namespace aclnn_conform
