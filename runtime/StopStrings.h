//===- StopStrings.h - End generation at a stop string --------------------===//
//
// `--stop STRING` ends generation where STRING first appears in the
// generated text (not the prompt); the text from it on is never printed, as
// llama.cpp's and OpenAI's stop sequences behave. Text streams out piece by
// piece, so what might be the start of a stop string is held back until the
// next pieces show whether it is one.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_STOPSTRINGS_H
#define TFMC_RUNTIME_STOPSTRINGS_H

#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

class StopStringFilter {
public:
  /// Empty strings are ignored.
  explicit StopStringFilter(std::vector<std::string> stops);

  /// Appends the next generated `piece` and returns the text that is now
  /// safe to print. Once a stop string appears, returns the text before it
  /// and stopped() turns true; later pieces are dropped.
  std::string push(std::string_view piece);
  bool stopped() const { return stopped_; }
  /// The text still held back, when generation ends without a stop string.
  std::string flush();

private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
};

} // namespace tfm::rt

#endif // TFMC_RUNTIME_STOPSTRINGS_H
