//===- Executable.cpp - Link a model's objects into an executable ---------===//
#include "compiler/link/Executable.h"

#include "compiler/link/Toolchain.h"

#include "llvm/ADT/SmallVector.h"

using namespace tfmc;

llvm::Error tfmc::linkExecutable(const ObjectSet &code,
                                 const std::string &outputPath,
                                 const LinkInputs &inputs) {
  auto runtime = findRuntimeLibraries();
  if (!runtime)
    return runtime.takeError();
  auto driver = findCompilerDriver();
  if (!driver)
    return driver.takeError();
  std::string mainLib = runtime->main();
  std::string baseLib = runtime->base();
  llvm::SmallVector<llvm::StringRef> args = {*driver, "-o", outputPath};
  for (const std::string &object : code.objects)
    args.push_back(object);
  // The code's archives (kernels, a device runtime) and the tfmc runtime
  // refer to one another (main() calls the entries, a device implements
  // the runtime's interface): one group, searched until nothing is left.
  args.push_back("-Wl,--start-group");
  for (const std::string &archive : code.archives)
    args.push_back(archive);
  args.append({mainLib, baseLib, "-Wl,--end-group", "-lm", "-lpthread"});
  for (llvm::StringRef flag : runtimeLinkFlags())
    args.push_back(flag);
  for (const std::string &argument : inputs.arguments)
    args.push_back(argument);
  return runProgram(*driver, args, "linking '" + outputPath + "'");
}
