// Names of the kernel channels behind file descriptors (pipe, FIFO, file, eventfd, socket, a
// listening address) as HB_RELEASE/HB_ACQUIRE keys that the sending and the receiving end agree on.
#pragma once

#include <sys/socket.h>

#include <cstdint>

namespace pecan::rt {

// Every key made here has its top bit set. User annotation keys are usually addresses, and user
// space addresses never have it (x86-64 and AArch64 user addresses fit in 48 bits).
inline constexpr uint64_t kFdChannelKeyTag = uint64_t{1} << 63;

// Several channels may share one name: that only adds order, which hides races but never
// invents one (each over-approximation is noted where the name is made).
struct FdChannel {
  uint64_t key = 0;  // 0: the descriptor could not be examined (closed, not open)
  // A call on it may wait for another thread (pipe, FIFO, socket, eventfd, device), unlike a
  // regular file, a directory or a block device.
  bool may_block = false;
};

// The channel data written to `fd` goes into. `destination`: the address of sendto/sendmsg
// (nullptr when there is none), which names the channel of an unconnected datagram socket.
FdChannel SendChannel(int fd, const sockaddr* destination, socklen_t destination_length);
// The channel data read from `fd` comes out of.
FdChannel ReceiveChannel(int fd);

// connect(2) to `address` and accept(2) on the socket listening there (`listening_fd`) name the
// same key.
uint64_t ConnectKey(const sockaddr* address, socklen_t length);
uint64_t ListeningKey(int listening_fd);

}  // namespace pecan::rt
