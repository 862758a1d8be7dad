//===- LinkInputs.h - What a model's executable or library links -*- C++
//-*-===//
#ifndef TFMC_COMPILER_LINK_LINKINPUTS_H
#define TFMC_COMPILER_LINK_LINKINPUTS_H

#include <string>
#include <vector>

namespace tfmc {

/// The code of a compiled model, as files its backend wrote: the host
/// object, any kernel objects (a Halide generator's, one per kernel, and
/// its runtime), and archives to link whole (a device runtime), in link
/// order. An executable links them with the tfmc runtime; a library holds
/// every object and every archive's members.
struct ObjectSet {
  std::vector<std::string> objects;  ///< .o files
  std::vector<std::string> archives; ///< .a files
};

/// What a produced executable links besides its objects and the tfmc
/// runtime (a backend's runtime libraries, e.g. OpenMP's).
struct LinkInputs {
  std::vector<std::string> arguments; ///< e.g. -L<dir> -lomp -Wl,-rpath,<dir>
};

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_LINKINPUTS_H
