# Installs BUILD_DIR into WORK_DIR/prefix and builds and runs the outside
# project in CONSUMER_DIR against it. Fails on the first step that fails,
# or when the prefix holds static archives (dlbridge's internal libraries).

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)

file(GLOB_RECURSE archives ${WORK_DIR}/prefix/*.a)
if(archives)
  message(FATAL_ERROR "the install holds internal archives: ${archives}")
endif()
foreach(file include/dlbridge/JIT/Kernel.h include/dlbridge/Runtime/dlrt.h
             include/dlpack/dlpack.h lib/cmake/dlbridge/dlbridgeConfig.cmake
             bin/dl-opt bin/dl-run bin/dl-lsp-server)
  if(NOT EXISTS ${WORK_DIR}/prefix/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/axpy-consumer)
run(${WORK_DIR}/consumer/layout-consumer)
run(${WORK_DIR}/prefix/bin/dl-opt --version)
