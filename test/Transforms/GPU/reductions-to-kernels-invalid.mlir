// RUN: dl-opt %s --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{block-size=100}))'
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{block-size=2048}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{split-blocks=0}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-SPLIT
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{column-blocks=0}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-COLUMN-BLOCKS
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{column-blocks=65536}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-MANY-COLUMN-BLOCKS
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{fuse-rows=maybe}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BAD-FUSE
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{row-cache-bytes=300000}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BIG-CACHE
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{warp-row-length=-1}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NEGATIVE-WARP-ROWS

// Options that make no CUDA block, no split or more shared memory than a
// block can have are errors at the
// operation the pass runs on, naming the option.

// expected-error @+1 {{block-size=100: expected a multiple of 32 from 32 to 1024}}
func.func @f() {
  return
}

// TOO-MANY: error: block-size=2048: expected a multiple of 32 from 32 to 1024
// NO-SPLIT: error: split-rows=32 split-blocks=0: expected split-rows >= 0 and split-blocks >= 1
// NO-COLUMN-BLOCKS: error: column-blocks=0: expected 1 to 65535
// TOO-MANY-COLUMN-BLOCKS: error: column-blocks=65536: expected 1 to 65535
// BAD-FUSE: for the --fuse-rows option: 'maybe' is invalid value for boolean argument
// BIG-CACHE: error: row-cache-bytes=300000: expected 0 to 232448
// NEGATIVE-WARP-ROWS: error: warp-row-length=-1: expected 0 or more
