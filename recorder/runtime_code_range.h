// Where libpecan_rt.so's own code lies: the runtime's calls to functions it also interposes (the
// write(2) of its messages, of a monitor's report) go straight to the real function.
#pragma once

#include <cstdint>

namespace pecan::rt {

// [begin, end) of the runtime's loaded segments; empty until the runtime's constructor ran.
extern uint64_t runtime_code_begin;
extern uint64_t runtime_code_end;

inline bool IsRuntimeCode(uint64_t pc) {
  return pc - runtime_code_begin < runtime_code_end - runtime_code_begin;
}

}  // namespace pecan::rt
