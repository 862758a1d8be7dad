//===- LinkTest.cpp - The artifact step links N objects and archives ------===//
//
// compiler/link: a model's code may be several objects (a Halide
// generator's kernels and runtime) and archives (a device runtime). Two
// objects compiled here split the ABI between them: `tfm_model` and
// tfm_set_num_threads in one, the entries in the other. The executable
// links only with both (main() needs the first's symbols) and runs; an
// archive stands for an object; the library holds both as members.
//
//===----------------------------------------------------------------------===//
#include "compiler/link/Executable.h"
#include "compiler/link/Library.h"
#include "compiler/link/Toolchain.h"

#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>

using namespace tfmc;

namespace {

const char *kModelInfo = R"c(
#include "runtime/ModelABI.h"
const tfm_model_info tfm_model = {.abi_version = TFM_ABI_VERSION,
                                  .vocab_size = 4, .context_length = 8,
                                  .prefill_chunk = 2,
                                  .device = TFM_DEVICE_HOST,
                                  .weights_alignment = 64};
void tfm_set_num_threads(int32_t threads) { (void)threads; }
)c";

/// Entries that leave their outputs alone: the test runs no model.
const char *kEntries = R"c(
#include "runtime/ModelABI.h"
void tfm_prefill(const uint8_t *w, const int32_t *t, int64_t p, int64_t c,
                 void *k, float *l, uint8_t *s, void *stream) {
  (void)w, (void)t, (void)p, (void)c, (void)k, (void)l, (void)s,
      (void)stream;
}
void tfm_decode(const uint8_t *w, const int32_t *t, int64_t p, void *k,
                float *l, uint8_t *s, void *stream) {
  (void)w, (void)t, (void)p, (void)k, (void)l, (void)s, (void)stream;
}
)c";

class LinkTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tfmc-link-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) const {
    llvm::SmallString<128> file(dir);
    llvm::sys::path::append(file, name);
    return std::string(file);
  }

  /// Compiles the C `source` into the object `name` in the test's directory.
  std::string compile(llvm::StringRef name, const char *source) {
    std::string sourcePath = path(name.str() + ".c");
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(sourcePath, ec);
      EXPECT_FALSE(ec);
      out << source;
    }
    auto driver = findCompilerDriver();
    EXPECT_TRUE(bool(driver));
    if (!driver) {
      llvm::consumeError(driver.takeError());
      return "";
    }
    std::string object = path(name);
    std::string include = "-I" TFMC_SOURCE_DIR;
    llvm::Error error = runProgram(*driver,
                                   {*driver, "-x", "c", "-std=c11", "-fPIC",
                                    include, "-c", sourcePath, "-o", object},
                                   "compiling " + name);
    EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
    return object;
  }

  /// Runs `executable --help`; its exit status.
  int runHelp(const std::string &executable) {
    std::string output = path("help.txt");
    std::optional<llvm::StringRef> redirects[] = {
        std::nullopt, llvm::StringRef(output), llvm::StringRef(output)};
    return llvm::sys::ExecuteAndWait(executable, {executable, "--help"},
                                     std::nullopt, redirects);
  }

  llvm::SmallString<128> dir;
};

TEST_F(LinkTest, AnExecutableLinksEveryObject) {
  std::string info = compile("model_info.o", kModelInfo);
  std::string entries = compile("entries.o", kEntries);
  std::string exe = path("model");
  llvm::Error error = linkExecutable({{info, entries}, {}}, exe, {});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(runHelp(exe), 0);

  // Without the first object, main()'s tfm_model is missing.
  llvm::Error missing = linkExecutable({{entries}, {}}, path("broken"), {});
  ASSERT_TRUE(bool(missing));
  EXPECT_NE(llvm::toString(std::move(missing)).find("linking '"),
            std::string::npos);
}

TEST_F(LinkTest, AnArchiveStandsForItsObjects) {
  std::string info = compile("model_info.o", kModelInfo);
  std::string entries = compile("entries.o", kEntries);
  std::string archive = path("libinfo.a");
  auto member = llvm::NewArchiveMember::getFile(info, true);
  ASSERT_TRUE(bool(member)) << llvm::toString(member.takeError());
  std::vector<llvm::NewArchiveMember> members;
  members.push_back(std::move(*member));
  ASSERT_FALSE(bool(llvm::writeArchive(
      archive, members, llvm::SymtabWritingMode::NormalSymtab,
      llvm::object::Archive::K_GNU, true, false)));
  std::string exe = path("model");
  llvm::Error error = linkExecutable({{entries}, {archive}}, exe, {});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(runHelp(exe), 0);
}

TEST_F(LinkTest, ALibraryHoldsEveryObject) {
  std::string info = compile("model_info.o", kModelInfo);
  std::string entries = compile("entries.o", kEntries);
  ModelSpec spec;
  spec.tokenizer = {"spm", "blob", 1, 2};
  spec.description = "two objects";
  mlir::tfm::WeightLayout layout;
  llvm::Error error =
      writeModelLibrary({{info, entries}, {}}, path("two"), {}, spec, layout);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));

  auto buffer = llvm::MemoryBuffer::getFile(path("two/libtwo.a"));
  ASSERT_TRUE(bool(buffer));
  auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
  ASSERT_TRUE(bool(archive)) << llvm::toString(archive.takeError());
  std::set<std::string> names;
  llvm::Error iteration = llvm::Error::success();
  for (const llvm::object::Archive::Child &child :
       (*archive)->children(iteration)) {
    auto name = child.getName();
    ASSERT_TRUE(bool(name));
    names.insert(name->str());
  }
  ASSERT_FALSE(bool(iteration));
  EXPECT_TRUE(names.count("model_info.o"));
  EXPECT_TRUE(names.count("entries.o"));
  EXPECT_TRUE(names.count("tfmc_package.o"));
}

} // namespace
