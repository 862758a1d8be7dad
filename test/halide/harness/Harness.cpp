//===- Harness.cpp - Runs a generated kernel against a reference ----------===//
#include "test/halide/harness/Harness.h"

#include "test/halide/harness/Checks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

using namespace tfmc::halide;
using namespace tfmc::halide::harness;

namespace {

const char kUsage[] =
    "usage: HARNESS DESCRIPTION.json [--kernel NAME] [--seed N] [--pos N]\n"
    "               [--tolerance T] [--exact-weights] [--ties] [--threads]\n"
    "               [--print-abi] [--bench N]\n"
    "Checks each kernel linked in (or NAME) against DESCRIPTION.json.\n"
    "--bench N also times N calls with the data resident where the kernel\n"
    "runs (inputs copied to a GPU once) and prints the median and the\n"
    "input bytes over it.\n";

std::atomic<int> parForCalls{0}, parForTasks{0};

/// A do_par_for of the produced binary's own: plain threads, each taking
/// tasks from a shared counter. Halide's kernels call it for every parallel
/// loop once it is installed (halide_set_custom_do_par_for).
int ownDoParFor(void *context, halide_task_t task, int min, int size,
                uint8_t *closure) {
  ++parForCalls;
  parForTasks += size;
  std::atomic<int> next{min}, failure{0};
  auto work = [&] {
    for (int i; (i = next++) < min + size;)
      if (int status = task(context, i, closure))
        failure = status;
  };
  std::thread helper(work);
  work();
  helper.join();
  return failure;
}

/// Halide's default handler aborts; a produced binary installs its own
/// (halide_set_error_handler) so that a failing kernel returns its error,
/// as this one does.
void printError(void *, const char *message) {
  std::printf("halide error: %s", message);
  if (!*message || message[std::strlen(message) - 1] != '\n')
    std::printf("\n");
  std::fflush(stdout);
}

void printAbi(const halide_filter_metadata_t *metadata) {
  static const char *kKinds[] = {"scalar", "input", "output"};
  for (int i = 0; i < metadata->num_arguments; ++i) {
    const halide_filter_argument_t &arg = metadata->arguments[i];
    std::printf("argument %d: %s %s %s%d x%d\n", i, kKinds[arg.kind], arg.name,
                arg.type.code == halide_type_float  ? "float"
                : arg.type.code == halide_type_uint ? "uint"
                                                    : "int",
                arg.type.bits, arg.dimensions);
  }
}

/// Checks one kernel; false when a check failed.
bool runKernel(const std::vector<KernelDescription> &kernels,
               const char *descriptionPath, const KernelEntry &entry,
               const Options &options, bool threads, bool abi, int bench) {
  const halide_filter_metadata_t *metadata = entry.metadata();
  std::printf("== %s\n", metadata->name);
  const KernelDescription *description = nullptr;
  for (const KernelDescription &candidate : kernels)
    if (candidate.name == metadata->name)
      description = &candidate;
  if (!description) {
    std::printf("%s does not describe kernel '%s': FAIL\n", descriptionPath,
                metadata->name);
    return false;
  }
  if (abi) {
    printAbi(metadata);
    return true;
  }
  parForCalls = 0;
  parForTasks = 0;
  Invoke invoke = [&](Arguments &args) {
    int status = 0;
    std::string message;
    if (!args.call(entry.argv, metadata, status, message)) {
      std::printf("%s: FAIL\n", message.c_str());
      std::exit(1);
    }
    if (status != 0) {
      std::printf("kernel %s returned %d: FAIL\n", metadata->name, status);
      std::exit(1);
    }
    if (bench > 0) {
      std::vector<double> seconds;
      int64_t inputBytes = 0;
      if (!args.bench(entry.argv, metadata, bench, seconds, inputBytes,
                      message)) {
        std::printf("%s: FAIL\n", message.c_str());
        std::exit(1);
      }
      double median = seconds[seconds.size() / 2];
      std::printf("bench: %s median %.3f us over %d calls, %lld input bytes, "
                  "%.1f GB/s\n",
                  metadata->name, median * 1e6, bench,
                  static_cast<long long>(inputBytes),
                  inputBytes / median / 1e9);
    }
  };
  bool ok = check(*description, options, invoke);
  if (threads)
    std::printf("do_par_for routed to the harness: %d calls, %d tasks\n",
                parForCalls.load(), parForTasks.load());
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok;
}

} // namespace

/// LeakSanitizer's suppressions in the sanitized build: the OpenCL ICD
/// loader, pocl and the LLVM pocl loads keep allocations for the life of
/// the process. (An unused function elsewhere.)
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libOpenCL\nleak:libpocl\nleak:libLLVM\nleak:libhwloc\n";
}

int tfmc::halide::harness::run(int argc, char **argv,
                               const KernelEntry *entries, int count) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  Options options;
  bool threads = false, abi = false;
  int bench = 0;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 == argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--kernel")
      only = value();
    else if (arg == "--seed")
      options.seed = std::strtoull(value(), nullptr, 10);
    else if (arg == "--pos")
      options.pos = std::atoi(value());
    else if (arg == "--tolerance")
      options.tolerance = std::atof(value());
    else if (arg == "--exact-weights")
      options.exactWeights = true;
    else if (arg == "--ties")
      options.ties = true;
    else if (arg == "--threads")
      threads = true;
    else if (arg == "--print-abi")
      abi = true;
    else if (arg == "--bench")
      bench = std::atoi(value());
    else {
      std::fprintf(stderr, "unknown option %s\n%s", arg.c_str(), kUsage);
      return 2;
    }
  }

  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::vector<KernelDescription> kernels;
  std::string error;
  if (!file || !parseKernelDescriptions(text.str(), kernels, error)) {
    std::fprintf(stderr, "%s: %s\n", argv[1],
                 error.empty() ? "cannot read" : error.c_str());
    return 2;
  }
  halide_set_error_handler(printError);
  // Halide's runtime looks for the CUDA and OpenCL entry points among the
  // process's global symbols before it opens the unversioned libcuda.so /
  // libOpenCL.so (which only -dev packages provide): load the drivers'
  // versioned libraries globally, as a produced binary does. Where there
  // is none, the kernels report it through the error handler.
  dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (threads)
    halide_set_custom_do_par_for(ownDoParFor);
  bool ok = true, ran = false;
  for (int i = 0; i < count; ++i) {
    if (!only.empty() && only != entries[i].metadata()->name)
      continue;
    ran = true;
    ok &= runKernel(kernels, argv[1], entries[i], options, threads, abi, bench);
  }
  if (!ran) {
    std::fprintf(stderr, "no kernel named '%s' is linked in\n", only.c_str());
    return 2;
  }
  return ok ? 0 : 1;
}
