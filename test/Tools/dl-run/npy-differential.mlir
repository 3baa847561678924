// dl-run's .npy reader against NumPy's np.load on random arrays of every
// dtype, order, shape and format version, and on random corruptions of
// them (npy_differential.py): a fixed seed and a fresh one each run. A
// failure prints the seed; rerun it with --seed.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_differential.py dl-run %t --cases 40 | FileCheck %s
// CHECK: ok: 80 files
