// The events of a call that moves data through a file descriptor (interpose_fd_io.cpp,
// interpose_socket_connect.cpp): HB_RELEASE before sending, HB_ACQUIRE after receiving, the
// caller's buffers as range accesses, and the replay turn around a call that may wait.
#pragma once

#include <errno.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "recorder/fd_channel_key.h"
#include "recorder/libc_byte_access.h"
#include "recorder/runtime_code_range.h"
#include "recorder/thread_state.h"

namespace pecan::rt {

// False when the calling thread records and monitors nothing, or when the runtime itself calls
// (its messages): the call then goes straight to the real function, at the cost of one test.
inline bool WatchesFdCall(uint64_t caller_pc) {
  constexpr uint32_t kWatched = kGateAccesses | kGateEvents | kGateSections;
  return (tls_thread.gates & kWatched) != 0 && !IsRuntimeCode(caller_pc);
}

// The kernel reads a sending call's bytes and writes a receiving call's (RecordByteRange, one
// buffer). The first `bytes` bytes of a vector call's buffers, in order: all of them for a send,
// what arrived for a receive. More than IOV_MAX vectors fail the call: they are not looked at.
inline void RecordVectors(EventKind kind, const iovec* vectors, size_t count, size_t bytes,
                          uint64_t pc) {
  constexpr size_t kMaxVectors = 1024;  // IOV_MAX on Linux
  if (vectors == nullptr || count > kMaxVectors) return;
  for (size_t i = 0; i < count && bytes > 0; ++i) {
    const size_t size = std::min(vectors[i].iov_len, bytes);
    RecordByteRange(kind, vectors[i].iov_base, size, pc);
    bytes -= size;
  }
}

// HB_RELEASE on the channel before the data goes (after the buffer reads, which the receiver
// may rely on). A call that may wait for a reader (a full pipe) lets the replay turn go on to
// the schedule's next thread while it waits. Construct right before the real call.
class SendingCall {
 public:
  SendingCall(int fd, const sockaddr* destination, socklen_t destination_length, uint64_t pc) {
    if (!ThreadRecordsEventsBefore(EventKind::kHbRelease, 0)) return;
    const FdChannel channel = SendChannel(fd, destination, destination_length);
    Release(channel, pc);
  }
  // connect(2): released on the listening address.
  SendingCall(uint64_t key, uint64_t pc) {
    if (!ThreadRecordsEventsBefore(EventKind::kHbRelease, 0)) return;
    Release(FdChannel{key, true}, pc);
  }
  ~SendingCall() {
    if (!blocking_) return;
    const int saved_errno = errno;
    AfterBlockingOnOthers();
    errno = saved_errno;
  }
  SendingCall(const SendingCall&) = delete;
  SendingCall& operator=(const SendingCall&) = delete;

 private:
  void Release(const FdChannel& channel, uint64_t pc) {
    if (channel.key == 0) return;
    RecordSync(EventKind::kHbRelease, 0, channel.key, 0, pc);
    if (!channel.may_block) return;
    BeforeBlockingOnOthers(EventKind::kHbRelease, channel.key, pc);
    blocking_ = true;
  }

  bool blocking_ = false;
};

// Around a receiving call: it may wait for another thread's send, so the replay turn goes on
// while it waits (a read must never hold the schedule); once it received something, HB_ACQUIRE
// on the channel. Construct right before the real call; call Returned with its result.
class ReceivingCall {
 public:
  ReceivingCall(int fd, uint64_t pc) : pc_(pc) {
    if (!ThreadRecordsEventsBefore(EventKind::kHbAcquire, 0)) return;
    Enter(ReceiveChannel(fd));
  }
  // accept(2): acquired on the listening address.
  ReceivingCall(uint64_t key, uint64_t pc) : pc_(pc) {
    if (!ThreadRecordsEventsBefore(EventKind::kHbAcquire, 0)) return;
    Enter(FdChannel{key, true});
  }
  ReceivingCall(const ReceivingCall&) = delete;
  ReceivingCall& operator=(const ReceivingCall&) = delete;

  // `received`: the call's result; above 0 (a byte count, or a new descriptor when
  // `zero_received` says 0 counts too) it received something. Keeps the call's errno.
  void Returned(ssize_t received, bool zero_received = false) {
    const int saved_errno = errno;
    if (blocking_) AfterBlockingOnOthers();
    const bool got = received > 0 || (zero_received && received == 0);
    if (got && key_ != 0) RecordSync(EventKind::kHbAcquire, 0, key_, 0, pc_);
    errno = saved_errno;
  }

 private:
  void Enter(const FdChannel& channel) {
    key_ = channel.key;
    if (!channel.may_block) return;
    BeforeBlockingOnOthers(EventKind::kHbAcquire, channel.key, pc_);
    blocking_ = true;
  }

  uint64_t pc_;
  uint64_t key_ = 0;
  bool blocking_ = false;
};

}  // namespace pecan::rt
