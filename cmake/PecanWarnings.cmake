# Compiler warnings and the optional sanitizer build, applied per target by pecan_target_defaults().

function(pecan_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(PECAN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# The runtime library (libpecan_rt.so) is loaded into user programs and must never itself be
# built with a sanitizer runtime; everything else is when PECAN_SANITIZE is on.
if(PECAN_SANITIZE)
  set(PECAN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  function(pecan_sanitize target)
    target_compile_options(${target} PRIVATE ${PECAN_SANITIZER_FLAGS})
    target_link_options(${target} PRIVATE ${PECAN_SANITIZER_FLAGS})
  endfunction()
else()
  function(pecan_sanitize target)
  endfunction()
endif()
