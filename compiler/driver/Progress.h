//===- Progress.h - What tfmc compile is doing, on a terminal ---*- C++ -*-===//
//
// A compile of a real model takes tens of seconds; on a terminal (or with
// --progress) each finished stage prints a line with its time, and the end
// `wrote OUT (SIZE) in T s`. Lines go to stderr so that a stage printed to
// stdout stays clean.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_DRIVER_PROGRESS_H
#define TFMC_COMPILER_DRIVER_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <chrono>
#include <string>

namespace tfmc {

class Progress {
public:
  /// Whether lines are printed: `forced` (--progress), or stderr is a
  /// terminal.
  explicit Progress(bool forced);

  /// `what` has finished: prints it with the time since the last step.
  void step(const llvm::Twine &what);
  /// The output is written: its size (a library's: its directory's files)
  /// and the whole compile's time.
  void wrote(llvm::StringRef path);

private:
  using Clock = std::chrono::steady_clock;
  bool enabled;
  Clock::time_point start, last;
};

/// `bytes` as people read sizes: "812 B", "3.4 KiB", "1.2 GiB".
std::string formatSize(uint64_t bytes);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_PROGRESS_H
