# GPU tests of tracing (ACS_TRACE) and of the measured figures of ACS_STATS.
# Included at the end of tests/gpu/CMakeLists.txt, which defines
# acs_gpu_program, acs_gpu_lib, acs_gpu_out and acs_gpu_tests:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/trace_tests.cmake)
# Each test runs its program natively and under LD_PRELOAD=libacs.so with
# ACS_TRACE and ACS_STATS=1 (tests/gpu/trace_run.sh), then checks the trace
# with acs_trace_check. Label `gpu`; exit 77 (skipped) without a device.
if(NOT COMMAND acs_gpu_program)
  message(WARNING "acs: trace_tests.cmake is meant to be included from tests/gpu/CMakeLists.txt")
  return()
endif()
set(acs_trace_gpu_dir ${CMAKE_CURRENT_LIST_DIR})

# Host-only: reads a trace with the strict reader of tests/trace.
add_executable(acs_trace_check ${acs_trace_gpu_dir}/trace_check.cpp)
target_include_directories(acs_trace_check PRIVATE ${acs_trace_gpu_dir}/../trace)
target_link_libraries(acs_trace_check PRIVATE acs_warnings)
add_dependencies(acs_gpu_tests acs_trace_check)

acs_gpu_program(trace_program SOURCE trace_program.cu)
# Links CUPTI itself: it is the "other CUPTI client".
acs_gpu_program(trace_coexist SOURCE trace_coexist.cu LIBS CUDA::cupti)

# acs_trace_gpu_test(NAME PROGRAM prog [ARGS ...] [OPTIONS trace_run.sh options ...])
# Registers gpu.trace.NAME.static and gpu.trace.NAME.shared.
function(acs_trace_gpu_test name)
  cmake_parse_arguments(T "" "PROGRAM" "ARGS;OPTIONS" ${ARGN})
  foreach(suffix static shared)
    set(test gpu.trace.${name}.${suffix})
    add_test(NAME ${test}
      COMMAND ${acs_trace_gpu_dir}/trace_run.sh --name ${test} --lib "${acs_gpu_lib}"
              --checker $<TARGET_FILE:acs_trace_check> --out-dir ${acs_gpu_out} ${T_OPTIONS}
              -- $<TARGET_FILE:gpu_${T_PROGRAM}_${suffix}> ${T_ARGS})
    # Serial: overlap is judged from GPU timestamps, on an otherwise idle GPU.
    set_tests_properties(${test} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL ON)
  endforeach()
endfunction()

# Two independent long kernels of 2 blocks: dispatched to different pool
# streams, they run together; the upload and memset are in the trace too.
acs_trace_gpu_test(independent PROGRAM trace_program ARGS independent --us=2000 OPTIONS
  --check "--dispatched trace_first" --check "--dispatched trace_second"
  --check "--overlap trace_first trace_second" --check "--pool-lanes 2"
  --check "--cat memcpy" --check "--cat memset"
  --expect "measured==1" --expect "peak_concurrency>=2")

# trace_second reads what trace_first wrote: no overlap, and an arrow between them.
acs_trace_gpu_test(dependent PROGRAM trace_program ARGS dependent --us=2000 OPTIONS
  --check "--dispatched trace_first" --check "--dispatched trace_second"
  --check "--no-overlap trace_first trace_second" --check "--flow trace_first trace_second"
  --expect "measured==1" --expect "peak_concurrency==1")

# A wide DAG: the concurrency measured on the GPU rises under acs, compared
# with the same preload under ACS_DISABLE=1 (which must measure about 1).
acs_trace_gpu_test(concurrency PROGRAM trace_program ARGS wide --width=16 --us=500 OPTIONS
  --compare-disabled 1.5 --expect "achieved_concurrency>=2" --check "--pool-lanes 4"
  --check "--flow trace_wide trace_fan_in")

# The program holds CUPTI itself: acs warns once, writes no trace, measures
# nothing, and the program's own CUPTI use and output are unchanged.
acs_trace_gpu_test(coexist PROGRAM trace_coexist OPTIONS
  --no-trace --warn-once "another CUPTI client is active" --expect "measured==0")
