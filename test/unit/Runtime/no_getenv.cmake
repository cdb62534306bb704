# The runtime reads no environment variables (issue 14): callers fill
# vrt_context_options (include/vulpy/runtime_env.h maps VULPY_* onto it).
# Fails when an object of the runtime library (LIB, a static archive) calls
# getenv, secure_getenv or reads environ. Run by ctest as runtime.no_getenv:
#   cmake -DNM=nm -DLIB=libvulpy_runtime.a -P no_getenv.cmake
execute_process(COMMAND ${NM} -A -u ${LIB} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIB} failed (${rc})")
endif()
string(REGEX MATCHALL "[^\n]*[ \t]U[ \t]+(secure_getenv|__secure_getenv|getenv|environ|__environ)(@[^\n]*)?\n"
       calls "${undefined}")
if(calls)
  string(REPLACE ";" "" calls "${calls}")
  message(FATAL_ERROR "the runtime library reads the environment:\n${calls}"
          "move the variable into vrt_context_options and its parsing into "
          "lib/RuntimeEnv/runtime_env.c")
endif()
string(REGEX MATCHALL "[^\n]*[ \t]U[ \t]+[A-Za-z_]+" all "${undefined}")
list(LENGTH all n)
if(n LESS 10)
  message(FATAL_ERROR "${NM} -u ${LIB} listed ${n} undefined symbols: not the runtime library?")
endif()
message(STATUS "${LIB}: ${n} undefined symbols, no getenv")
