# dlbridge_add_unittest(name SOURCES... LIBS...) builds a GoogleTest binary,
# registers its tests with ctest and adds it to the `dlbridge-unittests`
# target (what sanitizer builds compile).
include(GoogleTest)
if(NOT TARGET dlbridge-unittests)
  add_custom_target(dlbridge-unittests)
endif()

function(dlbridge_add_unittest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/unittests)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  add_dependencies(dlbridge-unittests ${name})
endfunction()
