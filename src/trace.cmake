# Tracing and measured statistics (ACS_TRACE, the measured part of ACS_STATS).
# Included from src/CMakeLists.txt: include(trace.cmake).
#
#   acs_trace_core  CUDA-free: records, joining, measurement, JSON, the
#                   dispatch observer. Unit-tested on the CPU.
#   acs_trace       the CUPTI session. Compiled against CUPTI's headers only:
#                   libcupti is dlopen'ed at run time when asked for, never
#                   linked, so libacs.so loads where CUPTI is absent.

add_library(acs_trace_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/trace_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_join.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_measure.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_observer.cpp)
target_include_directories(acs_trace_core PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_options(acs_trace_core PRIVATE -fvisibility=hidden -fvisibility-inlines-hidden)
# acs_scheduler for scheduler.hpp (the dispatch_observer interface).
target_link_libraries(acs_trace_core PRIVATE acs_warnings PUBLIC acs_scheduler acs_sanitize Threads::Threads)

find_path(ACS_CUPTI_INCLUDE_DIR cupti.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS}
        ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include
        ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/include
  NO_DEFAULT_PATH)
if(NOT ACS_CUPTI_INCLUDE_DIR)
  message(FATAL_ERROR "acs: cupti.h not found in the CUDA toolkit (install its CUPTI component, "
                      "e.g. cuda-cupti-dev), or set ACS_CUPTI_INCLUDE_DIR")
endif()

add_library(acs_trace STATIC
  ${CMAKE_CURRENT_LIST_DIR}/trace_cupti_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_cupti_records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_session.cpp)
# Headers only: no CUDA::cupti, no CUDA::cuda_driver at link time.
target_include_directories(acs_trace SYSTEM PUBLIC ${ACS_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
target_compile_options(acs_trace PRIVATE -fvisibility=hidden -fvisibility-inlines-hidden)
target_link_libraries(acs_trace PRIVATE acs_warnings PUBLIC acs_trace_core ${CMAKE_DL_LIBS})
