//===- Weight.cpp - A canonical weight: a stored tensor + transforms ------===//
#include "compiler/weights/Weight.h"

#include "compiler/weights/Transforms.h"

#include <cassert>

using namespace tfmc::weights;

Weight::Weight(TensorView source, std::string origin)
    : source_(std::move(source)), origin_(std::move(origin)),
      shape_(source_.shape()) {}

Weight Weight::then(Transform step) const {
  Weight result = *this;
  switch (step.kind) {
  case Transform::Kind::Transpose:
    assert(shape_.size() == 2 && "transpose of a non-matrix");
    std::swap(result.shape_[0], result.shape_[1]);
    break;
  case Transform::Kind::Rows:
    assert(!shape_.empty() && step.begin >= 0 && step.count >= 0 &&
           step.begin + step.count <= shape_[0] && "rows out of range");
    result.shape_[0] = step.count;
    break;
  case Transform::Kind::RowGroups:
    assert(!shape_.empty() && step.stride > 0 && shape_[0] % step.stride == 0 &&
           step.begin >= 0 && step.count >= 0 &&
           step.begin + step.count <= step.stride && "row groups out of range");
    result.shape_[0] = shape_[0] / step.stride * step.count;
    break;
  }
  result.steps_.push_back(step);
  return result;
}

llvm::Expected<TensorView> Weight::materialize(ElementType type) const {
  // The steps only move elements: applied in the stored type, they move
  // half the bytes of an f16 source.
  TensorView tensor = source_;
  // Steps move elements, which blocks sharing a scale cannot do.
  if (isBlockQuantized(tensor.type()) && !steps_.empty()) {
    auto wide = cast(tensor, ElementType::F32);
    if (!wide)
      return wide.takeError();
    tensor = std::move(*wide);
  }
  for (const Transform &step : steps_) {
    switch (step.kind) {
    case Transform::Kind::Transpose:
      tensor = transpose(tensor);
      break;
    case Transform::Kind::Rows:
      tensor = tensor.rows(step.begin, step.count);
      break;
    case Transform::Kind::RowGroups: {
      std::vector<TensorView> parts;
      for (int64_t group = 0; group < tensor.shape()[0]; group += step.stride)
        parts.push_back(tensor.rows(group + step.begin, step.count));
      auto stacked = stack(parts);
      if (!stacked)
        return stacked.takeError();
      tensor = std::move(*stacked);
      break;
    }
    }
  }
  return cast(tensor, type);
}
