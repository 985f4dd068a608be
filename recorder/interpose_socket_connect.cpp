// Connection set-up: connect(2) is an HB_RELEASE on the address it connects to, before the call;
// a successful accept(2)/accept4(2) an HB_ACQUIRE on the address its socket listens on, after.
// The client's accesses before connecting are ordered before the server's after accepting.
#include <sys/socket.h>

#include "recorder/export.h"
#include "recorder/fd_io_order.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

PECAN_EXPORT int connect(int fd, const sockaddr* address, socklen_t length) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!WatchesFdCall(pc) || !ThreadRecordsEventsBefore(EventKind::kHbRelease, 0))
    return REAL(connect)(fd, address, length);
  // Over-approximation (fd_channel_key.cpp): the listening address is its port for internet
  // sockets, so a connect to any host's port P is ordered before every accept on port P.
  SendingCall sending(ConnectKey(address, length), pc);
  return REAL(connect)(fd, address, length);
}

// The accepted peer's address goes into the caller's buffer too; it is not recorded as a write.
#define PECAN_ACCEPT(name, params, call)                                            \
  PECAN_EXPORT int name params {                                                    \
    const uint64_t pc = PECAN_CALLER_PC();                                          \
    if (!WatchesFdCall(pc) || !ThreadRecordsEventsBefore(EventKind::kHbAcquire, 0)) \
      return REAL(name) call;                                                       \
    ReceivingCall receiving(ListeningKey(fd), pc);                                  \
    const int result = REAL(name) call;                                             \
    receiving.Returned(result, true); /* a new descriptor, which may be 0 */        \
    return result;                                                                  \
  }

PECAN_ACCEPT(accept, (int fd, sockaddr* address, socklen_t* length), (fd, address, length))
PECAN_ACCEPT(accept4, (int fd, sockaddr* address, socklen_t* length, int flags),
             (fd, address, length, flags))
