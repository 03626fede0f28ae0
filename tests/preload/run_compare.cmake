# Runs PROGRAM without and with LD_PRELOAD=PRELOAD, and fails unless both runs give the same
# exit status and the same standard output. (Standard error may differ: acs may warn there.)
# A program that exits with 77 in both runs had nothing to compute (no GPU): once the runs
# agreed, the script prints "acs-test: SKIPPED", which the test's SKIP_REGULAR_EXPRESSION reads.
# cmake -DPROGRAM=... -DPRELOAD=... -P run_compare.cmake
foreach(var PROGRAM PRELOAD)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_compare.cmake: ${var} not set")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_PRELOAD ${PROGRAM}
  OUTPUT_VARIABLE plain_out ERROR_VARIABLE plain_err RESULT_VARIABLE plain_rc TIMEOUT 120)
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${PRELOAD} ${PROGRAM}
  OUTPUT_VARIABLE acs_out ERROR_VARIABLE acs_err RESULT_VARIABLE acs_rc TIMEOUT 120)

message(STATUS "without acs: exit ${plain_rc}\n${plain_out}")
message(STATUS "with acs: exit ${acs_rc}\n${acs_out}${acs_err}")
if(NOT plain_rc STREQUAL acs_rc)
  message(FATAL_ERROR "exit status differs: ${plain_rc} without acs, ${acs_rc} with it")
endif()
if(NOT plain_out STREQUAL acs_out)
  message(FATAL_ERROR "standard output differs with acs")
endif()
if(acs_rc MATCHES "[^0-9]")  # a signal or a timeout, identical in both runs
  message(FATAL_ERROR "the program did not exit normally: ${acs_rc}")
endif()
if(acs_rc EQUAL 77)
  message(STATUS "acs-test: SKIPPED (no GPU: both runs failed alike)")
elseif(NOT acs_rc EQUAL 0)
  message(FATAL_ERROR "the program failed (exit ${acs_rc}) in both runs")
endif()
