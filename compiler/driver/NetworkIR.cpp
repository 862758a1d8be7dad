//===- NetworkIR.cpp - A tfm-stage .mlir as the network to compile --------===//
#include "compiler/driver/NetworkIR.h"

#include "compiler/frontends/ModelFormat.h"
#include "dialect/TfmContracts.h"
#include "dialect/TfmOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/SourceMgr.h"

using namespace tfmc;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string typeString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string attrString(mlir::Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

} // namespace

bool tfmc::isNetworkIR(const std::string &path) {
  auto format = frontends::detectModelFormat(path);
  if (!format) {
    llvm::consumeError(format.takeError());
    return false;
  }
  return *format == frontends::ModelFormat::TfmIR;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
tfmc::readNetworkIR(mlir::MLIRContext &context, const std::string &path,
                    mlir::ModuleOp reference, const std::string &weightsFrom) {
  // Parse and verifier errors print with their file:line:column.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> ir =
      mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr, &context);
  if (!ir)
    return makeError("cannot read '" + path + "' as IR in the tfm dialect");
  if (mlir::failed(mlir::verify(*ir)))
    return makeError("'" + path + "' does not verify");

  // Later stages carry the entry points and the weights' layout, which the
  // passes from the tfm stage on would make a second time.
  if (!mlir::tfm::getModel(*ir))
    return makeError("'" + path +
                     "' has no #tfm.model: compile the IR that `tfmc compile "
                     "MODEL --compile-to=tfm` prints");
  if (mlir::tfm::getEntries(*ir) || mlir::tfm::getTarget(*ir))
    return makeError("'" + path +
                     "' is past the tfm stage (it has entry points): "
                     "compile the IR that `tfmc compile MODEL "
                     "--compile-to=tfm` prints");
  if (mlir::tfm::getModelKind(*ir) != mlir::tfm::getModelKind(reference))
    return makeError(
        "'" + path + "' is a network of kind '" +
        mlir::tfm::stringifyModelKind(*mlir::tfm::getModelKind(*ir)) +
        "', but '" + weightsFrom + "' is a model of kind '" +
        mlir::tfm::stringifyModelKind(*mlir::tfm::getModelKind(reference)) +
        "'");

  // The package holds the reference's weights: each the IR declares must
  // be one of them, as tfmc declares it (type, stored format).
  for (auto weight : ir->getOps<mlir::tfm::GlobalWeightOp>()) {
    auto expected = llvm::dyn_cast_or_null<mlir::tfm::GlobalWeightOp>(
        mlir::SymbolTable::lookupSymbolIn(reference, weight.getSymNameAttr()));
    if (!expected)
      return makeError("'" + path + "' declares weight @" +
                       weight.getSymName() + ", which '" + weightsFrom +
                       "' does not have");
    if (weight.getType() != expected.getType())
      return makeError("'" + path + "' declares weight @" +
                       weight.getSymName() + " as " +
                       typeString(weight.getType()) + ", but '" + weightsFrom +
                       "' has " + typeString(expected.getType()));
    if (weight->getAttrDictionary() != expected->getAttrDictionary())
      return makeError(
          "'" + path + "' declares weight @" + weight.getSymName() + " with " +
          attrString(weight->getAttrDictionary()) + ", but '" + weightsFrom +
          "' stores it as " + attrString(expected->getAttrDictionary()));
  }
  return ir;
}
