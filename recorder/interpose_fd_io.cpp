// Data through file descriptors: every write/send is a READ of its buffer and an HB_RELEASE on
// the channel (fd_channel_key.h) before the call; every read/recv that got bytes is an HB_ACQUIRE
// and a WRITE of the bytes it got after. So a pipe, socket or eventfd hand-off orders the sender's
// earlier accesses before the receiver's later ones, as the kernel did.
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "recorder/export.h"
#include "recorder/fd_io_order.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

// How many of `requested` bytes a receiving call's result says arrived (a datagram read with
// MSG_TRUNC reports its full length, which may exceed the buffer).
size_t ReceivedBytes(ssize_t result, size_t requested) {
  return result > 0 ? std::min(size_t(result), requested) : 0;
}

size_t TotalLength(const iovec* vectors, size_t count) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += vectors[i].iov_len;
  return total;
}

}  // namespace

// One buffer out: `call` is the real call's argument list.
#define PECAN_SEND_BUFFER(ret, name, params, call, fd, buf, count, destination, length) \
  PECAN_EXPORT ret name params {                                                        \
    const uint64_t pc = PECAN_CALLER_PC();                                              \
    if (!WatchesFdCall(pc)) return REAL(name) call;                                     \
    RecordByteRange(EventKind::kRead, buf, count, pc);                                  \
    SendingCall sending(fd, destination, length, pc);                                   \
    return REAL(name) call;                                                             \
  }

PECAN_SEND_BUFFER(ssize_t, write, (int fd, const void* buf, size_t count), (fd, buf, count), fd,
                  buf, count, nullptr, 0)
PECAN_SEND_BUFFER(ssize_t, pwrite, (int fd, const void* buf, size_t count, off_t offset),
                  (fd, buf, count, offset), fd, buf, count, nullptr, 0)
PECAN_SEND_BUFFER(ssize_t, pwrite64, (int fd, const void* buf, size_t count, off64_t offset),
                  (fd, buf, count, offset), fd, buf, count, nullptr, 0)
PECAN_SEND_BUFFER(ssize_t, send, (int fd, const void* buf, size_t count, int flags),
                  (fd, buf, count, flags), fd, buf, count, nullptr, 0)
PECAN_SEND_BUFFER(ssize_t, sendto,
                  (int fd, const void* buf, size_t count, int flags, const sockaddr* to,
                   socklen_t to_length),
                  (fd, buf, count, flags, to, to_length), fd, buf, count, to, to_length)

PECAN_EXPORT ssize_t writev(int fd, const iovec* vectors, int count) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc) || count < 0) return REAL(writev)(fd, vectors, count);
  RecordVectors(EventKind::kRead, vectors, size_t(count), SIZE_MAX, pc);
  SendingCall sending(fd, nullptr, 0, pc);
  return REAL(writev)(fd, vectors, count);
}

PECAN_EXPORT ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc) || message == nullptr) return REAL(sendmsg)(fd, message, flags);
  RecordVectors(EventKind::kRead, message->msg_iov, message->msg_iovlen, SIZE_MAX, pc);
  SendingCall sending(fd, static_cast<const sockaddr*>(message->msg_name), message->msg_namelen,
                      pc);
  return REAL(sendmsg)(fd, message, flags);
}

// One buffer in.
#define PECAN_RECEIVE_BUFFER(name, params, call, fd, buf, count)               \
  PECAN_EXPORT ssize_t name params {                                           \
    const uint64_t pc = PECAN_CALLER_PC();                                     \
    if (!WatchesFdCall(pc)) return REAL(name) call;                            \
    ReceivingCall receiving(fd, pc);                                           \
    const ssize_t result = REAL(name) call;                                    \
    receiving.Returned(result);                                                \
    RecordByteRange(EventKind::kWrite, buf, ReceivedBytes(result, count), pc); \
    return result;                                                             \
  }

PECAN_RECEIVE_BUFFER(read, (int fd, void* buf, size_t count), (fd, buf, count), fd, buf, count)
PECAN_RECEIVE_BUFFER(pread, (int fd, void* buf, size_t count, off_t offset),
                     (fd, buf, count, offset), fd, buf, count)
PECAN_RECEIVE_BUFFER(pread64, (int fd, void* buf, size_t count, off64_t offset),
                     (fd, buf, count, offset), fd, buf, count)
PECAN_RECEIVE_BUFFER(recv, (int fd, void* buf, size_t count, int flags), (fd, buf, count, flags),
                     fd, buf, count)
PECAN_RECEIVE_BUFFER(recvfrom,
                     (int fd, void* buf, size_t count, int flags, sockaddr* from,
                      socklen_t* from_length),
                     (fd, buf, count, flags, from, from_length), fd, buf, count)
// _FORTIFY_SOURCE's checked versions, which glibc's inline wrappers call instead.
PECAN_RECEIVE_BUFFER(__read_chk, (int fd, void* buf, size_t count, size_t buffer_size),
                     (fd, buf, count, buffer_size), fd, buf, count)
PECAN_RECEIVE_BUFFER(__pread_chk,
                     (int fd, void* buf, size_t count, off_t offset, size_t buffer_size),
                     (fd, buf, count, offset, buffer_size), fd, buf, count)
PECAN_RECEIVE_BUFFER(__pread64_chk,
                     (int fd, void* buf, size_t count, off64_t offset, size_t buffer_size),
                     (fd, buf, count, offset, buffer_size), fd, buf, count)
PECAN_RECEIVE_BUFFER(__recv_chk, (int fd, void* buf, size_t count, size_t buffer_size, int flags),
                     (fd, buf, count, buffer_size, flags), fd, buf, count)
PECAN_RECEIVE_BUFFER(__recvfrom_chk,
                     (int fd, void* buf, size_t count, size_t buffer_size, int flags,
                      sockaddr* from, socklen_t* from_length),
                     (fd, buf, count, buffer_size, flags, from, from_length), fd, buf, count)

PECAN_EXPORT ssize_t readv(int fd, const iovec* vectors, int count) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc) || count < 0) return REAL(readv)(fd, vectors, count);
  ReceivingCall receiving(fd, pc);
  const ssize_t result = REAL(readv)(fd, vectors, count);
  receiving.Returned(result);
  RecordVectors(EventKind::kWrite, vectors, size_t(count), ReceivedBytes(result, SIZE_MAX), pc);
  return result;
}

PECAN_EXPORT ssize_t recvmsg(int fd, msghdr* message, int flags) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc) || message == nullptr) return REAL(recvmsg)(fd, message, flags);
  ReceivingCall receiving(fd, pc);
  const ssize_t result = REAL(recvmsg)(fd, message, flags);
  receiving.Returned(result);
  if (result > 0)  // the kernel took the vectors
    RecordVectors(EventKind::kWrite, message->msg_iov, message->msg_iovlen,
                  ReceivedBytes(result, TotalLength(message->msg_iov, message->msg_iovlen)), pc);
  return result;
}

// glibc's eventfd_read/eventfd_write call read/write inside libc, where no interposer sees them.
PECAN_EXPORT int eventfd_read(int fd, eventfd_t* value) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc)) return REAL(eventfd_read)(fd, value);
  ReceivingCall receiving(fd, pc);
  const int result = REAL(eventfd_read)(fd, value);
  receiving.Returned(result, true);
  if (result == 0) RecordByteRange(EventKind::kWrite, value, sizeof *value, pc);
  return result;
}

PECAN_EXPORT int eventfd_write(int fd, eventfd_t value) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc)) return REAL(eventfd_write)(fd, value);
  SendingCall sending(fd, nullptr, 0, pc);
  return REAL(eventfd_write)(fd, value);
}
