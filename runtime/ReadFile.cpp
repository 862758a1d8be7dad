//===- ReadFile.cpp - Whole files into memory, with a named error ---------===//
#include "runtime/ReadFile.h"

#include <fstream>
#include <iterator>

namespace tfm::rt {

bool readFile(const std::string &path, std::string &data, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  data.assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

} // namespace tfm::rt
