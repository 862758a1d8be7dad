//===- tfmc-halide-gen.cpp - Halide kernels for tfmc, in their own process ===//
//
// tfmc runs this program at model-compile time with JSON kernel
// descriptions (KernelDescription.h) and links what it writes: per kernel a
// static library (or object) built without a Halide runtime and its C
// header, and once the standalone runtime those kernels share. It links
// libHalide14 (LLVM 14) and nothing of LLVM 22, which must never share a
// process with it (../shared/TOOLCHAIN.md). docs/halide.md describes it.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/KernelDescription.h"
#include "compiler/backends/halide/gen/Generate.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tfmc::halide;

namespace {

const char kUsage[] =
    "usage: tfmc-halide-gen [options] DESCRIPTION.json...\n"
    "Writes, for each described kernel, NAME.a (or NAME.o) built without a\n"
    "Halide runtime and its C header NAME.h.\n"
    "  -o DIR                    the output directory (default: .)\n"
    "  --emit=library|object     NAME.a (default) or NAME.o\n"
    "  --emit-stmt               also NAME.stmt, the lowered Halide "
    "statements\n"
    "  --print-stmt              print each kernel's statements to stdout\n"
    "  --emit-device-source      also NAME.ptx (cuda) or NAME.cl (opencl)\n"
    "  --runtime=FILE            also the one Halide runtime object for the\n"
    "                            kernels' targets (their common CPU "
    "features,\n"
    "                            every device API)\n"
    "  --print-runtime-target    print the runtime's Halide target and stop\n"
    "  --halide-autoschedule=hand|adams2019|mullapudi2016|li2018\n"
    "                            schedule every kernel so, whatever its\n"
    "                            description says\n"
    "  --cpu-features=F1,F2,...  replace every kernel's x86 features\n"
    "  --device=none|cuda|opencl replace every kernel's device\n"
    "  --cuda-capability=N       with --device=cuda: the capability (80, "
    "...)\n"
    "  --autoscheduler-dir=DIR   where the autoscheduler plugins are\n"
    "  --print-description       print the descriptions as read and stop\n";

int fail(const std::string &message) {
  std::cerr << "tfmc-halide-gen: error: " << message << "\n";
  return 1;
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  std::stringstream text;
  text << file.rdbuf();
  out = text.str();
  return !file.bad();
}

std::vector<std::string> splitCommas(const std::string &list) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream stream(list);
  while (std::getline(stream, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// Generates `kernel` in a child process. Halide names Funcs uniquely per
/// process (a second "output" becomes "output$1", and the name is the C
/// argument's), so each kernel gets a fresh one; a crash inside Halide then
/// also fails one kernel with a message instead of the program.
bool generateInChild(const KernelDescription &kernel,
                     const GenerateOptions &options, std::string &error) {
  int channel[2];
  if (pipe(channel) != 0) {
    error = "cannot create a pipe";
    return false;
  }
  std::cout.flush();
  pid_t child = fork();
  if (child < 0) {
    error = "cannot fork";
    return false;
  }
  if (child == 0) {
    close(channel[0]);
    std::string message;
    bool ok = generateKernel(kernel, options, message);
    for (size_t done = 0; done < message.size();) {
      ssize_t n =
          write(channel[1], message.data() + done, message.size() - done);
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
    _exit(ok ? 0 : 1);
  }
  close(channel[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = read(channel[0], buffer, sizeof(buffer))) > 0;)
    message.append(buffer, static_cast<size_t>(n));
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return true;
  if (WIFSIGNALED(status))
    error = "kernel '" + kernel.name + "': the generator died of signal " +
            std::to_string(WTERMSIG(status));
  else
    error = message.empty() ? "kernel '" + kernel.name + "' failed" : message;
  return false;
}

bool startsWith(const std::string &text, const char *prefix,
                std::string &rest) {
  size_t n = std::char_traits<char>::length(prefix);
  if (text.compare(0, n, prefix) != 0)
    return false;
  rest = text.substr(n);
  return true;
}

} // namespace

/// LeakSanitizer's suppressions in the sanitized build: libHalide14 and its
/// LLVM 14 keep allocations for the life of the process. (An unused
/// function elsewhere.)
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libHalide14\n";
}

int main(int argc, char **argv) {
  GenerateOptions options;
  std::vector<std::string> inputs;
  std::string runtimePath, value;
  std::optional<Scheduler> scheduler;
  std::optional<std::vector<std::string>> cpuFeatures;
  std::optional<Device> device;
  std::optional<int64_t> cudaCapability;
  bool printStmt = false, printDescription = false, printRuntimeTarget = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "-o") {
      if (++i == argc)
        return fail("-o needs a directory");
      options.outputDir = argv[i];
    } else if (startsWith(arg, "--emit=", value)) {
      if (value != "library" && value != "object")
        return fail("--emit must be 'library' or 'object', not '" + value +
                    "'");
      options.objects = value == "object";
    } else if (arg == "--emit-stmt") {
      options.stmt = true;
    } else if (arg == "--print-stmt") {
      printStmt = options.stmt = true;
    } else if (arg == "--emit-device-source") {
      options.deviceSource = true;
    } else if (startsWith(arg, "--runtime=", value)) {
      if (value.empty())
        return fail("--runtime needs a file name");
      runtimePath = value;
    } else if (startsWith(arg, "--halide-autoschedule=", value)) {
      scheduler = parseSchedulerName(value);
      if (!scheduler)
        return fail("--halide-autoschedule must be hand, adams2019, "
                    "mullapudi2016 or li2018, not '" +
                    value + "'");
    } else if (startsWith(arg, "--cpu-features=", value)) {
      cpuFeatures = splitCommas(value);
    } else if (startsWith(arg, "--device=", value)) {
      device = parseDeviceName(value);
      if (!device)
        return fail("--device must be none, cuda or opencl, not '" + value +
                    "'");
    } else if (startsWith(arg, "--cuda-capability=", value)) {
      char *end = nullptr;
      cudaCapability = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end)
        return fail("--cuda-capability must be a number, not '" + value + "'");
    } else if (startsWith(arg, "--autoscheduler-dir=", value)) {
      options.pluginDir = value;
    } else if (arg == "--print-runtime-target") {
      printRuntimeTarget = true;
    } else if (arg == "--print-description") {
      printDescription = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "' (see --help)");
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty())
    return fail("no kernel descriptions given (see --help)");

  std::vector<KernelDescription> kernels;
  for (const std::string &path : inputs) {
    std::string text, error;
    if (!readFile(path, text))
      return fail("cannot read '" + path + "'");
    std::vector<KernelDescription> read;
    if (!parseKernelDescriptions(text, read, error))
      return fail(path + ": " + error);
    for (KernelDescription &kernel : read) {
      if (scheduler)
        kernel.scheduler = *scheduler;
      if (cpuFeatures)
        kernel.target.features = *cpuFeatures;
      if (device) {
        kernel.target.device = *device;
        kernel.target.cudaCapability = 0;
      }
      if (cudaCapability)
        kernel.target.cudaCapability = *cudaCapability;
      // The overrides must make sense for each kernel too.
      if (!verifyKernelDescription(kernel, error))
        return fail(path + ": " + error);
      for (const KernelDescription &other : kernels)
        if (other.name == kernel.name)
          return fail(path + ": two kernels are named '" + kernel.name + "'");
      kernels.push_back(std::move(kernel));
    }
  }
  if (printDescription) {
    std::cout << writeKernelDescriptions(kernels);
    return 0;
  }
  if (printRuntimeTarget) {
    std::cout << runtimeTarget(kernels).to_string() << "\n";
    return 0;
  }
  struct stat info;
  if (stat(options.outputDir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return fail("the output directory '" + options.outputDir +
                "' does not exist");

  for (const KernelDescription &kernel : kernels) {
    std::string error;
    if (!generateInChild(kernel, options, error))
      return fail(error);
    if (printStmt) {
      std::string stmt;
      if (!readFile(options.outputDir + "/" + kernel.name + ".stmt", stmt))
        return fail("cannot read back the statements of '" + kernel.name + "'");
      std::cout << stmt;
    }
  }
  if (!runtimePath.empty()) {
    std::string error;
    if (!generateRuntime(kernels, runtimePath, error))
      return fail(error);
  }
  return 0;
}
