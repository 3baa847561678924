# Provides the INTERFACE target `dlpack_headers` with DLPack 1.3's dlpack.h,
# vendored in third_party/dlpack (see its README); point DLBRIDGE_DLPACK_DIR at
# another copy of DLPack 1.3 to use that one instead.

set(DLBRIDGE_DLPACK_DIR "${PROJECT_SOURCE_DIR}/third_party/dlpack"
    CACHE PATH "Directory holding include/dlpack/dlpack.h (DLPack 1.3)")
set(_dlpack_header "${DLBRIDGE_DLPACK_DIR}/include/dlpack/dlpack.h")

if(NOT EXISTS "${_dlpack_header}")
  message(FATAL_ERROR "${_dlpack_header} does not exist; DLBRIDGE_DLPACK_DIR "
                      "must hold include/dlpack/dlpack.h (DLPack 1.3)")
endif()

file(STRINGS "${_dlpack_header}" _dlpack_minor
     REGEX "^#define DLPACK_MINOR_VERSION")
if(NOT _dlpack_minor MATCHES "DLPACK_MINOR_VERSION 3")
  message(FATAL_ERROR "${_dlpack_header} is not DLPack 1.3")
endif()

add_library(dlpack_headers INTERFACE)
target_include_directories(dlpack_headers INTERFACE
  "$<BUILD_INTERFACE:${DLBRIDGE_DLPACK_DIR}/include>")
