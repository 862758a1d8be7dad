//===- Link.cpp - Produce executables from a model object -----------------===//
#include "compiler/link/Link.h"

#include "compiler/weights/SlotContents.h"
#include "runtime/Package.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Where libtfmrt*.a live: next to the build tree's tools, or in the
/// install prefix's lib/ relative to the running tfmc.
static llvm::Expected<std::string> findRuntimeLibraryDir() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TFMC_RUNTIME_LIB_DIR"))
    candidates.push_back(env);
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findRuntimeLibraryDir));
  if (!self.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(dir, "..", "lib");
    candidates.push_back(std::string(dir));
  }
  candidates.push_back(TFMC_RUNTIME_LIB_DIR);
  for (const std::string &dir : candidates) {
    llvm::SmallString<256> probe(dir);
    llvm::sys::path::append(probe, "libtfmrt_main.a");
    if (llvm::sys::fs::exists(probe))
      return dir;
  }
  return makeError("cannot find the tfmc runtime (libtfmrt_main.a); set "
                   "TFMC_RUNTIME_LIB_DIR to the directory that holds it");
}

/// The C++ compiler driver that links executables (and assembles the
/// package object of a library).
static llvm::Expected<std::string> findCompilerDriver() {
#ifdef TFMC_LINK_DRIVER
  // A sanitized tfmc: its runtime needs the compiler it was built with.
  std::string driverName = TFMC_LINK_DRIVER;
#else
  const char *cxxEnv = std::getenv("CXX");
  std::string driverName = cxxEnv && *cxxEnv ? cxxEnv : "c++";
#endif
  auto driver = llvm::sys::findProgramByName(driverName);
  if (!driver)
    return makeError("cannot find the C++ compiler driver '" + driverName +
                     "' used to link executables (set CXX)");
  return *driver;
}

llvm::Error tfmc::linkExecutable(const std::string &objectPath,
                                 const std::string &outputPath,
                                 const LinkInputs &inputs) {
  auto libDir = findRuntimeLibraryDir();
  if (!libDir)
    return libDir.takeError();
  auto driver = findCompilerDriver();
  if (!driver)
    return driver.takeError();
  std::string mainLib = *libDir + "/libtfmrt_main.a";
  std::string runtimeLib = *libDir + "/libtfmrt.a";
  llvm::SmallVector<llvm::StringRef> args = {*driver,    "-o",       outputPath,
                                             objectPath, mainLib,    runtimeLib,
                                             "-lm",      "-lpthread"};
#ifdef TFMC_LINK_FLAGS
  args.push_back(TFMC_LINK_FLAGS);
#endif
  for (const std::string &argument : inputs.arguments)
    args.push_back(argument);
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return makeError("linking '" + outputPath + "' failed (" + *driver +
                     " exited with " + llvm::Twine(status) +
                     (message.empty() ? "" : ": " + message) + ")");
  return llvm::Error::success();
}

llvm::Error tfmc::appendModelPackage(const std::string &executablePath,
                                     const ModelSpec &spec,
                                     const mlir::tfm::WeightLayout &layout) {
  tfm::rt::PackageWriter writer;
  std::string error;
  if (!writer.begin(executablePath, layout.totalBytes, error))
    return makeError(error);
  weights::ModelWeights model{spec.weights, spec.description};
  for (const mlir::tfm::WeightSlot &slot : layout.slots) {
    auto contents = weights::materializeSlot(slot, model);
    if (!contents)
      return contents.takeError();
    if (!writer.writeZeros(slot.offset - writer.written(), error) ||
        !writer.write(contents->data(), contents->size(), error))
      return makeError(error);
  }
  if (!writer.writeZeros(layout.totalBytes - writer.written(), error))
    return makeError(error);
  tfm::rt::PackageMetadata metadata;
  metadata["tokenizer.kind"] = spec.tokenizer.kind;
  metadata["tokenizer.data"] = spec.tokenizer.blob;
  metadata["token.bos"] = std::to_string(spec.tokenizer.bos);
  metadata["token.eos"] = std::to_string(spec.tokenizer.eos);
  metadata["model.description"] = spec.description;
  if (!spec.note.empty())
    metadata["model.note"] = spec.note;
  if (spec.config.kind == ModelKind::EncoderOnly)
    metadata["embedding.pooling"] = spec.config.embeddingPooling;
  if (!writer.finish(layout.hash, metadata, error))
    return makeError(error);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// --emit=lib
//===----------------------------------------------------------------------===//

std::string tfmc::libraryName(const std::string &outputDir) {
  llvm::StringRef trimmed = llvm::StringRef(outputDir).rtrim('/');
  std::string name = llvm::sys::path::filename(trimmed).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  return name;
}

/// Assembles an object that holds the file `packagePath` between the
/// symbols tfmc_embedded_package and tfmc_embedded_package_end (what
/// runtime/ModelLibrary.cpp opens when given no path), starting on a page
/// so that the weights blob is as aligned in memory as in the file.
static llvm::Error assemblePackageObject(const std::string &packagePath,
                                         const std::string &objectPath) {
  auto driver = findCompilerDriver();
  if (!driver)
    return driver.takeError();
  llvm::SmallString<128> asmPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tfmc-package", "s", asmPath))
    return makeError("cannot create a temporary assembly file: " +
                     ec.message());
  llvm::FileRemover removeAsm(asmPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(asmPath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot write '" + asmPath + "': " + ec.message());
    std::string quoted;
    for (char c : packagePath) {
      if (c == '"' || c == '\\')
        quoted += '\\';
      quoted += c;
    }
    os << "  .section .rodata.tfmc_package,\"a\",@progbits\n"
       << "  .balign 4096\n"
       << "  .globl tfmc_embedded_package\n"
       << "  .type tfmc_embedded_package,@object\n"
       << "tfmc_embedded_package:\n"
       << "  .incbin \"" << quoted << "\"\n"
       << "  .globl tfmc_embedded_package_end\n"
       << "tfmc_embedded_package_end:\n"
       << "  .section .note.GNU-stack,\"\",@progbits\n";
  }
  llvm::SmallVector<llvm::StringRef> args = {
      *driver, "-c", "-x", "assembler", asmPath, "-o", objectPath};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return makeError("assembling the package object failed (" + *driver +
                     " exited with " + llvm::Twine(status) +
                     (message.empty() ? "" : ": " + message) + ")");
  return llvm::Error::success();
}

/// Writes the archive `outputPath` holding `objects` (named by
/// `memberNames`) and every member of the archives `libraries`.
static llvm::Error
writeArchive(const std::string &outputPath,
             llvm::ArrayRef<std::pair<std::string, std::string>> objects,
             llvm::ArrayRef<std::string> libraries) {
  std::vector<llvm::NewArchiveMember> members;
  for (const auto &[path, memberName] : objects) {
    auto member = llvm::NewArchiveMember::getFile(path, /*Deterministic=*/true);
    if (!member)
      return makeError("cannot read '" + path +
                       "': " + llvm::toString(member.takeError()));
    member->MemberName = memberName;
    members.push_back(std::move(*member));
  }
  // The members point into these buffers until the archive is written.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
  std::vector<std::unique_ptr<llvm::object::Archive>> archives;
  for (const std::string &library : libraries) {
    auto buffer = llvm::MemoryBuffer::getFile(library);
    if (!buffer)
      return makeError("cannot read '" + library +
                       "': " + buffer.getError().message());
    auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
    if (!archive)
      return makeError("'" + library + "' is not an archive: " +
                       llvm::toString(archive.takeError()));
    llvm::Error error = llvm::Error::success();
    for (const llvm::object::Archive::Child &child :
         (*archive)->children(error)) {
      auto member = llvm::NewArchiveMember::getOldMember(child, true);
      if (!member)
        return makeError("cannot read a member of '" + library +
                         "': " + llvm::toString(member.takeError()));
      members.push_back(std::move(*member));
    }
    if (error)
      return makeError("cannot read '" + library +
                       "': " + llvm::toString(std::move(error)));
    buffers.push_back(std::move(*buffer));
    archives.push_back(std::move(*archive));
  }
  if (llvm::Error error = llvm::writeArchive(
          outputPath, members, llvm::SymtabWritingMode::NormalSymtab,
          llvm::object::Archive::K_GNU, /*Deterministic=*/true,
          /*Thin=*/false))
    return makeError("cannot write '" + outputPath +
                     "': " + llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Error tfmc::writeModelLibrary(const std::string &objectPath,
                                    const std::string &outputDir,
                                    const LinkInputs &inputs,
                                    const ModelSpec &spec,
                                    const mlir::tfm::WeightLayout &layout) {
  std::string name = libraryName(outputDir);
  if (name.empty())
    return makeError("--emit=lib needs -o DIR, a directory whose name names "
                     "the library");
  auto libDir = findRuntimeLibraryDir();
  if (!libDir)
    return libDir.takeError();
  if (llvm::sys::fs::exists(outputDir) &&
      !llvm::sys::fs::is_directory(outputDir))
    return makeError("--emit=lib writes a directory, but '" + outputDir +
                     "' is a file");
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return makeError("cannot create the directory '" + outputDir +
                     "': " + ec.message());
  auto inDir = [&](const std::string &file) {
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, file);
    return std::string(path);
  };

  // The package: a file of its own (tfmc_context_create(path)), also
  // linked into the library (tfmc_context_create(NULL)).
  std::string packagePath = inDir(name + ".tfmpkg");
  llvm::sys::fs::remove(packagePath);
  llvm::FileRemover removePackage(packagePath);
  if (auto error = appendModelPackage(packagePath, spec, layout))
    return error;
  llvm::SmallString<128> packageObject;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tfmc-package", "o", packageObject))
    return makeError("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removePackageObject(packageObject);
  if (auto error =
          assemblePackageObject(packagePath, std::string(packageObject)))
    return error;

  std::string archivePath = inDir("lib" + name + ".a");
  if (auto error =
          writeArchive(archivePath,
                       {{objectPath, "tfmc_model.o"},
                        {std::string(packageObject), "tfmc_package.o"}},
                       {*libDir + "/libtfmrt_lib.a", *libDir + "/libtfmrt.a"}))
    return error;

  // The header, with a first line that says which library it belongs to.
  std::string headerSource = *libDir + "/ModelLibrary.h";
  auto header = llvm::MemoryBuffer::getFile(headerSource);
  if (!header)
    return makeError("cannot read the runtime's C header '" + headerSource +
                     "': " + header.getError().message());
  std::error_code ec;
  llvm::raw_fd_ostream headerOut(inDir(name + ".h"), ec,
                                 llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write '" + inDir(name + ".h") +
                     "': " + ec.message());
  headerOut << "/* " << name << ".h: the C API of lib" << name
            << ".a, compiled by tfmc from " << spec.description << " */\n"
            << (*header)->getBuffer();

  // What a C program linking the library adds: the C++ runtime the tfmc
  // runtime is written against, libm, threads, the backend's libraries.
  llvm::raw_fd_ostream linkOut(inDir(name + ".link"), ec,
                               llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write '" + inDir(name + ".link") +
                     "': " + ec.message());
  linkOut << "-lstdc++ -lm -lpthread";
#ifdef TFMC_LINK_FLAGS
  linkOut << " " << TFMC_LINK_FLAGS;
#endif
  for (const std::string &argument : inputs.arguments)
    linkOut << " " << argument;
  linkOut << "\n";
  removePackage.releaseFile();
  return llvm::Error::success();
}
