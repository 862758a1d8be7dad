//===- Progress.h - What tfmc compile is doing, on a terminal ---*- C++ -*-===//
//
// A compile of a real model takes tens of seconds; on a terminal (or with
// --progress) each finished stage prints a line with its time, and the end
// `wrote OUT (SIZE) in T s`; on a terminal, writing the weights updates one
// line with the bytes written and the rate. --quiet prints nothing. Lines go
// to stderr so that a stage printed to stdout stays clean.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_DRIVER_PROGRESS_H
#define TFMC_COMPILER_DRIVER_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace tfmc {

class Progress {
public:
  /// Whether lines are printed: `forced` (--progress), or stderr is a
  /// terminal, unless `quiet`.
  Progress(bool forced, bool quiet);

  /// `what` has finished: prints it with the time since the last step.
  void step(const llvm::Twine &what);
  /// The output is written: its size (a library's: its directory's files)
  /// and the whole compile's time.
  void wrote(llvm::StringRef path);
  /// `done` of `total` bytes of `what` are written: on a terminal, one line
  /// rewritten in place (at most every quarter second, and at the end).
  void bytes(llvm::StringRef what, uint64_t done, uint64_t total);

private:
  using Clock = std::chrono::steady_clock;
  bool enabled;
  /// Stderr is a terminal and not --quiet: a line may be rewritten.
  bool live;
  Clock::time_point start, last, lastBytes;
  /// When the first bytes() of a run of them came: the rate's start.
  std::optional<Clock::time_point> bytesStart;
  /// The width of the line bytes() last wrote, to clear it.
  size_t liveWidth = 0;
};

/// `bytes` as people read sizes: "812 B", "3.4 KiB", "1.2 GiB".
std::string formatSize(uint64_t bytes);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_PROGRESS_H
