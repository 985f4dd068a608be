// Pointers to the real libc/pthread functions the runtime interposes, found with
// dlsym(RTLD_NEXT) (dlvsym for the versioned condition-variable family).
#pragma once

#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>

// Declared here because no system header declares them with C linkage for us.
extern "C" {
int __cxa_guard_acquire(int64_t* guard);
void __cxa_guard_release(int64_t* guard);
void* __libc_malloc(size_t size);
void __libc_free(void* ptr);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
// _FORTIFY_SOURCE's checked reads, declared by glibc's headers only when fortifying.
ssize_t __read_chk(int fd, void* buf, size_t count, size_t buffer_size);
ssize_t __pread_chk(int fd, void* buf, size_t count, off_t offset, size_t buffer_size);
ssize_t __pread64_chk(int fd, void* buf, size_t count, off64_t offset, size_t buffer_size);
ssize_t __recv_chk(int fd, void* buf, size_t count, size_t buffer_size, int flags);
ssize_t __recvfrom_chk(int fd, void* buf, size_t count, size_t buffer_size, int flags,
                       sockaddr* from, socklen_t* from_length);
}

// X(name): every interposed function whose real version is looked up by plain name.
#define PECAN_REAL_FUNCTION_LIST(X) \
  X(pthread_create)                 \
  X(pthread_join)                   \
  X(pthread_tryjoin_np)             \
  X(pthread_timedjoin_np)           \
  X(pthread_clockjoin_np)           \
  X(pthread_detach)                 \
  X(pthread_exit)                   \
  X(pthread_mutex_lock)             \
  X(pthread_mutex_trylock)          \
  X(pthread_mutex_timedlock)        \
  X(pthread_mutex_clocklock)        \
  X(pthread_mutex_unlock)           \
  X(pthread_rwlock_rdlock)          \
  X(pthread_rwlock_tryrdlock)       \
  X(pthread_rwlock_timedrdlock)     \
  X(pthread_rwlock_clockrdlock)     \
  X(pthread_rwlock_wrlock)          \
  X(pthread_rwlock_trywrlock)       \
  X(pthread_rwlock_timedwrlock)     \
  X(pthread_rwlock_clockwrlock)     \
  X(pthread_rwlock_unlock)          \
  X(pthread_spin_lock)              \
  X(pthread_spin_trylock)           \
  X(pthread_spin_unlock)            \
  X(pthread_mutex_init)             \
  X(pthread_mutex_destroy)          \
  X(pthread_rwlock_init)            \
  X(pthread_rwlock_destroy)         \
  X(pthread_spin_init)              \
  X(pthread_spin_destroy)           \
  X(sem_init)                       \
  X(sem_destroy)                    \
  X(pthread_cond_clockwait)         \
  X(pthread_barrier_init)           \
  X(pthread_barrier_destroy)        \
  X(pthread_barrier_wait)           \
  X(sem_post)                       \
  X(sem_wait)                       \
  X(sem_trywait)                    \
  X(sem_timedwait)                  \
  X(sem_clockwait)                  \
  X(pthread_once)                   \
  X(__cxa_guard_acquire)            \
  X(__cxa_guard_release)            \
  X(fork)                           \
  X(_exit)                          \
  X(_Exit)                          \
  X(abort)                          \
  X(execve)                         \
  X(execv)                          \
  X(execvp)                         \
  X(execvpe)                        \
  X(fexecve)                        \
  X(posix_memalign)                 \
  X(aligned_alloc)                  \
  X(memalign)                       \
  X(valloc)                         \
  X(pvalloc)                         \
  X(write)                          \
  X(pwrite)                         \
  X(pwrite64)                       \
  X(writev)                         \
  X(send)                           \
  X(sendto)                         \
  X(sendmsg)                        \
  X(read)                           \
  X(pread)                          \
  X(pread64)                        \
  X(readv)                          \
  X(recv)                           \
  X(recvfrom)                       \
  X(recvmsg)                        \
  X(__read_chk)                     \
  X(__pread_chk)                    \
  X(__pread64_chk)                  \
  X(__recv_chk)                     \
  X(__recvfrom_chk)                 \
  X(connect)                        \
  X(accept)                         \
  X(accept4)                        \
  X(eventfd_read)                   \
  X(eventfd_write)

// The condition-variable calls, looked up with dlvsym(..., "GLIBC_2.3.2"): plain dlsym may
// return the old 2.2.5 ABI, which must not be used with new-style condition variables.
#define PECAN_REAL_COND_FUNCTION_LIST(X) \
  X(pthread_cond_wait)                   \
  X(pthread_cond_timedwait)              \
  X(pthread_cond_signal)                 \
  X(pthread_cond_broadcast)              \
  X(pthread_cond_init)                   \
  X(pthread_cond_destroy)

namespace pecan::rt::real {

#define PECAN_DECLARE_REAL(name) extern decltype(&::name) name;
PECAN_REAL_FUNCTION_LIST(PECAN_DECLARE_REAL)
PECAN_REAL_COND_FUNCTION_LIST(PECAN_DECLARE_REAL)
#undef PECAN_DECLARE_REAL

}  // namespace pecan::rt::real

namespace pecan::rt {

// Looks every real function up (idempotent). Runs from the runtime's first constructor and
// again lazily if an interposed function is called before that.
void ResolveRealFunctions();

// The real definition of `name`, as ResolveRealFunctions finds it (never the runtime's own), or
// nullptr: for the interposers that keep their own lazily resolved pointers (libc_byte_access.h).
void* LookupNextDefinition(const char* name);

}  // namespace pecan::rt

// The real version of `name`, resolving the table first if this call came very early.
#define REAL(name)                    \
  (::pecan::rt::real::name != nullptr \
       ? ::pecan::rt::real::name      \
       : (::pecan::rt::ResolveRealFunctions(), ::pecan::rt::real::name))
