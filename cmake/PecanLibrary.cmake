# pecan_module_library(<target> [LIBS ...]): a static library from every *.cpp in the calling
# folder (so adding a file never means editing this list), headers included as "folder/x.h".
function(pecan_module_library target)
  cmake_parse_arguments(L "" "" "LIBS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(${target} STATIC ${srcs})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
  target_link_libraries(${target} PUBLIC ${L_LIBS})
  pecan_target_defaults(${target})
  pecan_sanitize(${target})
endfunction()
