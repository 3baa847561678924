// One naming scheme (docs/Passes.md): every pass and pipeline dlbridge
// registers is dlbridge-<action>; the conversion keeps upstream's
// convert-<dialect>-to-<dialect>.
// RUN: dl-opt --help | FileCheck %s
// RUN: dl-opt --help | not grep -e '--dlpack-'
// RUN: grep -rhoE 'Pass<"[^"]+"' %S/../../../include \
// RUN:   | not grep -vE 'Pass<"(dlbridge-[a-z-]+|convert-[a-z]+-to-[a-z]+)"'

// CHECK-DAG: --dlbridge-cpu-pipeline
// CHECK-DAG: --dlbridge-cuda-pipeline
// CHECK-DAG: --dlbridge-bufferize
// CHECK-DAG: --dlbridge-expose-entry-points
// CHECK-DAG: --dlbridge-gpu-tile-parallel-loops
// CHECK-DAG: --convert-dlpack-to-llvm
