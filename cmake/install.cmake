# Installing acs (included from the top-level CMakeLists.txt). `cmake --install BUILD --prefix P`:
#   lib/libacs.so -> libacs.so.<SOVERSION> -> libacs.so.<VERSION>   the preload library
#   include/acs/acs.h, include/acs/version.h                         the annotation API
#   lib/cmake/acs/acsConfig.cmake, acsConfigVersion.cmake, acsTargets.cmake
#                                                 find_package(acs): acs::acs, acs::headers
#   lib/pkgconfig/acs.pc                          pkg-config: the annotation API, the preload path
#   bin/acs, share/acs/python/acs/                the acs command and its implementation
#   share/acs/plot_trace.py, share/acs/plot_bench.py
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# 0.y releases may break anything (semantic versioning), so each 0.y is its own ABI.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ACS_SOVERSION 0.${PROJECT_VERSION_MINOR})
  set(acs_compatibility SameMinorVersion)
else()
  set(ACS_SOVERSION ${PROJECT_VERSION_MAJOR})
  set(acs_compatibility SameMajorVersion)
endif()

# The release number in the public header: <acs/version.h>, included by <acs/acs.h>.
set(ACS_GENERATED_INCLUDE_DIR ${PROJECT_BINARY_DIR}/include)
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${ACS_GENERATED_INCLUDE_DIR}/acs/version.h @ONLY)

# acs::headers: the annotation API for programs. -ldl: dlsym before glibc 2.34.
add_library(acs_headers INTERFACE)
add_library(acs::headers ALIAS acs_headers)
set_target_properties(acs_headers PROPERTIES EXPORT_NAME headers)
target_include_directories(acs_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${ACS_GENERATED_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(acs_headers INTERFACE ${CMAKE_DL_LIBS})

# acs::acs: libacs.so (target `acs`, interpose/CMakeLists.txt). Its output stays
# interpose/libacs.so in the build tree, as a link to the versioned file.
set_target_properties(acs PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${ACS_SOVERSION})
target_link_libraries(acs INTERFACE acs_headers)
add_library(acs::acs ALIAS acs)

install(TARGETS acs acs_headers EXPORT acsTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/acs/acs.h ${ACS_GENERATED_INCLUDE_DIR}/acs/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/acs)

set(acs_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/acs)
set(ACS_INSTALL_COMMAND ${CMAKE_INSTALL_BINDIR}/acs)
install(EXPORT acsTargets NAMESPACE acs:: DESTINATION ${acs_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/acsConfig.cmake.in
  ${PROJECT_BINARY_DIR}/acsConfig.cmake
  INSTALL_DESTINATION ${acs_cmake_dir}
  PATH_VARS ACS_INSTALL_COMMAND)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/acsConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${acs_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/acsConfig.cmake ${PROJECT_BINARY_DIR}/acsConfigVersion.cmake
  DESTINATION ${acs_cmake_dir})

# acs.pc names absolute paths, so it is written at install time, for the prefix
# given then (cmake --install --prefix P), not the one configured.
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(acs_pc_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(acs_pc_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
set(acs_pc_libs "")
if(CMAKE_DL_LIBS)
  set(acs_pc_libs "-l${CMAKE_DL_LIBS}")
endif()
install(CODE "
  set(ACS_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(ACS_PC_LIBDIR [[${acs_pc_LIBDIR}]])
  set(ACS_PC_INCLUDEDIR [[${acs_pc_INCLUDEDIR}]])
  set(ACS_PC_LIBS [[${acs_pc_libs}]])
  set(PROJECT_VERSION ${PROJECT_VERSION})
  configure_file([[${CMAKE_CURRENT_LIST_DIR}/acs.pc.in]] [[${PROJECT_BINARY_DIR}/pkgconfig/acs.pc]] @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\" TYPE FILE
       FILES [[${PROJECT_BINARY_DIR}/pkgconfig/acs.pc]])")

# The acs command: a launcher (scripts/acs) and its implementation, the Python
# package's files (python/acs/; the launcher looks for them in ../share/acs/python).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/acs DESTINATION ${CMAKE_INSTALL_BINDIR})
# python/acs/plot_trace.py is a link to scripts/plot_trace.py (for pip); here the
# command finds it in share/acs instead.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/acs DESTINATION ${CMAKE_INSTALL_DATADIR}/acs/python
  FILES_MATCHING PATTERN "*.py" PATTERN "plot_trace.py" EXCLUDE PATTERN "__pycache__" EXCLUDE)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot_trace.py ${PROJECT_SOURCE_DIR}/scripts/plot_bench.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/acs)
