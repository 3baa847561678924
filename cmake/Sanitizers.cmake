# DLBRIDGE_SANITIZE=address;undefined (or thread) instruments everything this
# project compiles. UBSan's vptr check is off: it needs type info that
# libMLIR.so does not export for every class it would check.
set(DLBRIDGE_SANITIZE "" CACHE STRING
    "Sanitizers to build with, e.g. 'address;undefined' or 'thread'")

if(DLBRIDGE_SANITIZE)
  list(JOIN DLBRIDGE_SANITIZE "," _dlbridge_sanitizers)
  add_compile_options(-fsanitize=${_dlbridge_sanitizers} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all -fno-sanitize=vptr)
  add_link_options(-fsanitize=${_dlbridge_sanitizers} -fno-sanitize=vptr)
endif()
