# pecan_instrument(<target>...): builds targets for recording with pecan. Their C and C++ sources
# get the compiler's ThreadSanitizer instrumentation, and they link libpecan_rt.so, not TSan's runtime.
#
# Works for executables, shared and module libraries, and static or object libraries (whatever
# links one of those gets the runtime too). Instrument every target whose code you want
# recorded. The link must not see -fsanitize=thread (it would bring TSan's runtime), so do not
# combine this with a ThreadSanitizer build type. The runtime target is ${PECAN_RUNTIME_TARGET}:
# pecan::rt after find_package(pecan), pecan_rt inside pecan's own build.

function(pecan_instrument)
  if(PECAN_RUNTIME_TARGET)
    set(runtime ${PECAN_RUNTIME_TARGET})
  elseif(TARGET pecan::rt)
    set(runtime pecan::rt)
  else()
    set(runtime pecan_rt)
  endif()
  if(NOT TARGET ${runtime})
    message(FATAL_ERROR "pecan_instrument: no runtime target ${runtime}; call find_package(pecan) first")
  endif()

  # clang reports only the write of `x += y` unless asked for the read as well.
  set(clang_language "$<OR:$<COMPILE_LANG_AND_ID:C,Clang>,$<COMPILE_LANG_AND_ID:CXX,Clang>>")
  set(compile_options
      "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=thread>"
      "$<${clang_language}:SHELL:-mllvm -tsan-compound-read-before-write=1>")

  foreach(target ${ARGN})
    if(NOT TARGET ${target})
      message(FATAL_ERROR "pecan_instrument: ${target} is not a target")
    endif()
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY|STATIC_LIBRARY|OBJECT_LIBRARY)$")
      message(FATAL_ERROR "pecan_instrument: ${target} is a ${type}, which compiles nothing")
    endif()
    set_property(TARGET ${target} APPEND PROPERTY COMPILE_OPTIONS ${compile_options})
    # Properties rather than target_link_libraries(), which would clash with whichever
    # signature (plain or PRIVATE/PUBLIC) the project already uses for this target.
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES ${runtime})
    if(type MATCHES "^(STATIC|OBJECT)_LIBRARY$")
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:${runtime}>")
    else()
      # The build tree gets its rpath from CMake; an installed program must still find the runtime.
      get_target_property(imported ${runtime} IMPORTED)
      if(imported)
        get_target_property(location ${runtime} IMPORTED_LOCATION)
        get_filename_component(runtime_dir "${location}" DIRECTORY)
        set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${runtime_dir}")
      endif()
    endif()
  endforeach()
endfunction()
