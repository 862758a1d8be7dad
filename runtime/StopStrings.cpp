//===- StopStrings.cpp - End generation at a stop string ------------------===//
#include "runtime/StopStrings.h"

#include <algorithm>

namespace tfm::rt {

StopStringFilter::StopStringFilter(std::vector<std::string> stops) {
  for (std::string &stop : stops)
    if (!stop.empty())
      stops_.push_back(std::move(stop));
}

std::string StopStringFilter::push(std::string_view piece) {
  if (stopped_)
    return {};
  pending_.append(piece);
  size_t first = std::string::npos;
  for (const std::string &stop : stops_)
    first = std::min(first, pending_.find(stop));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return out;
  }
  // Hold back the longest tail that begins some stop string: the next
  // pieces may complete it. No stop string lies wholly inside the pending
  // text (checked above), so the rest is safe.
  size_t held = 0;
  for (const std::string &stop : stops_) {
    size_t longest = std::min(stop.size() - 1, pending_.size());
    for (size_t length = longest; length > held; --length)
      if (pending_.compare(pending_.size() - length, length, stop, 0, length) ==
          0) {
        held = length;
        break;
      }
  }
  std::string out = pending_.substr(0, pending_.size() - held);
  pending_.erase(0, pending_.size() - held);
  return out;
}

std::string StopStringFilter::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

} // namespace tfm::rt
