//===- Parallel.h - Threads of parallel loops (internal) --------*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_PARALLEL_H
#define DLBRIDGE_LIB_RUNTIME_PARALLEL_H

namespace dlrt {
/// What dlrt_matmul calls before handing work to the BLAS, so that two
/// thread pools never spin against each other: libomp keeps the helpers of
/// a finished region spinning for 200 ms and OpenBLAS its threads for about
/// 0.1 s, and threads of one pool then wait for cores the other holds (a
/// two-layer MLP, BLAS products around an OpenMP epilogue, took 8 to 16 ms
/// instead of 1.2 ms on 2 cores). The helpers of recently finished regions
/// are put to sleep (when no region runs), and regions starting while the
/// BLAS's threads may still spin run on their calling thread.
void enterBlas();
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_PARALLEL_H
