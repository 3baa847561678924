//===- TestDriver.h - Driver calls the CUDA tests make themselves -*- C++
//-*-===//
//
// Part of dlbridge's unit tests: the few libcuda functions a test calls on
// its own (streams it borrows to the runtime), loaded as libdlrt loads the
// driver, so that the test binaries link no CUDA library either.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_UNITTESTS_RUNTIME_TESTDRIVER_H
#define DLBRIDGE_UNITTESTS_RUNTIME_TESTDRIVER_H

#include <dlfcn.h>

namespace dlbridge::testing {

/// Null members where there is no driver.
struct TestDriver {
  int (*StreamCreate)(void **, unsigned) = nullptr;
  int (*StreamDestroy)(void *) = nullptr;
  int (*StreamSynchronize)(void *) = nullptr;
  int (*StreamQuery)(void *) = nullptr;
};

inline const TestDriver &testDriver() {
  static TestDriver d = [] {
    TestDriver t;
    if (void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      t.StreamCreate = reinterpret_cast<decltype(t.StreamCreate)>(
          dlsym(lib, "cuStreamCreate"));
      t.StreamDestroy = reinterpret_cast<decltype(t.StreamDestroy)>(
          dlsym(lib, "cuStreamDestroy_v2"));
      t.StreamSynchronize = reinterpret_cast<decltype(t.StreamSynchronize)>(
          dlsym(lib, "cuStreamSynchronize"));
      t.StreamQuery = reinterpret_cast<decltype(t.StreamQuery)>(
          dlsym(lib, "cuStreamQuery"));
    }
    return t;
  }();
  return d;
}

} // namespace dlbridge::testing

#endif // DLBRIDGE_UNITTESTS_RUNTIME_TESTDRIVER_H
