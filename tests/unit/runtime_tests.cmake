# Unit tests of the runtime pieces, owned with src/runtime/ and annotations/inferred/: settings (test_config*),
# the allocation map (test_allocation_map*) and footprint inference
# (test_inference*), and the runtime side of dispatch.hpp on a simulated driver
# (test_runtime_dispatch). CPU only: the driver is never called (layouts and pointer
# probes are faked). Included by tests/unit/CMakeLists.txt.
add_executable(acs_runtime_unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/test_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_allocation_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_inference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_fatbin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_loaded_code.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_dispatch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_runtime_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_stream_mode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_thread_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_recycler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_futex_lock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_bypass.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_process.cpp)
target_link_libraries(acs_runtime_unit_tests PRIVATE acs_runtime acs_warnings GTest::gtest_main)
target_compile_definitions(acs_runtime_unit_tests PRIVATE ACS_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
# The runtime's tests of the pool paths run with streams starting redirected (ACS_START_ASIDE=0);
# start_aside_test.* checks the default, where a stream starts aside and is probed first.
# start_aside_test.* probes from a stream's first launch (ACS_FIRST_PROBE=0); first_probe_test.*
# checks the default wait before the first probe. All without the relay (ACS_RELAY=off, on by
# default): these check what stepping aside does, and where a slow build (the sanitizers') makes
# the probes' gaps 1-150 µs, a relaying stream makes a scheduler and its own look-ups. The relay
# has its own tests (issue_queue.*relay*, stream_mode_policy.*relay*, preload.fake_driver_relay_*).
# One variable per property: gtest_discover_tests splits a value's list into separate arguments.
gtest_discover_tests(acs_runtime_unit_tests TEST_FILTER "-start_aside_test.*:first_probe_test.*"
  PROPERTIES LABELS "unit" ENVIRONMENT "ACS_START_ASIDE=0" ENVIRONMENT_MODIFICATION "ACS_RELAY=set:off")
gtest_discover_tests(acs_runtime_unit_tests TEST_FILTER "start_aside_test.*"
  PROPERTIES LABELS "unit" ENVIRONMENT "ACS_FIRST_PROBE=0" ENVIRONMENT_MODIFICATION "ACS_RELAY=set:off")
gtest_discover_tests(acs_runtime_unit_tests TEST_FILTER "first_probe_test.*" PROPERTIES LABELS "unit"
  ENVIRONMENT "ACS_RELAY=off")
