//===- Panels.cpp - Projection weights as column panels -------------------===//
#include "compiler/weights/Panels.h"

#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace tfmc::weights;

namespace {

template <unsigned Size>
void packElements(const char *matrix, int64_t rows, int64_t columns,
                  int64_t panels, int64_t width, char *out) {
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k = 0; k < columns; ++k)
      for (int64_t j = 0; j < width; ++j, out += Size) {
        int64_t row = p * width + j;
        if (row < rows)
          std::memcpy(out, matrix + (row * columns + k) * Size, Size);
        else
          std::memset(out, 0, Size);
      }
}

} // namespace

int64_t tfmc::weights::panelCount(int64_t rows, int64_t width, int64_t group) {
  int64_t panels = llvm::divideCeil(rows, width);
  int64_t grouped = llvm::alignTo(panels, group);
  return (grouped - panels) * 64 <= panels ? grouped : panels;
}

llvm::Expected<TensorView> tfmc::weights::packPanels(const TensorView &matrix,
                                                     int64_t panels,
                                                     int64_t width) {
  if (matrix.rank() != 2 || matrix.shape()[0] > panels * width)
    return llvm::createStringError(
        "a " + shapeString(matrix.shape()) + " matrix does not fit " +
        llvm::Twine(panels) + " panels of " + llvm::Twine(width) + " rows");
  int64_t rows = matrix.shape()[0], columns = matrix.shape()[1];
  return TensorView::create(
      matrix.type(), {panels, columns, width}, [&](char *out) {
        if (blockBytes(matrix.type()) == 4)
          packElements<4>(matrix.data(), rows, columns, panels, width, out);
        else
          packElements<2>(matrix.data(), rows, columns, panels, width, out);
      });
}
