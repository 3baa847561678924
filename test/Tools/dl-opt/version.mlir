// dl-opt --version names dlbridge's version (the project's, from CMake) and
// the LLVM it was built with.

// RUN: dl-opt --version | FileCheck %s
// CHECK: dl-opt (dlbridge {{[0-9]+\.[0-9]+\.[0-9]+}}; LLVM {{[0-9]+\.[0-9]+}}
