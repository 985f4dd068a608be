# Installation: bin/pecan, bin/pecan-cc, bin/pecan-c++, lib/libpecan_rt.so, the trace library
# pecan::trace_format (lib/ + include/pecan/), the docs (share/doc/pecan) and the CMake package
# lib/cmake/pecan (find_package(pecan) + pecan_instrument()). Included last.
include(CMakePackageConfigHelpers)

# The compiler wrappers live in recorder/wrappers/; read them here unless recorder/ already did.
get_property(PECAN_WRAPPERS_DIR GLOBAL PROPERTY PECAN_WRAPPERS_DIR)
if(NOT PECAN_WRAPPERS_DIR AND TARGET pecan_rt)
  add_subdirectory(${PROJECT_SOURCE_DIR}/recorder/wrappers ${PROJECT_BINARY_DIR}/recorder/wrappers)
endif()

if(TARGET pecan_rt)
  install(TARGETS pecan_rt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# pecan::trace_format: the .pecan reader/writer and STD import/export, for programs that read
# traces. Its headers include each other as "trace_format/x.h" and the generated protobuf code as
# "proto/x.pb.h", so include/pecan is on its include path next to include (for the
# <pecan/trace_format/x.h> spelling). Static, like in the build; its dependencies (Protobuf,
# zstd, nlohmann_json) are found again by pecanConfig.cmake.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/trace_format/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/trace_format/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/trace_format)
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/proto/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan/proto
        FILES_MATCHING PATTERN "*.pb.h")
# proto/CMakeLists.txt names its generated folder as a plain path: keep that to the build tree.
set_property(TARGET pecan_proto PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/proto>)
set_property(TARGET pecan_trace_format APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
set_property(TARGET pecan_trace_format PROPERTY EXPORT_NAME trace_format)
set_property(TARGET pecan_proto PROPERTY EXPORT_NAME proto)
install(TARGETS pecan_trace_format pecan_proto EXPORT pecanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/pecan)
install(EXPORT pecanTargets NAMESPACE pecan:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan)
if(EXISTS ${PROJECT_SOURCE_DIR}/include/pecan/annotations.h)
  install(FILES ${PROJECT_SOURCE_DIR}/include/pecan/annotations.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecan)
endif()

# The user documentation the commands' --help refers to, in share/doc/pecan.
install(FILES ${PROJECT_SOURCE_DIR}/analyzer/PATTERNS.md ${PROJECT_SOURCE_DIR}/trace_format/FORMAT.md
              ${PROJECT_SOURCE_DIR}/trace_format/STD_FORMAT.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")

# Triage past one machine: the Slurm job-array scripts (submit, shard, merge) and the Kubernetes
# Indexed Job example, in share/pecan/cluster (cluster/README.md says how to use them).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/cluster/slurm/pecan-triage-submit.sh
                 ${PROJECT_SOURCE_DIR}/cluster/slurm/pecan-triage-shard.sbatch
                 ${PROJECT_SOURCE_DIR}/cluster/slurm/pecan-triage-merge.sbatch
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pecan/cluster/slurm)
install(FILES ${PROJECT_SOURCE_DIR}/cluster/kubernetes/pecan-triage-job.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pecan/cluster/kubernetes)
install(FILES ${PROJECT_SOURCE_DIR}/cluster/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/pecan/cluster)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pecanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pecanConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecanConfig.cmake ${PROJECT_BINARY_DIR}/pecanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/PecanInstrument.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecan)
