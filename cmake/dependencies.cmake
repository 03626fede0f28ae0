# Third-party dependencies. On Debian they come from packages (libfmt-dev, libgtest-dev,
# libbenchmark-dev; scripts/install_deps.sh). On a machine without them (the GPU machine,
# which cannot download), scripts/vendor_deps.sh copies the same packages' headers and
# GoogleTest's sources into .deps/, and they are used from there. Google Benchmark is
# optional: without it the CPU benchmark is skipped.
set(ACS_DEPS_DIR ${PROJECT_SOURCE_DIR}/.deps)

find_package(fmt QUIET)
if(NOT TARGET fmt::fmt-header-only)
  find_path(ACS_DEPS_INCLUDE fmt/format.h PATHS ${ACS_DEPS_DIR}/include NO_DEFAULT_PATH)
  if(NOT ACS_DEPS_INCLUDE)
    message(FATAL_ERROR "acs needs fmt: install libfmt-dev (scripts/install_deps.sh), "
                        "or run scripts/vendor_deps.sh on a machine that has it")
  endif()
  message(STATUS "acs: fmt headers from ${ACS_DEPS_INCLUDE}")
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)
  set_target_properties(fmt::fmt-header-only PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES ${ACS_DEPS_INCLUDE}
    INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()

if(ACS_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND AND EXISTS ${ACS_DEPS_DIR}/googletest/CMakeLists.txt)
    message(STATUS "acs: GoogleTest built from ${ACS_DEPS_DIR}/googletest")
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(${ACS_DEPS_DIR}/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL SYSTEM)
    set(GTest_FOUND TRUE)
  endif()
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "acs tests need GoogleTest: install libgtest-dev (or -DACS_BUILD_TESTS=OFF)")
  endif()
endif()

if(ACS_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "acs: Google Benchmark not found; the CPU micro-benchmark is not built")
    set(ACS_BUILD_BENCHMARKS OFF)
  endif()
endif()
