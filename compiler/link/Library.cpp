//===- Library.cpp - A model as a static library with a C API -------------===//
#include "compiler/link/Library.h"

#include "compiler/link/ModelPackage.h"
#include "compiler/link/OutputFile.h"
#include "compiler/link/Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

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
  return runProgram(*driver, args, "assembling the package object");
}

/// Writes the archive `outputPath` holding `objects` (file, member name)
/// and every member of the archives `libraries`.
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

/// Writes `text` to `file`, which will be `path`.
static llvm::Error writeText(const OutputFile &file, const std::string &path,
                             llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(file.temporaryPath(), ec, llvm::sys::fs::OF_Text);
  if (!ec) {
    out << text;
    out.close();
    ec = out.error();
  }
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  return llvm::Error::success();
}

llvm::Error
tfmc::writeModelLibrary(const ObjectSet &code, const std::string &outputDir,
                        const LinkInputs &inputs, const ModelSpec &spec,
                        const mlir::tfm::WeightLayout &layout,
                        const tfm::rt::PackageMetadata &targetMetadata,
                        const PackageWeights &weights) {
  std::string name = libraryName(outputDir);
  if (name.empty())
    return makeError("--emit=lib needs -o DIR, a directory whose name names "
                     "the library");
  auto runtime = findRuntimeLibraries();
  if (!runtime)
    return runtime.takeError();
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

  // Each file is written beside its name and all are renamed into place
  // at the end (compiler/link/OutputFile.h): a failed compile keeps the
  // library that was there.
  auto packageFile = OutputFile::beside(inDir(name + ".tfmpkg"));
  auto archiveFile = OutputFile::beside(inDir("lib" + name + ".a"));
  auto headerFile = OutputFile::beside(inDir(name + ".h"));
  auto linkFile = OutputFile::beside(inDir(name + ".link"));
  for (llvm::Expected<OutputFile> *file :
       {&packageFile, &archiveFile, &headerFile, &linkFile})
    if (!*file)
      return file->takeError();

  // The package: a file of its own (tfmc_context_create(path)), also
  // linked into the library (tfmc_context_create(NULL)).
  const std::string &packagePath = packageFile->temporaryPath();
  if (auto error = appendModelPackage(packagePath, spec, layout, targetMetadata,
                                      weights))
    return error;
  llvm::SmallString<128> packageObject;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tfmc-package", "o", packageObject))
    return makeError("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removePackageObject(packageObject);
  if (auto error =
          assemblePackageObject(packagePath, std::string(packageObject)))
    return error;

  // Members are named after their files, which a backend names apart.
  std::vector<std::pair<std::string, std::string>> objects;
  for (const std::string &object : code.objects)
    objects.emplace_back(object, llvm::sys::path::filename(object).str());
  objects.emplace_back(std::string(packageObject), "tfmc_package.o");
  std::vector<std::string> archives = code.archives;
  archives.push_back(runtime->library());
  archives.push_back(runtime->base());
  if (auto error =
          writeArchive(archiveFile->temporaryPath(), objects, archives))
    return error;

  // The header, with a first line that says which library it belongs to.
  std::string headerSource = runtime->header();
  auto header = llvm::MemoryBuffer::getFile(headerSource);
  if (!header)
    return makeError("cannot read the runtime's C header '" + headerSource +
                     "': " + header.getError().message());
  std::string headerText = "/* " + name + ".h: the C API of lib" + name +
                           ".a, compiled by tfmc from " + spec.description +
                           " */\n" + (*header)->getBuffer().str();
  if (auto error = writeText(*headerFile, inDir(name + ".h"), headerText))
    return error;

  // What a C program linking the library adds: the C++ runtime the tfmc
  // runtime is written against, libm, threads, the backend's libraries.
  std::string linkText = "-lstdc++ -lm -lpthread";
  for (llvm::StringRef flag : runtimeLinkFlags())
    linkText += " " + flag.str();
  for (const std::string &argument : inputs.arguments)
    linkText += " " + argument;
  linkText += "\n";
  if (auto error = writeText(*linkFile, inDir(name + ".link"), linkText))
    return error;
  for (llvm::Expected<OutputFile> *file :
       {&packageFile, &archiveFile, &headerFile, &linkFile})
    if (auto error = (*file)->commit())
      return error;
  return llvm::Error::success();
}
