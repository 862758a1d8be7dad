//===- NetworkIR.h - A tfm-stage .mlir as the network to compile -*- C++
//-*-===//
//
// `tfmc compile FILE.mlir --weights-from MODEL`: the network is IR in the
// tfm dialect (what `--compile-to=tfm` prints, perhaps edited), and MODEL
// (a model file or preset) gives the weights, tokenizer and configuration
// that the package holds. The IR must declare the weights as tfmc would
// for MODEL, so that the blob the package holds is the one it reads.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_DRIVER_NETWORKIR_H
#define TFMC_COMPILER_DRIVER_NETWORKIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfmc {

/// Whether `path` names IR in the tfm dialect (MLIR text), by its content.
bool isNetworkIR(const std::string &path);

/// Parses and verifies the tfm-stage IR at `path` and checks it against
/// `reference`, the network tfmc builds from the weights' model
/// (`weightsFrom`, named in messages): the same model kind, and every
/// `tfm.global_weight` one of the reference's with the same type and
/// attributes.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
readNetworkIR(mlir::MLIRContext &context, const std::string &path,
              mlir::ModuleOp reference, const std::string &weightsFrom);

} // namespace tfmc

#endif // TFMC_COMPILER_DRIVER_NETWORKIR_H
