# What `cmake --install` puts in a prefix: the C++ package an outside project
# finds with `find_package(dlbridge CONFIG)`.
#
#   dlbridge::dlbridge  libdlbridge_core, the C++ compile/call API of
#                       dlbridge/JIT/Kernel.h (brings dlbridge::dlrt with it)
#   dlbridge::dlrt      libdlrt, the C runtime of dlbridge/Runtime/dlrt.h
#
# with the public headers, dlpack/dlpack.h, the tools and the exported CMake
# config. dlbridge's MLIR libraries are internal and not installed (the
# top-level CMakeLists.txt sets LLVM_INSTALL_TOOLCHAIN_ONLY for them).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DLBRIDGE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dlbridge)

# The public headers: no MLIR or LLVM type appears in them.
install(FILES include/dlbridge/JIT/Kernel.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlbridge/JIT)
install(FILES include/dlbridge/Pipelines/Options.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlbridge/Pipelines)
install(FILES include/dlbridge/Runtime/dlrt.h include/dlbridge/Runtime/dlrt_cuda.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlbridge/Runtime)
install(FILES ${DLBRIDGE_DLPACK_DIR}/include/dlpack/dlpack.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlpack)
install(FILES ${DLBRIDGE_DLPACK_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/dlbridge RENAME LICENSE.dlpack)

foreach(target dlrt dlbridge_core dlpack_headers)
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
set_target_properties(dlbridge_core PROPERTIES EXPORT_NAME dlbridge)
set_target_properties(dlpack_headers PROPERTIES EXPORT_NAME dlpack)

# Installed binaries find libdlrt beside them or in ../lib and, where they
# link LLVM/MLIR dynamically, the distribution's libMLIR.so.
set(llvm_rpath "")
if(NOT DLBRIDGE_STATIC_LLVM)
  set(llvm_rpath "${LLVM_LIBRARY_DIR}")
endif()
set_target_properties(dlbridge_core PROPERTIES
  INSTALL_RPATH "$ORIGIN;${llvm_rpath}")
set_target_properties(dl-opt dl-run dl-lsp-server PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")

install(TARGETS dlrt dlbridge_core dlpack_headers
  EXPORT dlbridgeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS dl-opt dl-run dl-lsp-server
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT dlbridgeTargets NAMESPACE dlbridge::
  DESTINATION ${DLBRIDGE_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/dlbridgeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/dlbridgeConfig.cmake
  INSTALL_DESTINATION ${DLBRIDGE_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/dlbridgeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/dlbridgeConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/dlbridgeConfigVersion.cmake
        DESTINATION ${DLBRIDGE_INSTALL_CMAKEDIR})
