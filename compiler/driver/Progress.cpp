//===- Progress.cpp - What tfmc compile is doing, on a terminal -----------===//
#include "compiler/driver/Progress.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace tfmc;

namespace {

double secondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// A file's size, or a directory's files' sizes summed (one level: a
/// library directory holds files only).
uint64_t outputBytes(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return 0;
  if (status.type() != llvm::sys::fs::file_type::directory_file)
    return status.getSize();
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::sys::fs::file_status entry;
    if (!llvm::sys::fs::status(it->path(), entry) &&
        entry.type() == llvm::sys::fs::file_type::regular_file)
      total += entry.getSize();
  }
  return total;
}

} // namespace

std::string tfmc::formatSize(uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double value = double(bytes) / 1024;
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
  return text;
}

Progress::Progress(bool forced, bool quiet)
    : enabled(!quiet &&
              (forced || llvm::sys::Process::StandardErrIsDisplayed())),
      live(!quiet && llvm::sys::Process::StandardErrIsDisplayed()),
      start(Clock::now()), last(start), lastBytes(start) {}

void Progress::bytes(llvm::StringRef what, uint64_t done, uint64_t total) {
  if (!live)
    return;
  Clock::time_point now = Clock::now();
  if (!bytesStart)
    bytesStart = now;
  if (done < total && secondsBetween(lastBytes, now) < 0.25)
    return;
  lastBytes = now;
  double seconds = std::max(secondsBetween(*bytesStart, now), 1e-3);
  std::string line;
  llvm::raw_string_ostream os(line);
  os << "tfmc: " << what << " " << formatSize(done) << " / "
     << formatSize(total) << " ("
     << formatSize(static_cast<uint64_t>(double(done) / seconds)) << "/s)";
  os.flush();
  size_t width = line.size();
  line.append(liveWidth > width ? liveWidth - width : 0, ' ');
  llvm::errs() << "\r" << line;
  liveWidth = width;
  if (done >= total) {
    // The stage's own line follows on a clean one.
    llvm::errs() << "\r" << std::string(liveWidth, ' ') << "\r";
    liveWidth = 0;
    bytesStart.reset();
  }
  llvm::errs().flush();
}

void Progress::step(const llvm::Twine &what) {
  Clock::time_point now = Clock::now();
  if (enabled)
    llvm::errs() << "tfmc: " << what << " ("
                 << llvm::format("%.2f", secondsBetween(last, now)) << " s)\n";
  last = now;
}

void Progress::wrote(llvm::StringRef path) {
  if (!enabled)
    return;
  llvm::errs() << "tfmc: wrote " << path << " ("
               << formatSize(outputBytes(path)) << ") in "
               << llvm::format("%.1f", secondsBetween(start, Clock::now()))
               << " s\n";
}
