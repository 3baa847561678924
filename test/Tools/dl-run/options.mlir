// dl-run's compile options: the names, values and checks of docs/Options.md.
// A bad value is one "dl-run: ..." line naming the flag and what it takes,
// and exit code 1.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(4, dtype=np.float32))"

// Values out of range.
// RUN: not dl-run %s --entry double --opt-level=7 -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: dl-run: --opt-level: expected 0, 1, 2 or 3, got '7'
// RUN: not dl-run %s --entry double --target tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: dl-run: --target: expected cpu or cuda, got 'tpu'
// RUN: not dl-run %s --entry double --target cuda --format elf --signature 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: dl-run: --format: expected ptx, cubin or fatbin, got 'elf'
// RUN: not dl-run %s --entry double --target cuda --chip sm_70 --signature 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: dl-run: --chip: expected sm_75, sm_80, {{.*}}, got 'sm_70'
// RUN: not dl-run %s --entry double --target cuda --ptx-version 6.0 --signature 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: dl-run: {{.*}}error: PTX 6.0 cannot target sm_80, which needs PTX 7.0 or newer

// CUDA-only options with the CPU target, and running on CUDA.
// RUN: not dl-run %s --entry double --chip sm_90 -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=CPUCHIP
// CPUCHIP: dl-run: --chip applies to target cuda only; compile with --target cuda or leave it out
// RUN: not dl-run %s --entry double --format ptx -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=CPUFORMAT
// CPUFORMAT: dl-run: --format applies to target cuda only
// RUN: not dl-run %s --entry double --target cuda -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=RUNCUDA
// RUNCUDA: dl-run: --target cuda: dl-run runs kernels on the CPU only; add --signature to compile for CUDA and print the entry's signature, or use dl-opt --dlbridge-cuda-pipeline

// --target cuda compiles (no GPU needed) and prints the signature.
// RUN: dl-run %s --entry double --target cuda --chip sm_90 --ptx-version ptx80 --format ptx --opt-level 1 --cache=false --signature | FileCheck %s --check-prefix=SIGCUDA
// SIGCUDA: @double(x: float32[?]{{.*}}) -> (result0: float32[?])

// Every level and the caches off give the same numbers.
// RUN: dl-run %s --entry double --opt-level=0 --cache=false -i %t/x.npy --print | FileCheck %s --check-prefix=SAME
// RUN: dl-run %s --entry double --opt-level=2 -i %t/x.npy --print | FileCheck %s --check-prefix=SAME
// RUN: dl-run %s --entry double --bufferize=true -i %t/x.npy --print | FileCheck %s --check-prefix=SAME
// SAME: result 0 'result0': float32 (4,)
// SAME-NEXT: [0. 2. 4. 6.]
// RUN: not dl-run %s --entry double --opt-level=-1 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: for the --opt-level option: '-1' value invalid

// --bufferize=false leaves tensors unbufferized, which the entry refuses
// (and the buffers a memref program frees itself alone: bufferize-option.mlir).
// RUN: not dl-run %s --entry double --bufferize=false -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=NOBUF
// NOBUF: error: 'func.func' op arg 0 of entry @double: has type 'tensor<?xf32>'

func.func @double(%x: tensor<?xf32> {dlpack.name = "x"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
