# Installation: bin/pecan, headers, and the CMake package (find_package(pecan)).
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/trace_format/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/trace_format/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pecanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pecanConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecanConfig.cmake ${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan)
