// RUN: tfmc-opt %s -split-input-file -tfm-gpu-distribute-to-lanes -canonicalize -cse | FileCheck %s

// A bufferized warp GEMV over 200 features: each lane loads 4 consecutive
// elements of a 128-element warp-wide slice (a 16-byte load) at lane * 4;
// the second slice, 72 elements long, is a masked load whose mask counts
// what is left of the row past the lane's start; the lane's sum, then the
// warp's, by gpu.subgroup_reduce.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.forall
// CHECK:   %[[LANE:.*]] = gpu.lane_id
// CHECK:   %[[START:.*]] = arith.muli %[[LANE]], %c4 : index
// CHECK:   vector.load %{{.*}}[%c0, %[[START]]] : memref<1x200xf32>, vector<4xf32>
// CHECK:   vector.load %{{.*}}[%c0, %[[START]]] : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<4xf32>
// CHECK:   %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK:   vector.maskedload %{{.*}}, %[[MASK]], %{{.*}} : memref<1x200xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:   %[[PART:.*]] = vector.reduction <add>, %{{.*}} : vector<4xf32> into f32
// CHECK:   gpu.subgroup_reduce  add %[[PART]] uniform : (f32) -> f32
// CHECK-NOT: vector<128xf32>
// CHECK: } {mapping = [#gpu.warp<x>]}
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0) -> (d0 * 32)>
#map2 = affine_map<(d0) -> (d0 * 16)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemv(%arg0: memref<1x200xf32>, %arg1: memref<512x200xf32>, %arg2: memref<1x512xf32>, %arg3: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %cst = arith.constant dense<72> : vector<128xindex>
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %cst_0 = arith.constant dense<0.000000e+00> : vector<128xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    scf.forall (%arg4) in (128) {
      %0 = affine.apply #map(%arg4)
      %subview = memref.subview %arg1[%0, 0] [4, 200] [1, 1] : memref<512x200xf32> to memref<4x200xf32, strided<[200, 1], offset: ?>>
      %subview_2 = memref.subview %arg2[0, %0] [1, 4] [1, 1] : memref<1x512xf32> to memref<1x4xf32, strided<[512, 1], offset: ?>>
      scf.forall (%arg5) in (4) {
        %subview_3 = memref.subview %subview[%arg5, 0] [1, 200] [1, 1] : memref<4x200xf32, strided<[200, 1], offset: ?>> to memref<1x200xf32, strided<[200, 1], offset: ?>>
        %subview_4 = memref.subview %subview_2[0, %arg5] [1, 1] [1, 1] : memref<1x4xf32, strided<[512, 1], offset: ?>> to memref<1x1xf32, strided<[512, 1], offset: ?>>
        %1 = vector.transfer_read %arg0[%c0, %c0], %cst_1 {in_bounds = [true]} : memref<1x200xf32>, vector<128xf32>
        %2 = vector.transfer_read %subview_3[%c0, %c0], %cst_1 {in_bounds = [true]} : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<128xf32>
        %3 = arith.mulf %1, %2 : vector<128xf32>
        %4 = arith.addf %3, %cst_0 : vector<128xf32>
        %5 = vector.step : vector<128xindex>
        %6 = arith.cmpi ult, %5, %cst : vector<128xindex>
        %7 = vector.transfer_read %arg0[%c0, %c128], %cst_1 : memref<1x200xf32>, vector<128xf32>
        %8 = vector.transfer_read %subview_3[%c0, %c128], %cst_1 : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<128xf32>
        %9 = arith.mulf %7, %8 : vector<128xf32>
        %10 = arith.select %6, %9, %cst_0 : vector<128xi1>, vector<128xf32>
        %11 = arith.addf %4, %10 : vector<128xf32>
        %12 = vector.reduction <add>, %11 : vector<128xf32> into f32
        %13 = arith.addf %12, %cst_1 : f32
        memref.store %13, %subview_4[%c0, %c0] : memref<1x1xf32, strided<[512, 1], offset: ?>>
      } {mapping = [#gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [4, 0, 0], subgroup = [1, 0, 0], block = [128, 1, 1], vector_width = 4, chunk = 128>}
    return
  }
}

// -----

// A GEMV over Q4_0 blocks (vector width 32: a lane's slice is one block):
// each lane loads its block's 16 bytes, puts their low and high nibbles in
// order with a shuffle of its own slices, and reads its block's one scale
// (the [32, 1] read broadcast along the blocks), masked past the row's
// two blocks.
// CHECK-LABEL: func.func @gemv_q4_0
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[VALUE0:.*]] = arith.muli %[[LANE]], %c32 : index
// CHECK: %[[BYTE0:.*]] = arith.muli %[[LANE]], %c16 : index
// CHECK: %[[BYTES:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %[[BYTE0]]], %{{.*}}, %{{.*}} : memref<8x32xi8>, vector<16xi1>, vector<16xi8> into vector<16xi8>
// CHECK: %[[LOW:.*]] = arith.andi %[[BYTES]], %{{.*}} : vector<16xi8>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[BYTES]], %{{.*}} : vector<16xi8>
// CHECK: vector.shuffle %[[LOW]], %[[HIGH]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xi8>, vector<16xi8>
// CHECK: %[[BLOCK:.*]] = arith.divui %[[VALUE0]], %c32 : index
// CHECK: %[[SCALE:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[BLOCK]], %c0], %{{.*}} {in_bounds = [false, true]} : memref<8x2x1xf16>, vector<1x1xf16>
// CHECK: %[[ONE:.*]] = vector.extract %[[SCALE]][0, 0] : f16 from vector<1x1xf16>
// CHECK: vector.broadcast %[[ONE]] : f16 to vector<32xf16>
// CHECK: gpu.subgroup_reduce add
#map = affine_map<(d0) -> (d0 * 4)>
module attributes {tfm.weights = #tfm.weights_layout<bytes = 0, hash = 12161962213042174405, offsets = {}>} {
  func.func @gemv_q4_0(%arg0: memref<1x64xf32>, %arg1: memref<8x2x16x1xi8>, %arg2: memref<8x2x1xf16>, %arg3: memref<1x8xf32>, %arg4: memref<0xi8> {llvm.align = 64 : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    %cst = arith.constant dense<64> : vector<1024xindex>
    %cst_0 = arith.constant 0.000000e+00 : f16
    %cst_1 = arith.constant dense<8> : vector<1024xi8>
    %cst_2 = arith.constant dense<4> : vector<512xi8>
    %cst_3 = arith.constant dense<15> : vector<512xi8>
    %c0_i8 = arith.constant 0 : i8
    %c0 = arith.constant 0 : index
    %cst_4 = arith.constant dense<0.000000e+00> : vector<1024xf32>
    %cst_5 = arith.constant 0.000000e+00 : f32
    scf.forall (%arg5) in (2) {
      %0 = affine.apply #map(%arg5)
      %subview = memref.subview %arg3[0, %0] [1, 4] [1, 1] : memref<1x8xf32> to memref<1x4xf32, strided<[8, 1], offset: ?>>
      scf.forall (%arg6) in (4) {
        %subview_6 = memref.subview %subview[0, %arg6] [1, 1] [1, 1] : memref<1x4xf32, strided<[8, 1], offset: ?>> to memref<1x1xf32, strided<[8, 1], offset: ?>>
        %1 = vector.step : vector<1024xindex>
        %2 = arith.cmpi ult, %1, %cst : vector<1024xindex>
        %3 = vector.transfer_read %arg0[%c0, %c0], %cst_5 : memref<1x64xf32>, vector<1024xf32>
        %4 = arith.addi %arg6, %0 : index
        %collapse_shape = memref.collapse_shape %arg1 [[0], [1, 2, 3]] : memref<8x2x16x1xi8> into memref<8x32xi8>
        %5 = vector.transfer_read %collapse_shape[%4, %c0], %c0_i8 : memref<8x32xi8>, vector<512xi8>
        %6 = arith.andi %5, %cst_3 : vector<512xi8>
        %7 = arith.shrui %5, %cst_2 : vector<512xi8>
        %8 = vector.shuffle %6, %7 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 512, 513, 514, 515, 516, 517, 518, 519, 520, 521, 522, 523, 524, 525, 526, 527, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 528, 529, 530, 531, 532, 533, 534, 535, 536, 537, 538, 539, 540, 541, 542, 543, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 544, 545, 546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 557, 558, 559, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 560, 561, 562, 563, 564, 565, 566, 567, 568, 569, 570, 571, 572, 573, 574, 575, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 576, 577, 578, 579, 580, 581, 582, 583, 584, 585, 586, 587, 588, 589, 590, 591, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 592, 593, 594, 595, 596, 597, 598, 599, 600, 601, 602, 603, 604, 605, 606, 607, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 608, 609, 610, 611, 612, 613, 614, 615, 616, 617, 618, 619, 620, 621, 622, 623, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 624, 625, 626, 627, 628, 629, 630, 631, 632, 633, 634, 635, 636, 637, 638, 639, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 640, 641, 642, 643, 644, 645, 646, 647, 648, 649, 650, 651, 652, 653, 654, 655, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 656, 657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 668, 669, 670, 671, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 672, 673, 674, 675, 676, 677, 678, 679, 680, 681, 682, 683, 684, 685, 686, 687, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 688, 689, 690, 691, 692, 693, 694, 695, 696, 697, 698, 699, 700, 701, 702, 703, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 704, 705, 706, 707, 708, 709, 710, 711, 712, 713, 714, 715, 716, 717, 718, 719, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 720, 721, 722, 723, 724, 725, 726, 727, 728, 729, 730, 731, 732, 733, 734, 735, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 736, 737, 738, 739, 740, 741, 742, 743, 744, 745, 746, 747, 748, 749, 750, 751, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 752, 753, 754, 755, 756, 757, 758, 759, 760, 761, 762, 763, 764, 765, 766, 767, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777, 778, 779, 780, 781, 782, 783, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 784, 785, 786, 787, 788, 789, 790, 791, 792, 793, 794, 795, 796, 797, 798, 799, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300, 301, 302, 303, 800, 801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 304, 305, 306, 307, 308, 309, 310, 311, 312, 313, 314, 315, 316, 317, 318, 319, 816, 817, 818, 819, 820, 821, 822, 823, 824, 825, 826, 827, 828, 829, 830, 831, 320, 321, 322, 323, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 335, 832, 833, 834, 835, 836, 837, 838, 839, 840, 841, 842, 843, 844, 845, 846, 847, 336, 337, 338, 339, 340, 341, 342, 343, 344, 345, 346, 347, 348, 349, 350, 351, 848, 849, 850, 851, 852, 853, 854, 855, 856, 857, 858, 859, 860, 861, 862, 863, 352, 353, 354, 355, 356, 357, 358, 359, 360, 361, 362, 363, 364, 365, 366, 367, 864, 865, 866, 867, 868, 869, 870, 871, 872, 873, 874, 875, 876, 877, 878, 879, 368, 369, 370, 371, 372, 373, 374, 375, 376, 377, 378, 379, 380, 381, 382, 383, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 890, 891, 892, 893, 894, 895, 384, 385, 386, 387, 388, 389, 390, 391, 392, 393, 394, 395, 396, 397, 398, 399, 896, 897, 898, 899, 900, 901, 902, 903, 904, 905, 906, 907, 908, 909, 910, 911, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 912, 913, 914, 915, 916, 917, 918, 919, 920, 921, 922, 923, 924, 925, 926, 927, 416, 417, 418, 419, 420, 421, 422, 423, 424, 425, 426, 427, 428, 429, 430, 431, 928, 929, 930, 931, 932, 933, 934, 935, 936, 937, 938, 939, 940, 941, 942, 943, 432, 433, 434, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 446, 447, 944, 945, 946, 947, 948, 949, 950, 951, 952, 953, 954, 955, 956, 957, 958, 959, 448, 449, 450, 451, 452, 453, 454, 455, 456, 457, 458, 459, 460, 461, 462, 463, 960, 961, 962, 963, 964, 965, 966, 967, 968, 969, 970, 971, 972, 973, 974, 975, 464, 465, 466, 467, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477, 478, 479, 976, 977, 978, 979, 980, 981, 982, 983, 984, 985, 986, 987, 988, 989, 990, 991, 480, 481, 482, 483, 484, 485, 486, 487, 488, 489, 490, 491, 492, 493, 494, 495, 992, 993, 994, 995, 996, 997, 998, 999, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 496, 497, 498, 499, 500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018, 1019, 1020, 1021, 1022, 1023] : vector<512xi8>, vector<512xi8>
        %9 = arith.subi %8, %cst_1 : vector<1024xi8>
        %10 = arith.sitofp %9 : vector<1024xi8> to vector<1024xf32>
        %11 = vector.transfer_read %arg2[%4, %c0, %c0], %cst_0 {in_bounds = [false, true]} : memref<8x2x1xf16>, vector<32x1xf16>
        %12 = vector.broadcast %11 : vector<32x1xf16> to vector<32x32xf16>
        %13 = vector.shape_cast %12 : vector<32x32xf16> to vector<1024xf16>
        %14 = arith.extf %13 : vector<1024xf16> to vector<1024xf32>
        %15 = arith.mulf %10, %14 : vector<1024xf32>
        %16 = arith.mulf %3, %15 : vector<1024xf32>
        %17 = arith.select %2, %16, %cst_4 : vector<1024xi1>, vector<1024xf32>
        %18 = arith.addf %17, %cst_4 : vector<1024xf32>
        %19 = vector.reduction <add>, %18 : vector<1024xf32> into f32
        %20 = arith.addf %19, %cst_5 : f32
        memref.store %20, %subview_6[%c0, %c0] : memref<1x1xf32, strided<[8, 1], offset: ?>>
      } {mapping = [#gpu.warp<x>]}
    } {mapping = [#gpu.block<x>], tfm_gpu.kernel = #tfm_gpu.kernel<warp_reduction, workgroup = [0, 4, 0], subgroup = [0, 1, 0], block = [128, 1, 1], vector_width = 32, chunk = 1024>}
    return
  }
}

