// A crash of MLIR 22's parser on malformed input (linalg.reduce with a
// truncated dimension list) ends dl-opt with an error and exit code 1, as
// other bad input does; `not` fails on a signal.
// RUN: not dl-opt %s --dlbridge-cpu-pipeline 2>&1 | FileCheck %s
// CHECK: error: expected ']'
// CHECK: dl-opt: internal error: MLIR or LLVM crashed on this input (contained; nothing was written)

func.func @f(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<?x?xf32>) outs(%b : tensor<?xf32>) dimensions = [1