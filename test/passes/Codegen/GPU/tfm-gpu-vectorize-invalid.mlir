// RUN: tfmc-opt %s -split-input-file -verify-diagnostics -tfm-gpu-vectorize

// A warp reduction gathers rows along the reduced dimension only: a
// gathered column would be one element per row, no warp-wide slice.
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map4 = affine_map<(d0)[s0] -> (d0 * 4 + s0)>
func.func @gathered_column(%arg0: tensor<1x200xf32>, %arg1: tensor<1x2xi32>, %arg2: tensor<200x512xf32>) -> tensor<1x2x128xf32> {
  %c128 = arith.constant 128 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x2x128xf32>
  %1 = scf.forall (%arg3, %arg4) in (2, 32) shared_outs(%arg5 = %0) -> (tensor<1x2x128xf32>) {
    %2 = affine.apply #map(%arg4)
    %extracted_slice = tensor.extract_slice %arg1[0, %arg3] [1, 1] [1, 1] : tensor<1x2xi32> to tensor<1x1xi32>
    %extracted_slice_0 = tensor.extract_slice %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x2x128xf32> to tensor<1x1x4xf32>
    %3 = scf.forall (%arg6) in (4) shared_outs(%arg7 = %extracted_slice_0) -> (tensor<1x1x4xf32>) {
      %extracted_slice_1 = tensor.extract_slice %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x4xf32> to tensor<1x1x1xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_1 : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
      %5 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %extracted_slice : tensor<1x200xf32>, tensor<1x1xi32>) outs(%4 : tensor<1x1x1xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>} {
      ^bb0(%in: f32, %in_2: i32, %out: f32):
        %6 = arith.index_cast %in_2 : i32 to index
        %7 = arith.muli %6, %c128 : index
        %8 = affine.apply #map4(%arg4)[%arg6]
        %9 = arith.addi %7, %8 : index
        %10 = linalg.index 3 : index
        // expected-error @below {{gathers along a dimension other than its innermost: no warp reduction for it}}
        %extracted = tensor.extract %arg2[%10, %9] : tensor<200x512xf32>
        %11 = arith.mulf %in, %extracted : f32
        %12 = arith.addf %out, %11 : f32
        linalg.yield %12 : f32
      } -> tensor<1x1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xf32> into tensor<1x1x4xf32>
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x1x4xf32> into tensor<1x2x128xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
  return %1 : tensor<1x2x128xf32>
}

// -----

// The reduced index has no value in a lane's slice but as a gathered
// row's last index.
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @reduced_index(%arg0: tensor<1x200xf32>, %arg1: tensor<1x2xi32>, %arg2: tensor<512x200xf32>) -> tensor<1x2x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x2x128xf32>
  %1 = scf.forall (%arg3, %arg4) in (2, 32) shared_outs(%arg5 = %0) -> (tensor<1x2x128xf32>) {
    %2 = affine.apply #map(%arg4)
    %extracted_slice = tensor.extract_slice %arg1[0, %arg3] [1, 1] [1, 1] : tensor<1x2xi32> to tensor<1x1xi32>
    %extracted_slice_0 = tensor.extract_slice %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x2x128xf32> to tensor<1x1x4xf32>
    %3 = scf.forall (%arg6) in (4) shared_outs(%arg7 = %extracted_slice_0) -> (tensor<1x1x4xf32>) {
      %extracted_slice_1 = tensor.extract_slice %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x4xf32> to tensor<1x1x1xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_1 : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
      %5 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %extracted_slice : tensor<1x200xf32>, tensor<1x1xi32>) outs(%4 : tensor<1x1x1xf32>) attrs =  {tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>} {
      ^bb0(%in: f32, %in_2: i32, %out: f32):
        %6 = linalg.index 3 : index
        // expected-error @below {{reads the reduced index: no warp reduction for it}}
        %7 = arith.index_cast %6 : index to i32
        %8 = arith.sitofp %7 : i32 to f32
        %9 = arith.mulf %in, %8 : f32
        %10 = arith.addf %out, %9 : f32
        linalg.yield %10 : f32
      } -> tensor<1x1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg7[0, 0, %arg6] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xf32> into tensor<1x1x4xf32>
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %3 into %arg5[0, %arg3, %2] [1, 1, 4] [1, 1, 1] : tensor<1x1x4xf32> into tensor<1x2x128xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 1, 4, 0], subgroup = [0, 1, 1, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
  return %1 : tensor<1x2x128xf32>
}
