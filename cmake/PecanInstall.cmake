# Installation: bin/pecan, bin/pecan-cc, bin/pecan-c++, lib/libpecan_rt.so, include/pecan/ and the
# CMake package lib/cmake/pecan (find_package(pecan) + pecan_instrument()). Included last.
include(CMakePackageConfigHelpers)

# The compiler wrappers live in recorder/wrappers/; read them here unless recorder/ already did.
get_property(PECAN_WRAPPERS_DIR GLOBAL PROPERTY PECAN_WRAPPERS_DIR)
if(NOT PECAN_WRAPPERS_DIR AND TARGET pecan_rt)
  add_subdirectory(${PROJECT_SOURCE_DIR}/recorder/wrappers ${PROJECT_BINARY_DIR}/recorder/wrappers)
endif()

if(TARGET pecan_rt)
  install(TARGETS pecan_rt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/trace_format/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/trace_format/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format)
if(EXISTS ${PROJECT_SOURCE_DIR}/include/pecan/annotations.h)
  install(FILES ${PROJECT_SOURCE_DIR}/include/pecan/annotations.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan)
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pecanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pecanConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecanConfig.cmake ${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/PecanInstrument.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan)
