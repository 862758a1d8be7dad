//===- PackageCheck.cpp - A weights package against the compiled code ----===//
#include "runtime/PackageCheck.h"

#include "runtime/ModelABI.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace tfm::rt {

bool checkPackageMatchesModel(const Package &package, const std::string &name,
                              std::string &error) {
  char text[256];
  if (tfm_model.abi_version != TFM_ABI_VERSION) {
    std::snprintf(text, sizeof(text),
                  "the compiled model uses ABI version %u but this runtime "
                  "expects %d; rebuild with a matching tfmc",
                  tfm_model.abi_version, TFM_ABI_VERSION);
  } else if (package.weightsHash() != tfm_model.weights_hash) {
    std::snprintf(text, sizeof(text),
                  "package weights hash 0x%016" PRIx64
                  " does not match the compiled model's 0x%016" PRIx64
                  " (package built for a different model?)",
                  package.weightsHash(), tfm_model.weights_hash);
  } else if (package.weightsBytes() != tfm_model.weights_bytes) {
    std::snprintf(text, sizeof(text),
                  "weights blob is %" PRIu64
                  " bytes but the compiled model expects %" PRIu64,
                  package.weightsBytes(), tfm_model.weights_bytes);
  } else {
    return true;
  }
  error = "'" + name + "': " + text;
  return false;
}

bool readPackageTokenId(const Package &package, const char *key,
                        const std::string &name, int &id, std::string &error) {
  std::string text(package.get(key));
  id = -1;
  if (text.empty())
    return true;
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || value < -1 ||
      value >= static_cast<long>(tfm_model.vocab_size)) {
    error = "'" + name + "': metadata '" + key + "' is '" + text +
            "', not a token id in [-1, " +
            std::to_string(tfm_model.vocab_size) + ")";
    return false;
  }
  id = static_cast<int>(value);
  return true;
}

} // namespace tfm::rt
