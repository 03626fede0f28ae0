# Layers: one CMake target per folder of the library, includes rooted at the repository.
#
# acs_stage_headers(<target> <folder> [HEADERS h...]) links the headers of <folder> (all of its
# *.hpp, *.h and *.inc, or the ones listed) into build/layers/<target>/<folder>/ and puts
# build/layers/<target> on <target>'s include path (PUBLIC, or INTERFACE for an interface
# library). Code then includes "<folder>/x.hpp", and sees only the headers of the targets it
# links: an include that goes up a layer does not compile. The order, lowest first:
#   scheduler/ -> src/trace/ -> src/support/ -> annotations/inferred/ -> annotations/declared/
#   -> interpose/ (real functions) -> src/runtime/ -> interpose/ (hooks)
# scripts/check_layers.py checks the same order on the sources (test `layers.include_graph`).
function(acs_stage_headers target folder)
  cmake_parse_arguments(S "" "" "HEADERS" ${ARGN})
  set(source_dir ${PROJECT_SOURCE_DIR}/${folder})
  if(S_HEADERS)
    set(headers ${S_HEADERS})
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${source_dir} ${source_dir}/*.hpp ${source_dir}/*.h ${source_dir}/*.inc)
  endif()
  set(stage ${CMAKE_BINARY_DIR}/layers/${target})
  file(REMOVE_RECURSE ${stage})
  file(MAKE_DIRECTORY ${stage}/${folder})
  foreach(header IN LISTS headers)
    if(NOT EXISTS ${source_dir}/${header})
      message(FATAL_ERROR "acs_stage_headers(${target}): no ${folder}/${header}")
    endif()
    file(CREATE_LINK ${source_dir}/${header} ${stage}/${folder}/${header} SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${stage}>)
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${stage}>)
  endif()
endfunction()

# acs_library_code(<target>): what every library target of acs compiles with: hidden
# visibility (libacs.so exports only its hooks and the annotation API), PIC, our warnings, and
# the initial-exec TLS model: libacs.so already needs static TLS (its hot thread_locals asked for
# it one by one), so every other thread_local may skip __tls_get_addr too, about 11 instructions
# an access and ten accesses a launch (the function-local caches, their guards).
function(acs_library_code target)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-ftls-model=initial-exec>)
  target_link_libraries(${target} PRIVATE acs_warnings PUBLIC acs_sanitize)
endfunction()
