// The pipelines' options are the compile options of docs/Options.md: the
// same names, descriptions and defaults as dl-run's flags, compile()'s
// keywords and CompileOptions.
// RUN: dl-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --dlbridge-cpu-pipeline
// HELP-NEXT: --bufferize {{.*}}- Bufferize modules with tensor values and insert deallocations (--dlbridge-bufferize; a memref-level module is left as it is either way); false: never
// HELP-NEXT: --entry=<string> {{.*}}- The dlpack.entry function to compile
// HELP-NEXT: --identity-layouts {{.*}}- Give tensor arguments identity layouts
// HELP: --dlbridge-cuda-pipeline
// HELP-NEXT: --bufferize {{.*}}- Bufferize modules with tensor values
// HELP-NEXT: --chip=<string> {{.*}}- The GPU architecture device code is compiled for
// HELP-NEXT: --entry=<string> {{.*}}- The dlpack.entry function to compile
// HELP-NEXT: --format=<string> {{.*}}- What the gpu.binary holds: ptx
// HELP-NEXT: --identity-layouts {{.*}}- Give tensor arguments identity layouts
// HELP-NEXT: --opt-level=<uint> {{.*}}- LLVM optimisation level. CPU: of the host code the JIT compiles (dl-opt's CPU pipeline stops at the LLVM dialect and has none); CUDA: of device code
// HELP-NEXT: --ptx-version=<string> {{.*}}- The PTX ISA version of device code
// HELP-NEXT: --toolkit=<string> {{.*}}- The CUDA toolkit

// Defaults (opt-level 3, as for the JIT) and set values reach the target.
// RUN: dl-opt %s --dlbridge-cuda-pipeline=format=ptx | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx opt-level=1 chip=sm_90 ptx-version=ptx80" | FileCheck %s --check-prefix=SET
// SET: #nvvm.target<O = 1, chip = "sm_90", features = "+ptx80">

// Bad values and options a pipeline does not take are errors naming them.
// RUN: not dl-opt %s --dlbridge-cuda-pipeline=opt-level=7 2>&1 | FileCheck %s --check-prefix=LEVEL
// LEVEL: error: opt-level must be 0 to 3, not 7
// RUN: not dl-opt %s --dlbridge-cuda-pipeline=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: unknown format 'elf'; expected ptx, cubin or fatbin
// RUN: not dl-opt %s --dlbridge-cpu-pipeline=opt-level=1 2>&1 | FileCheck %s --check-prefix=CPULEVEL
// CPULEVEL: no such option opt-level
// RUN: not dl-opt %s --dlbridge-cpu-pipeline=chip=sm_90 2>&1 | FileCheck %s --check-prefix=CPUCHIP
// CPUCHIP: no such option chip

// bufferize=false leaves the tensor program as it is, which then fails.
// RUN: not dl-opt %s --dlbridge-cpu-pipeline=bufferize=false 2>&1 | FileCheck %s --check-prefix=NOBUF
// NOBUF: error: {{.*}}has type 'tensor<?xf32>'

func.func @double(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
