//===- JoinList.h - Items as one "a, b, c" line ---------------------------===//
//
// The runtime's messages and --info list features, ids and types the same
// way; one helper so they do not each grow their own loop.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_JOINLIST_H
#define TFMC_RUNTIME_JOINLIST_H

#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

/// `items` separated by `separator`; "" when there are none.
inline std::string joinList(const std::vector<std::string> &items,
                            std::string_view separator = ", ") {
  std::string joined;
  for (const std::string &item : items) {
    if (!joined.empty())
      joined += separator;
    joined += item;
  }
  return joined;
}

} // namespace tfm::rt

#endif // TFMC_RUNTIME_JOINLIST_H
