# Provides the INTERFACE target `dlpack_headers` with DLPack 1.3's dlpack.h.
# The header is fetched once into third_party/ by utils/fetch_dlpack.py (see
# there for why); point DLBRIDGE_DLPACK_DIR at another copy to skip the fetch.

set(DLBRIDGE_DLPACK_DIR "${PROJECT_SOURCE_DIR}/third_party/dlpack"
    CACHE PATH "Directory holding include/dlpack/dlpack.h (DLPack 1.3)")
set(_dlpack_header "${DLBRIDGE_DLPACK_DIR}/include/dlpack/dlpack.h")

if(NOT EXISTS "${_dlpack_header}")
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  message(STATUS "Fetching DLPack 1.3 header into ${DLBRIDGE_DLPACK_DIR}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/utils/fetch_dlpack.py"
            "${DLBRIDGE_DLPACK_DIR}"
    RESULT_VARIABLE _dlpack_rc)
  if(NOT _dlpack_rc EQUAL 0)
    message(FATAL_ERROR "Could not fetch dlpack.h; set DLBRIDGE_DLPACK_DIR")
  endif()
endif()

file(STRINGS "${_dlpack_header}" _dlpack_minor
     REGEX "^#define DLPACK_MINOR_VERSION")
if(NOT _dlpack_minor MATCHES "DLPACK_MINOR_VERSION 3")
  message(FATAL_ERROR "${_dlpack_header} is not DLPack 1.3")
endif()

add_library(dlpack_headers INTERFACE)
target_include_directories(dlpack_headers INTERFACE
  "$<BUILD_INTERFACE:${DLBRIDGE_DLPACK_DIR}/include>")
