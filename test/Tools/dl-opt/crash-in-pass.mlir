// A crash inside a pass ends dl-opt with one line naming the pass and the op
// it ran on, no stack dump and a non-zero exit; --stack-trace (or
// DLBRIDGE_STACK_TRACE=1) lets the crash happen with LLVM's stack dump.
// --dlbridge-test-crash is a test-only pass that raises SIGSEGV.
// RUN: not dl-opt %s --dlbridge-test-crash 2>&1 | FileCheck %s
// CHECK: dl-opt: internal error: signal 11 (Segmentation fault) in pass 'dlbridge-test-crash' on 'func.func @kernel' inside MLIR/LLVM (contained; nothing was written); rerun with --stack-trace for LLVM's stack dump
// CHECK-NOT: Stack dump
// CHECK-NOT: PLEASE submit
// RUN: not --crash dl-opt %s --dlbridge-test-crash --stack-trace 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: env DLBRIDGE_STACK_TRACE=1 not --crash dl-opt %s --dlbridge-test-crash 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: Stack dump:
// DUMP: dlbridge-test-crash

func.func @kernel() {
  return
}
