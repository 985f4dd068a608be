// The init and destroy calls of mutexes, condition variables, rwlocks, spinlocks and semaphores:
// each writes the whole object (sync_object_access.h) before the real call. Barriers are in
// interpose_barrier.cpp, which also keeps their participant counts.
#include <pthread.h>
#include <semaphore.h>

#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/sync_object_access.h"

using namespace pecan::rt;

PECAN_EXPORT int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) {
  RecordSyncObjectLifetime(m, sizeof(*m), PECAN_CALLER_PC());
  return REAL(pthread_mutex_init)(m, attr);
}

PECAN_EXPORT int pthread_mutex_destroy(pthread_mutex_t* m) {
  RecordSyncObjectLifetime(m, sizeof(*m), PECAN_CALLER_PC());
  return REAL(pthread_mutex_destroy)(m);
}

PECAN_EXPORT int pthread_cond_init(pthread_cond_t* cond, const pthread_condattr_t* attr) {
  RecordSyncObjectLifetime(cond, sizeof(*cond), PECAN_CALLER_PC());
  return REAL(pthread_cond_init)(cond, attr);
}

PECAN_EXPORT int pthread_cond_destroy(pthread_cond_t* cond) {
  RecordSyncObjectLifetime(cond, sizeof(*cond), PECAN_CALLER_PC());
  return REAL(pthread_cond_destroy)(cond);
}

PECAN_EXPORT int pthread_rwlock_init(pthread_rwlock_t* lock, const pthread_rwlockattr_t* attr) {
  RecordSyncObjectLifetime(lock, sizeof(*lock), PECAN_CALLER_PC());
  return REAL(pthread_rwlock_init)(lock, attr);
}

PECAN_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t* lock) {
  RecordSyncObjectLifetime(lock, sizeof(*lock), PECAN_CALLER_PC());
  return REAL(pthread_rwlock_destroy)(lock);
}

PECAN_EXPORT int pthread_spin_init(pthread_spinlock_t* lock, int shared) {
  RecordSyncObjectLifetime(lock, sizeof(*lock), PECAN_CALLER_PC());
  return REAL(pthread_spin_init)(lock, shared);
}

PECAN_EXPORT int pthread_spin_destroy(pthread_spinlock_t* lock) {
  RecordSyncObjectLifetime(lock, sizeof(*lock), PECAN_CALLER_PC());
  return REAL(pthread_spin_destroy)(lock);
}

PECAN_EXPORT int sem_init(sem_t* sem, int shared, unsigned value) {
  RecordSyncObjectLifetime(sem, sizeof(*sem), PECAN_CALLER_PC());
  return REAL(sem_init)(sem, shared, value);
}

PECAN_EXPORT int sem_destroy(sem_t* sem) {
  RecordSyncObjectLifetime(sem, sizeof(*sem), PECAN_CALLER_PC());
  return REAL(sem_destroy)(sem);
}
