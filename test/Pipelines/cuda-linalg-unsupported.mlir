// What neither pipeline lowers among linalg ops is refused at the op, with
// what to change: a linalg.pack with dynamic inner tiles (upstream's
// lowering expands the padded source with static tile sizes only).
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -verify-diagnostics
// RUN: dl-opt %s --dlbridge-cpu-pipeline -verify-diagnostics

func.func @pack_dynamic_tile(%a: tensor<?x?xf32>, %t: index) -> tensor<?x?x?x4xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %mo = arith.ceildivui %m, %t : index
  %no = arith.ceildivui %n, %c4 : index
  %e = tensor.empty(%mo, %no, %t) : tensor<?x?x?x4xf32>
  %pad = arith.constant 0.0 : f32
  // expected-error @below {{'linalg.pack' op with dynamic inner tile sizes is not supported: use constant inner_tiles}}
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?xf32> -> tensor<?x?x?x4xf32>
  return %p : tensor<?x?x?x4xf32>
}
