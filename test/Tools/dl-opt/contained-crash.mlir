// A crash of MLIR 22's parser on malformed input (linalg.reduce with a
// truncated dimension list) ends dl-opt with an error and exit code 1, as
// other bad input does, in one line naming where it crashed and no stack
// dump; `not` fails on a signal. --stack-trace (or DLBRIDGE_STACK_TRACE=1)
// lets the crash happen with LLVM's stack dump, as mlir-opt does.
// RUN: not dl-opt %s --dlbridge-cpu-pipeline 2>&1 | FileCheck %s
// CHECK: error: expected ']'
// CHECK: dl-opt: internal error: signal 11 (Segmentation fault) in MLIR Parser: custom op parser 'linalg.reduce' inside MLIR/LLVM (contained; nothing was written); rerun with --stack-trace for LLVM's stack dump
// CHECK-NOT: Stack dump
// CHECK-NOT: PLEASE submit
// RUN: not --crash dl-opt %s --dlbridge-cpu-pipeline --stack-trace 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: env DLBRIDGE_STACK_TRACE=1 not --crash dl-opt %s 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: Stack dump:
// DUMP: MLIR Parser: custom op parser 'linalg.reduce'

func.func @f(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<?x?xf32>) outs(%b : tensor<?xf32>) dimensions = [1